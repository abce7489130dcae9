#pragma once
// Which runtime the parallel layer runs on. Inside a ULT: the caller's own
// runtime. On a plain thread: the most recently started live weft::Runtime,
// or, when none is alive, a process-wide default runtime started on first use
// and stopped at exit (as OpenMP and oneTBB behave), so parallel_for works
// from main() without any set-up.

#include <utility>

#include "weft/runtime/runtime.hpp"
#include "weft/runtime/this_ult.hpp"

namespace weft {

// The process-wide default runtime, started on first use from
// default_runtime_config() and destroyed at exit.
Runtime& default_runtime();

// The configuration default_runtime() starts with: Config{} with the WEFT_*
// and OpenMP environment variables applied (docs/parallel.md lists them).
// Throws std::invalid_argument naming the variable when one is malformed.
Config default_runtime_config();

namespace detail {

// The runtime a parallel construct called here uses (see the top of this file).
inline Runtime& runtime_for_parallel() {
  if (Runtime* rt = Runtime::current()) return *rt;
  return default_runtime();
}

// Runs f() on a ULT and returns its result (or rethrows what it threw):
// directly when the caller is a ULT, else as a ULT of runtime_for_parallel(),
// blocking the calling thread until it is done.
template <class F>
decltype(auto) run_on_ult(F&& f) {
  if (this_ult::inside()) return std::forward<F>(f)();
  return runtime_for_parallel().run(std::forward<F>(f));
}

}  // namespace detail
}  // namespace weft
