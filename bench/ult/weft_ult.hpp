// weft's side of the `weft-bench ult` suite: the same shapes as the baselines
// in baselines.hpp (each returns the measured region's wall time and its
// operation count; each verifies its result and throws if it is wrong).
// Defined in bench/ult/weft_ult.cpp.
#pragma once

#include <cstddef>

#include "../harness.hpp"

namespace weft::bench::ult {

// `fibers` ULTs on one worker, each this_ult::yield()s `iterations` times;
// ops = fibers * iterations.
Measurement weft_yield(int fibers, long iterations);
// spawn one ULT, join it, `count` times; ops = count.
Measurement weft_create_join(long count);
// spawn `count` ULTs, then join them all; ops = count.
Measurement weft_create_join_batch(long count);
// fib(n), a spawn per call with n >= 2, no cutoff, on `workers` workers;
// must check the value against fib_value(n); ops = fib_tasks(n).
Measurement weft_fib(int n, int workers);
// skynet over `leaves` leaves, `width`-ary; must check the sum
// leaves*(leaves-1)/2; ops = skynet_fibers(leaves, width).
Measurement weft_skynet(long leaves, int width);
// Where the thread that hands a sleeping worker its work runs (weft_wakeup).
// A wake-up from another CPU is an interrupt to that CPU, which in a VM whose
// vCPU is halted costs tens of microseconds (bench/results/ult-2core.md).
enum class Waker { workers_cpu, other_cpu };
// A worker idle (asleep) for `idle_us` is handed a ULT `samples` times by
// the calling thread, pinned for it to the worker's CPU or to another one
// (not pinned when the worker is not); total_ns = sum of hand-off-to-start
// latencies, ops = samples.
Measurement weft_wakeup(int samples, int idle_us, Waker waker);

// `n` ULTs (stacks of `stack_size` bytes) each park on one Latch at once,
// then all are woken and joined, on `workers` workers; ops = n. Extra
// metrics: the phases (spawn, start+park, wake+finish+join, ns/ULT) and the
// resident memory each parked ULT adds (KiB/ULT). cold: the process's cached
// stacks give their memory back first (weft::release_unused_stacks), so every
// stack page is faulted in anew, as in a fresh process.
Measurement weft_parked(int workers, long n, std::size_t stack_size, bool cold = false);

// The same on `workers` workers (the ULTs are stealable).
Measurement weft_create_join_on(int workers, long count);
Measurement weft_create_join_batch_on(int workers, long count);
Measurement weft_skynet_on(int workers, long leaves, int width);

}  // namespace weft::bench::ult
