#pragma once
// TtasLock: test-and-test-and-set, the "local spinning" lock of SSYNC's
// study (thesis Table 2.1): waiters read the lock word in their cache and
// try the atomic exchange only when it reads free, one educated backoff
// quantum apart (thesis §7.5, §7.7.1). Unfair. A waiter spins for its budget
// (WaitBudget), then parks (ULT) or sleeps (thread) until a release.
// Lockable.
//
// Also the mutex inside QdLock (queue delegation locking: "TATAS works very
// well" there, QD paper §4.1), hence is_locked() and try_lock_or_wait().

#include <atomic>
#include <cstdint>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/lock_errors.hpp"
#include "weft/sync/detail/parking_lot.hpp"
#include "weft/sync/detail/spin_acquire.hpp"
#include "weft/sync/detail/spin_then_park.hpp"
#include "weft/sync/locks/wait_budget.hpp"

namespace weft::sync {

class TtasLock {
 public:
  TtasLock() = default;
  TtasLock(const TtasLock&) = delete;
  TtasLock& operator=(const TtasLock&) = delete;

  void lock() {
    if (try_lock()) return;
    const WaitBudget& b = wait_budget();
    detail::spin_then_park_acquire(
        lot_, b.spins_for_caller(), b.backoff_spins, [this] { return try_lock(); },
        [this] { return held_.load(std::memory_order_seq_cst) != 0; });
  }
  bool try_lock() noexcept {
    // seq_cst: MrqdLock's readers check is_locked() after announcing
    // themselves (a Dekker handshake with this exchange).
    return held_.load(std::memory_order_relaxed) == 0 && held_.exchange(1, std::memory_order_seq_cst) == 0;
  }
  // Throws std::logic_error if the lock was not held.
  void unlock() {
    if (held_.exchange(0, std::memory_order_seq_cst) == 0) detail::throw_not_held("TtasLock");
    if (lot_.has_parked()) lot_.unpark_one();
  }

  bool is_locked() const noexcept { return held_.load(std::memory_order_seq_cst) != 0; }

  // QD's try_lock_or_wait (QD paper §4.1, Fig. 5): true if the lock was
  // taken; otherwise waits (spins for the budget, then parks) until the
  // holder releases it, and returns false without taking it.
  bool try_lock_or_wait() {
    if (try_lock()) return true;
    wait_until_unlocked();
    return false;
  }

  // Returns once the lock was seen free (spins for the budget, then parks).
  void wait_until_unlocked() {
    if (detail::spin_briefly([this] { return !is_locked(); })) return;
    lot_.park_while([this] { return is_locked(); });
    // Woken by an unlock without taking the lock: pass the wake-up on, so
    // that a lock() waiter parked behind us learns of the release too.
    if (!is_locked() && lot_.has_parked()) lot_.unpark_one();
  }

 private:
  alignas(cache_line_size) std::atomic<std::uint32_t> held_{0};
  detail::ParkingLot lot_;
};

}  // namespace weft::sync
