#pragma once
// WaitBudget: how long a waiter of weft/sync spins before it parks (a ULT) or
// sleeps on a futex (a plain thread), and the other waiting times the locks
// use, each derived from latencies measured on this machine once per process.
//
//   relax_ns          one cpu_relax() (PAUSE), timed
//   coherence_ns      the largest cache-line transfer latency between the
//                     CPUs in use: the topology's latency table (MCTOP-ALG's
//                     measurement, or hwloc's estimate), over the workers of
//                     the live weft::Runtime (else every allowed CPU)
//   backoff_quantum_ns  the educated backoff quantum (thesis §7.5, §7.7.1):
//                     sched::backoff_quantum over the same CPUs
//   thread_wake_ns    futex turnaround: from a wake call until the sleeping
//                     thread runs (thesis §5.4.3, Figure 5.6), timed with two
//                     threads
//
// and what the locks derive from them (counts of cpu_relax iterations):
//
//   thread_spins      a plain thread spins as long as sleeping and being woken
//                     would cost (competitive spinning, the ccNUMA study §3.2
//                     after Karlin et al.: a wait that ends within the budget
//                     costs the spin, a longer one at most twice the optimum)
//   ult_spins         a ULT spins for two line transfers (the release reaching
//                     it and its own acquiring RMW), the time a handoff from a
//                     running holder takes; anything longer is cheaper parked,
//                     since a park/unpark pair is a context switch and a queue
//                     push, and the worker runs other ULTs meanwhile
//   ult_yields        after its spins, a ULT yields (its worker runs its
//                     other ULTs) this many times before it parks: a parked
//                     ULT whose worker then falls asleep costs a worker
//                     wake-up, a futex turnaround, to resume, so the ULT
//                     yields for about that long (thread_wake_ns over
//                     kYieldRoundNs, a yield round that finds nothing else to
//                     run, ~100 ns on the development VM)
//   backoff_spins     one educated backoff quantum
//   mutexee_*         MUTEXEE's parameters (thesis §5.5.1, Table 5.1): in
//                     spin mode the lock spins a little longer than a futex
//                     turnaround (8000 cycles against >= 7000 on Ivy) and the
//                     unlock waits in user space for about the largest
//                     coherence latency (384 cycles on Ivy, whose largest is
//                     308); mutex mode keeps the thesis's proportions (256 and
//                     128 cycles)
//
// wait_budget() measures on first use (about 25 ms: 20 ms of it calibrate the
// timestamp counter); call it at start-up to keep that out of a critical
// path. set_wait_budget() replaces the figures (tests, tuning).

#include <atomic>
#include <cstdint>
#include <string>

#include "weft/runtime/this_ult.hpp"

namespace weft::sync {

struct WaitBudget {
  // Measured.
  double relax_ns = 0;
  double coherence_ns = 0;
  double backoff_quantum_ns = 0;
  double thread_wake_ns = 0;

  static constexpr double kYieldRoundNs = 100;

  // Derived (cpu_relax iterations or yields, each at least 1).
  std::uint32_t thread_spins = 1;
  std::uint32_t ult_spins = 1;
  std::uint32_t ult_yields = 1;
  std::uint32_t backoff_spins = 1;
  std::uint32_t mutexee_lock_spins = 1;         // spin mode, lock side
  std::uint32_t mutexee_unlock_spins = 1;       // spin mode, unlock side
  std::uint32_t mutexee_lock_spins_min = 1;     // mutex mode, lock side
  std::uint32_t mutexee_unlock_spins_min = 1;   // mutex mode, unlock side

  // The derived fields from the measured ones (formulas above). Throws
  // std::invalid_argument when a latency is not finite or not positive
  // (backoff_quantum_ns may be 0: a machine with one context).
  static WaitBudget derive(double relax_ns, double coherence_ns, double backoff_quantum_ns,
                           double thread_wake_ns);
  // Measures this machine now.
  static WaitBudget measure();

  // Spins for the calling waiter: ult_spins inside a ULT, thread_spins on a
  // plain thread.
  std::uint32_t spins_for_caller() const noexcept {
    return weft::this_ult::worker_index() >= 0 ? ult_spins : thread_spins;
  }

  // One line per figure, for benchmarks and diagnostics.
  std::string to_string() const;
};

namespace detail {
extern std::atomic<const WaitBudget*> g_wait_budget;
const WaitBudget& measure_wait_budget_once();
}  // namespace detail

// The process's figures: measured on first use, or what set_wait_budget installed.
inline const WaitBudget& wait_budget() {
  if (const WaitBudget* b = detail::g_wait_budget.load(std::memory_order_acquire)) return *b;
  return detail::measure_wait_budget_once();
}

// Installs other figures for every later wait (the previous ones stay valid
// for waits in progress). Thread-safe.
void set_wait_budget(const WaitBudget& budget);

}  // namespace weft::sync
