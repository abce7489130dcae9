// `weft-bench ult`: the cost of ULT operations in weft beside what a user
// would pick instead (Boost.Fiber, raw Boost.Context, oneTBB, OpenMP,
// std::thread), measured in the same run.
//
// weft's rows come from bench/ult/weft_ult.cpp (shapes in weft_ult.hpp).
// Keep the weft row first: the table reads top-down as "weft, then the rest".
#include "baselines.hpp"
#include "weft_ult.hpp"

#include <string>
#include <vector>

#include <weft/runtime/config.hpp>
#include <weft/sched/cpuset.hpp>

namespace weft::bench::ult {
namespace {

constexpr const char* kWeft = kReference;  // "weft"

// Sizes: full runs take a few minutes on 2 cores; --quick is for demos and CI.
struct Sizes {
  long yield2, yield64;     // yields per fiber
  long create, batch;       // fibers / tasks
  long thread_create, thread_batch;  // std::thread: far fewer (a thread costs ~10-50 us)
  int fib_n;
  long skynet_leaves;
  int wake_samples, wake_idle_us;
  std::vector<long> parked;  // ULTs parked at once
};

Sizes sizes(bool quick) {
  if (quick) return {100'000, 5'000, 10'000, 10'000, 300, 300, 25, 100'000, 40, 2000, {10'000}};
  return {1'000'000, 50'000, 100'000, 100'000, 2'000, 1'000, 30, 1'000'000, 200, 2000, {100'000, 1'000'000}};
}

// 1, 2, 4, ... up to every CPU this process may use (and that count itself):
// the scaling curve of the fork-join cases.
std::vector<int> worker_counts() {
  const int all = sched::default_worker_count();
  std::vector<int> counts;
  for (int w = 1; w < all; w *= 2) counts.push_back(w);
  counts.push_back(all);
  return counts;
}

