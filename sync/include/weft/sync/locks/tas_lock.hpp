#pragma once
// TasLock: test-and-set, the "global spinning" lock of SSYNC's study (thesis
// Table 2.1, ch. 4): every attempt is an atomic exchange on the lock word,
// with one educated backoff quantum between attempts (thesis §7.5, §7.7.1:
// "TAS and TTAS use one quantum"). Unfair. A waiter spins for its budget
// (WaitBudget) and then parks (ULT) or sleeps (thread) until a release.
// Lockable: std::lock_guard, std::unique_lock, std::scoped_lock and
// std::condition_variable_any work with it.

#include <atomic>
#include <cstdint>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/lock_errors.hpp"
#include "weft/sync/detail/parking_lot.hpp"
#include "weft/sync/detail/spin_acquire.hpp"
#include "weft/sync/locks/wait_budget.hpp"

namespace weft::sync {

class TasLock {
 public:
  TasLock() = default;
  TasLock(const TasLock&) = delete;
  TasLock& operator=(const TasLock&) = delete;

  void lock() {
    if (try_lock()) return;
    const WaitBudget& b = wait_budget();
    detail::spin_then_park_acquire(
        lot_, b.spins_for_caller(), b.backoff_spins, [this] { return try_lock(); },
        [this] { return held_.load(std::memory_order_seq_cst) != 0; });
  }
  bool try_lock() noexcept { return held_.exchange(1, std::memory_order_acquire) == 0; }
  // Throws std::logic_error if the lock was not held.
  void unlock() {
    if (held_.exchange(0, std::memory_order_seq_cst) == 0) detail::throw_not_held("TasLock");
    if (lot_.has_parked()) lot_.unpark_one();
  }

 private:
  alignas(cache_line_size) std::atomic<std::uint32_t> held_{0};
  detail::ParkingLot lot_;
};

}  // namespace weft::sync
