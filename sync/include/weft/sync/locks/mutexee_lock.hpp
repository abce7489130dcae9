#pragma once
// MutexeeLock: MUTEXEE, the thesis's energy-efficient futex lock (ch. 5,
// §5.5.1, Table 5.1), ULT-aware.
//
//   lock    spin on the lock word (test-and-test-and-set) for up to
//           lock_spins, then sleep (a ULT parks, a thread futex-sleeps)
//           until an unlock wakes it; retry.
//   unlock  clear the lock word in user space; if someone sleeps, wait in
//           user space for about the largest coherence latency
//           (unlock_spins): if a spinning waiter takes the lock meanwhile,
//           return without a wake-up (no system call); otherwise wake one
//           sleeper.
//   modes   spin mode (lock ~8000 cycles, unlock ~384 on Ivy) and mutex mode
//           (256 / 128): every 2048 acquisitions the lock looks at the share
//           of acquisitions that needed a sleep ("futex handovers") and
//           switches to mutex mode above 30 %, back to spin mode below.
//   fairness  a sleeper that has slept longer than `fairness_timeout` stops
//           sleeping and keeps spinning (yielding, in a ULT) until it gets
//           the lock (§5.5.1 "timeouts cap tail latency"; the thesis warns
//           that timeouts under 16-32 ms cost throughput). 0 or less: no limit.
//
// The budgets come from measured latencies (WaitBudget: mutexee_* scale the
// thesis's cycles by this machine's futex turnaround and coherence latency).
// A waiting ULT spins only its ULT budget and then yields (its worker runs
// other ULTs) before it parks (WaitBudget::ult_spins, ult_yields).
// Lockable.

#include <atomic>
#include <chrono>
#include <cstdint>

#include "weft/runtime/this_ult.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/lock_errors.hpp"
#include "weft/sync/detail/parking_lot.hpp"
#include "weft/sync/locks/wait_budget.hpp"

namespace weft::sync {

class MutexeeLock {
 public:
  enum class Mode : std::uint8_t { spin, mutex };
  static constexpr std::uint32_t kAdaptEvery = 2048;  // acquisitions (lockin: 2047)
  static constexpr double kMutexModeAbove = 0.30;     // share of sleeping handovers (§5.5.1)

  explicit MutexeeLock(std::chrono::nanoseconds fairness_timeout = std::chrono::milliseconds(32))
      : fairness_timeout_(fairness_timeout) {}
  MutexeeLock(const MutexeeLock&) = delete;
  MutexeeLock& operator=(const MutexeeLock&) = delete;

  void lock() {
    if (!try_lock()) lock_contended();
    count_acquisition();
  }
  bool try_lock() noexcept {
    return held_.load(std::memory_order_relaxed) == 0 && held_.exchange(1, std::memory_order_acquire) == 0;
  }
  // Throws std::logic_error if the lock was not held.
  void unlock() {
    if (held_.exchange(0, std::memory_order_seq_cst) == 0) detail::throw_not_held("MutexeeLock");
    if (!lot_.has_parked()) return;
    const WaitBudget& b = wait_budget();
    const std::uint32_t wait = mode() == Mode::spin ? b.mutexee_unlock_spins : b.mutexee_unlock_spins_min;
    for (std::uint32_t i = 0; i < wait; ++i) {
      cpu_relax();
      if (held_.load(std::memory_order_relaxed) != 0) return;  // handed over in user space
    }
    lot_.unpark_one();
  }

  Mode mode() const noexcept { return static_cast<Mode>(mode_.load(std::memory_order_relaxed)); }

 private:
  void lock_contended() {
    const WaitBudget& b = wait_budget();
    const bool in_ult = weft::this_ult::worker_index() >= 0;
    bool slept = false;
    auto blocked = [this] { return held_.load(std::memory_order_seq_cst) != 0; };
    for (;;) {
      if (in_ult) {
        weft::this_ult::yield();  // the holder may be a ULT of this worker
        if (try_lock()) return note_sleep(slept);
      }
      const std::uint32_t spins =
          in_ult ? b.ult_spins : (mode() == Mode::spin ? b.mutexee_lock_spins : b.mutexee_lock_spins_min);
      for (std::uint32_t i = 0; i < spins; ++i) {
        cpu_relax();
        if (try_lock()) return note_sleep(slept);
      }
      for (std::uint32_t i = in_ult ? b.ult_yields : 0; i > 0; --i) {
        weft::this_ult::yield();
        if (try_lock()) return note_sleep(slept);
      }
      if (fairness_timeout_.count() <= 0) {
        lot_.park_while(blocked);
      } else if (!lot_.park_while_until(blocked, std::chrono::steady_clock::now() + fairness_timeout_)) {
        // Slept past the fairness limit: spin (yielding) until we get it.
        while (!try_lock()) in_ult ? weft::this_ult::yield() : cpu_relax();
        return note_sleep(true);
      }
      slept = true;
      if (try_lock()) return note_sleep(true);  // woken: try before anything else
    }
  }
  // Holder only.
  void note_sleep(bool slept) noexcept { slept_acquisitions_ += slept ? 1 : 0; }
  void count_acquisition() noexcept {
    if (++acquisitions_ < kAdaptEvery) return;
    const double share = static_cast<double>(slept_acquisitions_) / acquisitions_;
    mode_.store(static_cast<std::uint8_t>(share > kMutexModeAbove ? Mode::mutex : Mode::spin),
                std::memory_order_relaxed);
    acquisitions_ = 0;
    slept_acquisitions_ = 0;
  }

  alignas(cache_line_size) std::atomic<std::uint32_t> held_{0};
  std::atomic<std::uint8_t> mode_{static_cast<std::uint8_t>(Mode::spin)};
  std::chrono::nanoseconds fairness_timeout_;
  std::uint32_t acquisitions_ = 0;        // holder only
  std::uint32_t slept_acquisitions_ = 0;  // holder only
  detail::ParkingLot lot_;
};

}  // namespace weft::sync