std::vector<Case> ult_cases(const Options& o) {
  const Sizes s = sizes(o.quick);
  std::vector<Case> cases;
  const auto n = [](long v) { return std::to_string(v); };

  for (int fibers : {2, 64}) {
    const long it = fibers == 2 ? s.yield2 : s.yield64;
    Case c("yield/" + n(fibers) + "-fibers",
           n(fibers) + " fibers on one thread, each yields " + n(it) +
               " times round-robin (one switch per yield)",
           "ns/switch");
    c.add(kWeft, [=] { return weft_yield(fibers, it); });
    c.add("boost.fiber yield", [=] { return boost_fiber_yield(fibers, it); });
    c.add("boost.context fiber::resume", [=] { return boost_context_fiber_switch(fibers, it); });
    c.add("boost.context jump_fcontext", [=] { return boost_fcontext_switch(fibers, it); });
#if WEFT_BENCH_HAS_WEFT_SWITCH
    c.add("weft_jump_fcontext (raw)", [=] { return weft_fcontext_switch(fibers, it); });
#endif
    cases.push_back(std::move(c));
  }

  {
    const long k = s.create, kt = s.thread_create;
    Case c("create-join/one-at-a-time",
           "create one, join it, repeated: " + n(k) + " times (std::thread: " + n(kt) + ")",
           "ns/create+join");
    c.add(kWeft, [=] { return weft_create_join(k); });
    c.add("weft 2 workers", [=] { return weft_create_join_on(2, k); });
    c.add("boost.fiber", [=] { return boost_fiber_create_join(k); });
    c.add("tbb task_group 1 worker", [=] { return tbb_create_join(1, k); });
    c.add("tbb task_group 2 workers", [=] { return tbb_create_join(2, k); });
    c.add("std::thread", [=] { return std_thread_create_join(kt); });
    cases.push_back(std::move(c));
  }
  {
    const long k = s.batch, kt = s.thread_batch;
    Case c("create-join/batch",
           "create " + n(k) + " (std::thread: " + n(kt) + "), then join them all",
           "ns/create+join");
    c.add(kWeft, [=] { return weft_create_join_batch(k); });
    c.add("weft 2 workers", [=] { return weft_create_join_batch_on(2, k); });
    c.add("boost.fiber 16KiB stacks", [=] { return boost_fiber_create_join_batch(k); });
    c.add("boost.fiber 16KiB warm pool", [=] { return boost_fiber_create_join_batch_pooled(k); });
    c.add("tbb task_group 1 worker", [=] { return tbb_create_join_batch(1, k); });
    c.add("tbb task_group 2 workers", [=] { return tbb_create_join_batch(2, k); });
    c.add("std::thread", [=] { return std_thread_create_join_batch(kt); });
    cases.push_back(std::move(c));
  }

  for (int workers : worker_counts()) {
    const int fn = s.fib_n;
    Case c("fib/" + n(workers) + (workers == 1 ? "-worker" : "-workers"),
           "fib(" + n(fn) + "), a spawn per call, no cutoff: " + n(fib_tasks(fn)) + " tasks on " +
               n(workers) + (workers == 1 ? " worker" : " workers"),
           "ns/task");
    c.add(kWeft, [=] { return weft_fib(fn, workers); });
    c.add("tbb task_group", [=] { return tbb_fib(fn, workers); });
    c.add("openmp task", [=] { return openmp_fib(fn, workers); });
    cases.push_back(std::move(c));
  }

  {
    const long leaves = s.skynet_leaves;
    Case c("skynet",
           n(leaves) + " leaves, 10-ary tree of " + n(skynet_fibers(leaves, 10)) +
               " fibers on one thread, sum checked",
           "ns/fiber");
    c.add(kWeft, [=] { return weft_skynet(leaves, 10); });
    for (int workers : worker_counts())
      if (workers > 1)
        c.add("weft " + n(workers) + " workers", [=] { return weft_skynet_on(workers, leaves, 10); });
    c.add("boost.fiber 16KiB stacks", [=] { return boost_fiber_skynet(leaves, 10); });
    c.add("boost.fiber 16KiB warm pool", [=] { return boost_fiber_skynet_pooled(leaves, 10); });
    cases.push_back(std::move(c));
  }

  for (long parked : s.parked) {
    constexpr std::size_t kSmall = 16 * 1024;
    const bool huge = parked > 100'000;  // 10^6 default-size stacks would reserve 256 GiB
    Case c("parked/" + n(parked),
           n(parked) + " ULTs each park on one latch at once, then all are woken and joined; " +
               "16 KiB stacks" + (huge ? "" : " (and weft's default 256 KiB)"),
           "ns/ULT");
    c.add(kWeft, [=] { return weft_parked(1, parked, kSmall); });
    c.add("weft 2 workers", [=] { return weft_parked(2, parked, kSmall); });
    c.add("weft cold stacks", [=] { return weft_parked(1, parked, kSmall, true); });
    if (!huge) c.add("weft default stacks", [=] { return weft_parked(1, parked, Config{}.stack_size); });
    c.add("boost.fiber 16KiB stacks", [=] { return boost_fiber_parked(parked); });
    cases.push_back(std::move(c));
  }

  {
    const int k = s.wake_samples, idle = s.wake_idle_us;
    Case c("wakeup/sleeping-worker",
           "hand work to a worker asleep after " + n(idle) + " us idle; mean of " + n(k) +
               " hand-offs; weft: handed over from the worker's own CPU, 'weft, from another CPU': "
               "across CPUs; the baselines' threads are not pinned (the kernel picks the CPU)",
           "ns/wake-up");
    c.add(kWeft, [=] { return weft_wakeup(k, idle, Waker::workers_cpu); });
    if (sched::allowed_cpus().size() >= 2)
      c.add("weft, from another CPU", [=] { return weft_wakeup(k, idle, Waker::other_cpu); });
    c.add("std::condition_variable", [=] { return std_cv_wakeup(k, idle); });
    c.add("tbb arena enqueue", [=] { return tbb_wakeup(k, idle); });
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace

WEFT_BENCH_SUITE("ult",
                 "ULT operations: yield, create+join, fib tasks, skynet, wake-up; "
                 "vs Boost.Fiber/Context, oneTBB, OpenMP, std::thread",
                 ult_cases);

}  // namespace weft::bench::ult
