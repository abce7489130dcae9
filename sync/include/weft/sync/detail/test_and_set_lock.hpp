#pragma once
// The one-word lock behind TasLock and TtasLock (locks/tas_lock.hpp,
// locks/ttas_lock.hpp): an atomic exchange acquires, waiters retry one
// educated backoff quantum apart (thesis §7.5, §7.7.1: "TAS and TTAS use one
// quantum") for their spin budget, then park in a ParkingLot until a release.
// TestFirst reads the word before exchanging (TTAS: waiters spin in their
// own cache). Unfair.

#include <atomic>
#include <cstdint>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/lock_errors.hpp"
#include "weft/sync/detail/parking_lot.hpp"
#include "weft/sync/detail/spin_acquire.hpp"
#include "weft/sync/detail/spin_then_park.hpp"
#include "weft/sync/locks/wait_budget.hpp"

namespace weft::sync::detail {

template <bool TestFirst>
class TestAndSetLock {
 public:
  TestAndSetLock() = default;
  TestAndSetLock(const TestAndSetLock&) = delete;
  TestAndSetLock& operator=(const TestAndSetLock&) = delete;

  void lock() {
    if (try_lock()) return;
    const WaitBudget& b = wait_budget();
    spin_then_park_acquire(lot_, b.spins_for_caller(), b.backoff_spins, [this] { return try_lock(); },
                           [this] { return is_locked(); });
  }
  bool try_lock() noexcept {
    if (TestFirst && held_.load(std::memory_order_relaxed) != 0) return false;
    // seq_cst: MrqdLock's readers check is_locked() after announcing
    // themselves (a Dekker handshake with this exchange).
    return held_.exchange(1, std::memory_order_seq_cst) == 0;
  }
  // Throws std::logic_error if the lock was not held.
  void unlock() {
    if (held_.exchange(0, std::memory_order_seq_cst) == 0) throw_not_held(TestFirst ? "TtasLock" : "TasLock");
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
    if (spin_briefly([this] { return !is_locked(); })) return;
    lot_.park_while([this] { return is_locked(); });
    // Woken by an unlock without taking the lock: pass the wake-up on, so
    // that a lock() waiter parked behind us learns of the release too.
    if (!is_locked() && lot_.has_parked()) lot_.unpark_one();
  }

 private:
  alignas(cache_line_size) std::atomic<std::uint32_t> held_{0};
  ParkingLot lot_;
};

}  // namespace weft::sync::detail
