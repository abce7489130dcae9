#pragma once
// How the library waits (internal): spin on a condition for the runtime's
// idle spin (OMP_WAIT_POLICY), yielding to the other ready ULTs of the
// worker as it goes (team members sharing a worker, and the tasks a waiting
// member created, run meanwhile), then park on a key of the parking lot until
// a notifier of that key wakes it.
//
// A waiter whose CPU another of the library's threads last waited on (the
// thread it waits for may be the one kept off the CPU by this spin:
// waiter_cpus.hpp) does not spin beside it: a worker moves itself to another
// CPU, a plain thread gives its CPU up (sched_yield) every few pauses. A
// waiter alone on its CPU never enters the kernel while it spins.
//
// Every switch away from a ULT happens inside these two functions, so they
// restore the calling ULT's OpenMP context (context.hpp) before returning:
// the ULTs that ran on this worker meanwhile set their own.

#include <sched.h>

#include <chrono>
#include <cstdint>

#include "context.hpp"
#include "countdown.hpp"
#include "omp_runtime.hpp"
#include "parking_lot.hpp"
#include "waiter_cpus.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/sched/cpu.hpp"

namespace weft::omp {

// Yields of a CPU shared with another of the library's threads before the
// waiter parks instead.
inline constexpr int kSharedCpuYields = 16;
// After spinning this long in vain, a waiter believes old notes too (a
// partner kept off the CPU, e.g. behind this spin, cannot renew its note).
inline constexpr std::chrono::microseconds kTrustOldNotesAfter{50};

// True as soon as ready() is; false once budget_ns have passed without it.
template <class Ready>
bool spin_until(const Ready& ready, std::int64_t budget_ns) {
  if (ready()) return true;
  const bool ult = this_ult::inside();
  ContextGuard keep;
  if (ult) {
    // Another ULT of this worker first (a task this one waits for is often
    // among them); returns at once when none is ready.
    this_ult::yield();
    if (ready()) return true;
  }
  if (budget_ns <= 0) return false;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::nanoseconds(budget_ns);
  int cpu = note_waiting_cpu();
  bool shared_cpu = cpu_shared_with_another(cpu);
  int os_yields = 0;
  for (unsigned round = 1;; ++round) {
    sched::cpu_relax();
    if (ready()) return true;
    if ((round & 7) == 0) {
      if (ult) {
        this_ult::yield();
        if (ready()) return true;
      }
      if ((round & 127) == 0) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return false;
        cpu = note_waiting_cpu();
        shared_cpu = cpu_shared_with_another(cpu, now - start >= kTrustOldNotesAfter);
      }
      if (shared_cpu) {
        if (leave_shared_cpu(cpu)) {
          cpu = note_waiting_cpu();
          shared_cpu = cpu_shared_with_another(cpu);
        } else {
          // The kernel may run this thread again at once (CFS lets a yielder
          // that has had less CPU time go on): after a few yields in vain,
          // park, which lets the partner run for certain.
          if (++os_yields > kSharedCpuYields) return false;
          sched_yield();
        }
        if (ready()) return true;
      }
    }
  }
}

// Waits until ready(): spins (spin_until, the runtime's budget), then parks
// on `key`. Whoever makes ready() true must call unpark_all(key) after.
template <class Ready>
void wait_until(const void* key, const Ready& ready) {
  if (spin_until(ready, spin_ns())) return;
  ContextGuard keep;
  while (!ready()) park_while(key, [&] { return !ready(); });
}

// Waits until `c` reaches zero.
inline void wait_for(const Countdown& c) {
  wait_until(c.key(), [&c] { return c.done(); });
}

}  // namespace weft::omp
