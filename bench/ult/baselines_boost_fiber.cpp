// Boost.Fiber baselines: yield, create+join, skynet. All run on the calling
// thread with Boost.Fiber's default scheduler (round_robin), which is set up
// lazily per thread and persists between calls.
//
// Stacks: yield and one-at-a-time create+join use Boost.Fiber's default stack
// allocator (what a user gets); the batch of 10^5 and skynet (1.1 M fibers)
// use stacks of kSmallStack bytes, as Boost's own skynet benchmarks use small
// stacks, so that 10^5..10^6 live fibers fit in memory: once from a fresh
// boost::fibers::fixedsize_stack (malloc per fiber, pages faulted in anew
// each run) and once from a process-wide pooled_fixedsize_stack that stays
// warm between runs. The row names say which.
#include <boost/fiber/all.hpp>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "baselines.hpp"

namespace weft::bench::ult {
namespace {

constexpr std::size_t kSmallStack = 16 * 1024;

}  // namespace

Measurement boost_fiber_yield(int fibers, long iterations) {
  double t0 = 0;
  long yields = 0;
  std::vector<boost::fibers::fiber> fs;
  fs.reserve(fibers);
  for (int i = 0; i < fibers; ++i) {
    fs.emplace_back([&, i] {
      // Warm-up yield: when fiber 0 comes back from it, every fiber has
      // started (round-robin), so the clock starts with all of them running.
      boost::this_fiber::yield();
      if (i == 0) t0 = now_ns();
      for (long k = 0; k < iterations; ++k) {
        ++yields;
        boost::this_fiber::yield();
      }
    });
  }
  for (auto& f : fs) f.join();
  const double t1 = now_ns();
  benchmark::DoNotOptimize(yields);
  check(yields, static_cast<long>(fibers) * iterations, "boost.fiber yield count");
  return {t1 - t0, static_cast<double>(yields)};
}

Measurement boost_fiber_create_join(long count) {
  long runs = 0;
  const double t0 = now_ns();
  for (long i = 0; i < count; ++i) {
    boost::fibers::fiber f([&runs] { ++runs; });
    f.join();
  }
  const double t1 = now_ns();
  benchmark::DoNotOptimize(runs);
  check(runs, count, "boost.fiber create+join count");
  return {t1 - t0, static_cast<double>(count)};
}

namespace {

// A pool of kSmallStack stacks that lives as long as the process: after the
// harness's warm-up run its stacks are already faulted in, like a runtime's
// per-worker stack pool (weft pools stacks too). Copies share the pool.
boost::fibers::pooled_fixedsize_stack& warm_pool() {
  static boost::fibers::pooled_fixedsize_stack pool(kSmallStack);
  return pool;
}

template <class StackAlloc>
Measurement batch(StackAlloc salloc, long count) {
  long runs = 0;
  std::vector<boost::fibers::fiber> fs;
  fs.reserve(count);  // outside the timed region
  const double t0 = now_ns();
  for (long i = 0; i < count; ++i)
    fs.emplace_back(std::allocator_arg, salloc, [&runs] { ++runs; });
  for (auto& f : fs) f.join();
  const double t1 = now_ns();
  fs.clear();
  benchmark::DoNotOptimize(runs);
  check(runs, count, "boost.fiber batch count");
  return {t1 - t0, static_cast<double>(count)};
}

}  // namespace

Measurement boost_fiber_create_join_batch(long count) {
  return batch(boost::fibers::fixedsize_stack(kSmallStack), count);
}
Measurement boost_fiber_create_join_batch_pooled(long count) { return batch(warm_pool(), count); }

Measurement boost_fiber_parked(long n) {
  boost::fibers::mutex m;
  boost::fibers::condition_variable cv;
  bool open = false;
  long arrived = 0, finished = 0;
  std::vector<boost::fibers::fiber> fs;
  fs.reserve(static_cast<std::size_t>(n));
  const double rss0 = resident_bytes();
  const double t0 = now_ns();
  for (long i = 0; i < n; ++i)
    fs.emplace_back(std::allocator_arg, boost::fibers::fixedsize_stack(kSmallStack), [&] {
      ++arrived;
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return open; });
      ++finished;
    });
  const double t1 = now_ns();
  while (arrived < n) boost::this_fiber::yield();
  boost::this_fiber::yield();  // the last ones reach their wait
  const double t2 = now_ns();
  const double rss1 = resident_bytes();
  {
    std::lock_guard lock(m);
    open = true;
  }
  cv.notify_all();
  for (auto& f : fs) f.join();
  const double t3 = now_ns();
  check(finished, n, "boost.fiber parked count");
  return {t3 - t0, static_cast<double>(n), parked_metrics(n, t0, t1, t2, t3, rss0, rss1)};
}

// ---- skynet, after Boost.Fiber's performance/fiber/skynet_join.cpp (itself
// after github.com/atemerev/skynet): each node starts `div` children with
// launch::dispatch, each child pushes its sum into the node's channel, the
// node joins them and pops `div` values.
namespace {

using channel_t = boost::fibers::buffered_channel<std::uint64_t>;

template <class StackAlloc>
void skynet(StackAlloc& salloc, channel_t& out, std::uint64_t num,
            std::uint64_t size, std::uint64_t div) {
  if (size == 1) {
    out.push(num);
    return;
  }
  channel_t rc{16};  // power of two; holds 15 >= div values, so pushes never block
  std::vector<boost::fibers::fiber> children;
  children.reserve(div);
  const std::uint64_t sub = size / div;
  for (std::uint64_t i = 0; i < div; ++i)
    children.emplace_back(boost::fibers::launch::dispatch, std::allocator_arg, salloc,
                          skynet<StackAlloc>,
                          std::ref(salloc), std::ref(rc), num + i * sub, sub, div);
  for (auto& c : children) c.join();
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < div; ++i) sum += rc.value_pop();
  out.push(sum);
}

}  // namespace

long skynet_fibers(long leaves, int width) {
  long total = 0, level = 1;
  while (level < leaves) {
    total += level;
    level *= width;
  }
  if (level != leaves) throw std::invalid_argument("skynet: leaves must be a power of width");
  return total + leaves;
}

namespace {

template <class StackAlloc>
Measurement skynet_run(StackAlloc salloc, long leaves, int width) {
  if (width < 2 || width >= 16) throw std::invalid_argument("skynet: width must be in [2, 15]");
  const long fibers = skynet_fibers(leaves, width);
  channel_t top{2};
  const double t0 = now_ns();
  boost::fibers::fiber root(std::allocator_arg, salloc, skynet<StackAlloc>, std::ref(salloc),
                            std::ref(top),
                            std::uint64_t{0}, static_cast<std::uint64_t>(leaves),
                            static_cast<std::uint64_t>(width));
  root.join();
  std::uint64_t sum = top.value_pop();
  const double t1 = now_ns();
  benchmark::DoNotOptimize(sum);
  const std::uint64_t expected =
      static_cast<std::uint64_t>(leaves) * static_cast<std::uint64_t>(leaves - 1) / 2;
  if (sum != expected)
    throw std::runtime_error("boost.fiber skynet: sum " + std::to_string(sum) + ", expected " +
                             std::to_string(expected));
  return {t1 - t0, static_cast<double>(fibers)};
}

}  // namespace

Measurement boost_fiber_skynet(long leaves, int width) {
  return skynet_run(boost::fibers::fixedsize_stack(kSmallStack), leaves, width);
}
Measurement boost_fiber_skynet_pooled(long leaves, int width) {
  return skynet_run(warm_pool(), leaves, width);
}

}  // namespace weft::bench::ult
