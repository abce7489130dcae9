// oneTBB baselines: task_group create+join, fib with a task per call, and
// the wake-up latency of a sleeping TBB worker. TBB tasks are stackless
// (they run to completion on the stack of whichever thread picks them up),
// so they are the "no stack to create" reference for weft's ULT spawn.
// The worker count is fixed with tbb::task_arena(n): n == 1 means the calling
// thread alone (TBB reserves one slot for it), n == 2 adds one TBB worker.
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "baselines.hpp"

namespace weft::bench::ult {
namespace {

long tbb_fib_rec(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  tbb::task_group g;
  g.run([&a, n] { a = tbb_fib_rec(n - 1); });
  b = tbb_fib_rec(n - 2);
  g.wait();
  return a + b;
}

}  // namespace

long fib_value(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    long c = a + b;
    a = b;
    b = c;
  }
  return a;
}

long fib_tasks(int n) { return n < 2 ? 0 : fib_value(n + 1) - 1; }

Measurement tbb_create_join(int workers, long count) {
  tbb::task_arena arena(workers);
  std::atomic<long> runs{0};
  double t0 = 0, t1 = 0, cpu0 = 0, cpu1 = 0;
  arena.execute([&] {
    tbb::task_group tg;
    cpu0 = process_cpu_ns();
    t0 = now_ns();
    for (long i = 0; i < count; ++i) {
      tg.run([&runs] { runs.fetch_add(1, std::memory_order_relaxed); });
      tg.wait();
    }
    t1 = now_ns();
    cpu1 = process_cpu_ns();
  });
  check(runs.load(), count, "tbb create+join count");
  return {t1 - t0, static_cast<double>(count), {cpus_used(cpu1 - cpu0, t1 - t0)}};
}

Measurement tbb_create_join_batch(int workers, long count) {
  tbb::task_arena arena(workers);
  std::atomic<long> runs{0};
  double t0 = 0, t1 = 0;
  arena.execute([&] {
    tbb::task_group tg;
    t0 = now_ns();
    for (long i = 0; i < count; ++i)
      tg.run([&runs] { runs.fetch_add(1, std::memory_order_relaxed); });
    tg.wait();
    t1 = now_ns();
  });
  check(runs.load(), count, "tbb batch count");
  return {t1 - t0, static_cast<double>(count)};
}

Measurement tbb_fib(int n, int workers) {
  tbb::task_arena arena(workers);
  long r = 0;
  double t0 = 0, t1 = 0;
  arena.execute([&] {
    t0 = now_ns();
    r = tbb_fib_rec(n);
    t1 = now_ns();
  });
  benchmark::DoNotOptimize(r);
  check(r, fib_value(n), "tbb fib value");
  return {t1 - t0, static_cast<double>(fib_tasks(n))};
}

Measurement tbb_wakeup(int samples, int idle_us) {
  // One TBB worker and no slot for the caller: enqueued work must be run by
  // the worker, which has gone to sleep after idling `idle_us`.
  tbb::task_arena arena(1, 0);
  std::atomic<long> done{0};
  std::atomic<double> started{0};
  double sum = 0;
  for (int s = 0; s < samples; ++s) {
    std::this_thread::sleep_for(std::chrono::microseconds(idle_us));
    const double t0 = now_ns();
    arena.enqueue([&] {
      started.store(now_ns(), std::memory_order_relaxed);
      done.fetch_add(1, std::memory_order_release);
    });
    while (done.load(std::memory_order_acquire) != s + 1) std::this_thread::yield();
    sum += started.load(std::memory_order_relaxed) - t0;
  }
  check(done.load(), samples, "tbb wake-up count");
  return {sum, static_cast<double>(samples)};
}

}  // namespace weft::bench::ult
