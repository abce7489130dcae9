// Baselines of the `weft-bench ult` suite: what a user would pick instead of
// weft's ULTs, each a plain function that runs one measurement and returns
// the wall time of the measured region and the number of operations in it
// (weft::bench::Measurement; the harness reports total_ns / ops).
// Every function verifies its result and throws std::runtime_error when it
// is wrong (fib value, skynet sum, counts), so a broken baseline shows as
// FAILED rather than as a fast number.
//
// weft's own rows have the same shapes and live in weft_ult.hpp/.cpp.
#pragma once

#include <benchmark/benchmark.h>  // DoNotOptimize, ClobberMemory
#include <boost/context/detail/fcontext.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "../harness.hpp"

namespace weft::bench::ult {

// Throws std::runtime_error "<what>: got X, expected Y" unless got == expected.
inline void check(long got, long expected, const char* what) {
  if (got != expected)
    throw std::runtime_error(std::string(what) + ": got " + std::to_string(got) + ", expected " +
                             std::to_string(expected));
}

// ---- yield: `fibers` fibers on the calling thread, each yields `iterations`
// times; round-robin, so each yield is one switch to the next fiber.
// ops = fibers * iterations (switches).
Measurement boost_fiber_yield(int fibers, long iterations);   // boost::this_fiber::yield, round_robin
// Raw Boost.Context: a ring of `fibers` contexts, each switches to the next
// `iterations` times (fibers == 2 is a ping-pong). ops = switches.
Measurement boost_fcontext_switch(int fibers, long iterations);  // detail::jump_fcontext
#if defined(__x86_64__) && defined(__ELF__)
#define WEFT_BENCH_HAS_WEFT_SWITCH 1
// weft's ret-ended copy of jump_fcontext (runtime/src/context_switch_x86_64.S;
// internal to the runtime library, declared here for its raw-switch row).
extern "C" boost::context::detail::transfer_t weft_jump_fcontext(boost::context::detail::fcontext_t, void*);
Measurement weft_fcontext_switch(int fibers, long iterations);
#else
#define WEFT_BENCH_HAS_WEFT_SWITCH 0
#endif
Measurement boost_context_fiber_switch(int fibers, long iterations);  // context::fiber::resume

// ---- create + join. `one at a time`: create one, join it, `count` times;
// ops = count. `batch`: create `count`, then join all; ops = count.
// The function bodies are empty apart from a counter that is checked.
Measurement boost_fiber_create_join(long count);
Measurement boost_fiber_create_join_batch(long count);         // fresh fixedsize_stack(16 KiB)
Measurement boost_fiber_create_join_batch_pooled(long count);  // warm pooled_fixedsize_stack(16 KiB)
Measurement tbb_create_join(int workers, long count);        // task_group run + wait
Measurement tbb_create_join_batch(int workers, long count);  // run x count, one wait
Measurement std_thread_create_join(long count);
Measurement std_thread_create_join_batch(long count);

// ---- fib(n), a spawn per call with n >= 2 (fork fib(n-1), call fib(n-2),
// join), no cutoff; `workers` threads. ops = tasks = fib(n+1) - 1.
long fib_tasks(int n);   // number of spawning calls of fib(n)
long fib_value(int n);   // fib(n), computed serially, for verification
Measurement tbb_fib(int n, int workers);     // task_group per call, in task_arena(workers)
Measurement openmp_fib(int n, int workers);  // #pragma omp task per call + taskwait

// ---- skynet: `leaves` leaves in a `width`-ary tree of fibers, each leaf
// returns its number, each node sums its children; checks the sum is
// leaves*(leaves-1)/2. ops = all fibers created (nodes + leaves).
long skynet_fibers(long leaves, int width);
// buffered_channel per node + join; fresh fixedsize_stack / warm pooled stacks (16 KiB)
Measurement boost_fiber_skynet(long leaves, int width);
Measurement boost_fiber_skynet_pooled(long leaves, int width);

// ---- parked: `n` fibers (16 KiB stacks) each wait on one condition at once,
// then all are woken and joined (the shape of weft_parked; same metrics).
Measurement boost_fiber_parked(long n);

// The phases and memory of a parked-ULTs run, as extra metrics (shared by
// weft's row and the baselines): t0 spawn starts, t1 all spawned, t2 all
// parked (resident bytes rss0 before, rss1 then), t3 all joined.
inline std::vector<Metric> parked_metrics(long n, double t0, double t1, double t2, double t3, double rss0,
                                          double rss1) {
  const double k = static_cast<double>(n);
  return {{"spawn", "ns/ULT", (t1 - t0) / k},
          {"start+park", "ns/ULT", (t2 - t1) / k},
          {"wake+join", "ns/ULT", (t3 - t2) / k},
          {"rss", "KiB/ULT", (rss1 - rss0) / k / 1024}};
}

// ---- wake-up latency of a sleeping worker: a worker that has gone to sleep
// in the kernel (idle for `idle_us` microseconds) is handed work; the time
// from the hand-off to the work starting, over `samples` wake-ups.
// total_ns = sum of the `samples` latencies, ops = samples, so ns/op is the
// mean latency of one repetition (the harness's median is over repetitions).
Measurement std_cv_wakeup(int samples, int idle_us);  // std::condition_variable notify_one
Measurement tbb_wakeup(int samples, int idle_us);     // task_arena::enqueue to an idle arena

}  // namespace weft::bench::ult
