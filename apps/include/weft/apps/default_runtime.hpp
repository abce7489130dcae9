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

// The configuration default_runtime() starts with: Config{} sized by
// OMP_NUM_THREADS (more threads than allowed CPUs: workers not pinned), with
// idle_spin_us from WEFT_WAIT_POLICY / OMP_WAIT_POLICY (environment.hpp), then
// every WEFT_* variable on top (Config::from_env: WEFT_WORKERS wins over
// OMP_NUM_THREADS, WEFT_IDLE_SPIN_US over the wait policy). docs/parallel.md
// lists them. Throws std::invalid_argument (weft::sched::OmpEnvError for the
// OMP_* ones) naming the variable when one is malformed.
Config default_runtime_config();

namespace detail {

// A plain thread about to block until done() first spins, for the runtime's
// idle spin at most, giving its CPU away (sched_yield) as it goes, when the
// runtime leaves a CPU free for it: a join that sleeps at once pays a futex
// wake-up, and the thread, woken onto the CPU of a worker that is still
// spinning idle, waits for that spin to end (tens of microseconds here).
// With a worker on every CPU it returns at once (spinning would take a CPU
// from the construct's own members).
void wait_briefly_for(Runtime& rt, bool (*done)(const void*), const void* state);
template <class Done>
void wait_briefly_for(Runtime& rt, const Done& done) {
  wait_briefly_for(rt, [](const void* d) { return (*static_cast<const Done*>(d))(); }, &done);
}

// The runtime a parallel construct called here uses (see the top of this file).
inline Runtime& runtime_for_parallel() {
  if (Runtime* rt = Runtime::current()) return *rt;
  return default_runtime();
}

// Runs f() on a ULT and returns its result (or rethrows what it threw):
// directly when the caller is a ULT, else as a ULT on worker 0 of
// runtime_for_parallel() (OpenMP's initial thread: a team started from a
// plain thread has its member 0 on worker 0 every time, so its members keep
// their workers from one region to the next), blocking the calling thread
// until it is done.
template <class F>
decltype(auto) run_on_ult(F&& f) {
  if (this_ult::inside()) return std::forward<F>(f)();
  Runtime& rt = runtime_for_parallel();
  auto ult = rt.spawn_on(0, std::forward<F>(f));
  wait_briefly_for(rt, [&] { return ult.done(); });
  return ult.join();
}

}  // namespace detail
}  // namespace weft
