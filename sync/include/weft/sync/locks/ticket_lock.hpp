#pragma once
// TicketLock: the fair (FIFO) "local spinning" lock of SSYNC's study (thesis
// Table 2.1): a caller takes a ticket with fetch-and-add and waits until the
// serving counter reaches it; unlock advances the counter. Proportional
// backoff with the educated quantum (thesis §7.5, §7.7.1: "TICKET uses
// quantum x queue position"): a waiter d tickets from the front pauses d
// quanta between reads. Once its spin budget (WaitBudget) is spent a waiter
// parks (ULT) or sleeps (thread) under its ticket, and the releaser wakes
// exactly the next ticket's waiter. Lockable.
//
// Fair locks hand the lock to the next ticket even when its holder is not
// running (thesis ch. 5: "fair locks collapse under oversubscription"); the
// park keeps a descheduled waiter from spinning, not the others from
// waiting for it.

#include <atomic>
#include <cstdint>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/lock_errors.hpp"
#include "weft/sync/detail/parking_lot.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/sync/locks/wait_budget.hpp"

namespace weft::sync {

class TicketLock {
 public:
  TicketLock() = default;
  TicketLock(const TicketLock&) = delete;
  TicketLock& operator=(const TicketLock&) = delete;

  void lock() {
    const std::uint32_t ticket = next_.fetch_add(1, std::memory_order_relaxed);
    if (serving_.load(std::memory_order_acquire) != ticket) wait_for(ticket);
  }
  bool try_lock() noexcept {
    std::uint32_t t = serving_.load(std::memory_order_relaxed);
    return next_.compare_exchange_strong(t, t + 1, std::memory_order_acquire, std::memory_order_relaxed);
  }
  // Debug builds throw std::logic_error if the lock was not held.
  void unlock() {
    const std::uint32_t s = serving_.load(std::memory_order_relaxed);
#ifndef NDEBUG
    if (next_.load(std::memory_order_relaxed) == s) detail::throw_not_held("TicketLock");
#endif
    serving_.store(s + 1, std::memory_order_seq_cst);
    if (lot_.has_parked()) lot_.unpark_key(s + 1);
  }

  // True while callers other than the holder wait (a cohort lock's
  // "alone?" test); call while holding the lock.
  bool has_waiters() const noexcept {
    return next_.load(std::memory_order_relaxed) - serving_.load(std::memory_order_relaxed) > 1;
  }

 private:
  void wait_for(std::uint32_t ticket) {
    const WaitBudget& b = wait_budget();
    const std::uint32_t budget = b.spins_for_caller();
    const bool in_ult = weft::this_ult::worker_index() >= 0;
    std::uint32_t spent = 0;
    std::uint32_t yields = in_ult ? b.ult_yields : 0;
    for (;;) {
      const std::uint32_t ahead = ticket - serving_.load(std::memory_order_acquire);
      if (ahead == 0) return;
      if (spent >= budget) {
        if (yields > 0) {  // a ULT: let the worker's other ULTs run first
          --yields;
          weft::this_ult::yield();
          continue;
        }
        lot_.park_while([&] { return serving_.load(std::memory_order_seq_cst) != ticket; }, ticket);
        continue;
      }
      if (in_ult && spent == 0) weft::this_ult::yield();  // the holder may be a ULT of this worker
      const std::uint64_t pause = static_cast<std::uint64_t>(ahead) * b.backoff_spins;
      const std::uint32_t n = pause > budget ? budget : static_cast<std::uint32_t>(pause);
      for (std::uint32_t i = 0; i < n; ++i) cpu_relax();
      spent += n ? n : 1;
    }
  }

  alignas(cache_line_size) std::atomic<std::uint32_t> next_{0};
  alignas(cache_line_size) std::atomic<std::uint32_t> serving_{0};
  detail::ParkingLot lot_;
};

}  // namespace weft::sync
