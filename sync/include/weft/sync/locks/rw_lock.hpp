#pragma once
// RwLock: a writer-preferring reader-writer lock (the reader-writer lock of
// SSYNC's lock family), ULT-aware. One 64-bit word holds the number of
// readers inside, the number of writers waiting and a writer-inside bit:
// readers enter with one CAS when no writer is inside or waiting; a writer
// counts itself as waiting (new readers now stay out), then enters once the
// readers have drained. Readers and writers that cannot enter spin for their
// budget, then park (ULT) or sleep (thread) in one of two parking lots; the
// last reader out wakes a writer, a leaving writer wakes the next writer, or
// every reader when no writer waits. Writers go first, so a steady stream of
// writers can starve readers (use MrqdLock for read-mostly data with many
// writers: its readers bound their patience).
//
// Lockable (lock/try_lock/unlock) and SharedLockable
// (lock_shared/try_lock_shared/unlock_shared): std::unique_lock and
// std::shared_lock work with it.

#include <atomic>
#include <cstdint>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/lock_errors.hpp"
#include "weft/sync/detail/parking_lot.hpp"
#include "weft/sync/detail/spin_acquire.hpp"
#include "weft/sync/locks/wait_budget.hpp"

namespace weft::sync {

class RwLock {
 public:
  RwLock() = default;
  RwLock(const RwLock&) = delete;
  RwLock& operator=(const RwLock&) = delete;

  void lock() {
    if (try_lock()) return;
    state_.fetch_add(kWaitingWriter, std::memory_order_seq_cst);
    const WaitBudget& b = wait_budget();
    detail::spin_then_park_acquire(
        writers_, b.spins_for_caller(), 1,
        [this] {
          std::uint64_t s = state_.load(std::memory_order_relaxed);
          return (s & (kWriter | kReaderMask)) == 0 &&
                 state_.compare_exchange_strong(s, (s - kWaitingWriter) | kWriter, std::memory_order_acquire,
                                                std::memory_order_relaxed);
        },
        [this] { return (state_.load(std::memory_order_seq_cst) & (kWriter | kReaderMask)) != 0; });
  }
  bool try_lock() noexcept {
    std::uint64_t s = state_.load(std::memory_order_relaxed);
    return (s & (kWriter | kReaderMask)) == 0 &&
           state_.compare_exchange_strong(s, s | kWriter, std::memory_order_acquire, std::memory_order_relaxed);
  }
  // Throws std::logic_error if no writer held the lock.
  void unlock() {
    const std::uint64_t s = state_.fetch_and(~kWriter, std::memory_order_seq_cst);
    if ((s & kWriter) == 0) detail::throw_not_held("RwLock");
    if (s & kWaitingMask) {
      if (writers_.has_parked()) writers_.unpark_one();
    } else if (readers_.has_parked()) {
      readers_.unpark_all();
    }
  }

  void lock_shared() {
    if (try_lock_shared()) return;
    const WaitBudget& b = wait_budget();
    detail::spin_then_park_acquire(
        readers_, b.spins_for_caller(), 1, [this] { return try_lock_shared(); },
        [this] { return (state_.load(std::memory_order_seq_cst) & (kWriter | kWaitingMask)) != 0; });
  }
  bool try_lock_shared() noexcept {
    std::uint64_t s = state_.load(std::memory_order_relaxed);
    while ((s & (kWriter | kWaitingMask)) == 0)
      if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acquire, std::memory_order_relaxed)) return true;
    return false;
  }
  // Throws std::logic_error if no reader held the lock.
  void unlock_shared() {
    std::uint64_t s = state_.load(std::memory_order_relaxed);
    do {
      if ((s & kReaderMask) == 0) detail::throw_not_held("RwLock (shared)");
    } while (!state_.compare_exchange_weak(s, s - 1, std::memory_order_seq_cst, std::memory_order_relaxed));
    if ((s & kReaderMask) == 1 && (s & kWaitingMask) && writers_.has_parked()) writers_.unpark_one();
  }

 private:
  static constexpr std::uint64_t kReaderMask = (std::uint64_t{1} << 32) - 1;
  static constexpr std::uint64_t kWaitingWriter = std::uint64_t{1} << 32;
  static constexpr std::uint64_t kWriter = std::uint64_t{1} << 63;
  static constexpr std::uint64_t kWaitingMask = kWriter - kWaitingWriter;  // bits 32..62

  alignas(cache_line_size) std::atomic<std::uint64_t> state_{0};
  detail::ParkingLot readers_;
  detail::ParkingLot writers_;
};

}  // namespace weft::sync
