#pragma once
// ArrayLock: Anderson's array-based queue lock (Anderson 1990; thesis Table
// 2.1 "ARRAY"): fetch-and-add on a ticket picks a slot of a flag array, each
// flag on its own cache line; the caller waits on its slot, and unlock sets
// the next slot. FIFO, every waiter spins on its own line.
//
// The algorithm needs no more concurrent callers than slots; ULTs are
// unbounded, so a caller whose slot is still in use by the ticket `slots`
// earlier (it has not acquired yet) parks until that one has. Waiters spin
// for their budget, then park (ULT) or sleep (thread). Lockable.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/lock_errors.hpp"
#include "weft/sync/detail/parking_lot.hpp"
#include "weft/sync/detail/spin_then_park.hpp"

namespace weft::sync {

class ArrayLock {
 public:
  // `slots` >= 2 (std::invalid_argument otherwise); 64 by default.
  explicit ArrayLock(std::size_t slots = 64) : n_(checked(slots)), slots_(std::make_unique<Slot[]>(n_)) {
    slots_[0].flag.set();  // ticket 0 may go
  }
  ArrayLock(const ArrayLock&) = delete;
  ArrayLock& operator=(const ArrayLock&) = delete;

  void lock() {
    const std::uint64_t t = next_.fetch_add(1, std::memory_order_relaxed);
    acquire(t);
  }
  bool try_lock() {
    std::uint64_t t = acquired_.load(std::memory_order_acquire);
    if (!slot(t).is_set()) return false;  // ticket t-1 still holds
    if (!next_.compare_exchange_strong(t, t + 1, std::memory_order_acq_rel, std::memory_order_relaxed)) return false;
    acquire(t);
    return true;
  }
  // Throws std::logic_error if the lock was not held.
  void unlock() {
    if (!held_) detail::throw_not_held("ArrayLock");
    held_ = false;
    slot(holder_ + 1).set();
  }

  std::size_t slots() const noexcept { return n_; }

 private:
  struct alignas(cache_line_size) Slot {
    detail::ParkingFlag flag;
  };

  static std::size_t checked(std::size_t slots) {
    if (slots < 2)
      throw std::invalid_argument("weft::sync::ArrayLock: slots = " + std::to_string(slots) + " (must be >= 2)");
    return slots;
  }
  detail::ParkingFlag& slot(std::uint64_t ticket) noexcept { return slots_[ticket % n_].flag; }

  void acquire(std::uint64_t t) {
    // The slot is ours once ticket t - n_ (its previous user) has acquired.
    auto slot_busy = [&] { return t - acquired_.load(std::memory_order_seq_cst) >= n_; };
    if (slot_busy() && !detail::spin_briefly([&] { return !slot_busy(); })) {
      while (slot_busy()) room_.park_while(slot_busy, t);
    }
    detail::ParkingFlag& mine = slot(t);
    mine.wait();
    mine.reset();  // ticket t + n_ may use it from the store below on
    holder_ = t;
    held_ = true;
    acquired_.store(t + 1, std::memory_order_seq_cst);
    if (room_.has_parked()) room_.unpark_key(t + n_);
  }

  const std::size_t n_;
  std::unique_ptr<Slot[]> slots_;
  alignas(cache_line_size) std::atomic<std::uint64_t> next_{0};
  alignas(cache_line_size) std::atomic<std::uint64_t> acquired_{0};  // tickets < this have acquired
  std::uint64_t holder_ = 0;  // written and read by the holder
  bool held_ = false;
  detail::ParkingLot room_;  // callers waiting for their slot to be free
};

}  // namespace weft::sync
