#pragma once
// How the parallel layer waits (internal): spin on a condition for a bounded
// time, yielding to the other ready ULTs of the worker as it goes (team
// members that share a worker make progress), then let the caller park.
// The bound is the runtime's Config::idle_spin_us, the time its idle workers
// spin before they sleep, which OMP_WAIT_POLICY sets for the default runtime
// (environment.hpp): a wait that ends within it never pays a park and a
// remote wake-up.

#include <chrono>
#include <cstdint>

#include "weft/runtime/this_ult.hpp"
#include "weft/sync/cpu.hpp"

namespace weft::detail {

// Config::idle_spin_us of the caller's runtime, in ns (0 outside a runtime).
std::int64_t wait_spin_ns();

// True as soon as ready() is; false once budget_ns have passed without it.
template <class Ready>
bool spin_until(Ready&& ready, std::int64_t budget_ns) {
  if (ready()) return true;
  if (budget_ns <= 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(budget_ns);
  for (unsigned round = 1;; ++round) {
    sync::cpu_relax();
    if (ready()) return true;
    if ((round & 3) == 0) {
      this_ult::yield();  // returns at once when nothing else is ready here
      if (ready()) return true;
      if ((round & 63) == 0 && std::chrono::steady_clock::now() >= deadline) return false;
    }
  }
}

}  // namespace weft::detail
