// weft's side of `weft-bench ult` (shapes in weft_ult.hpp). Each function
// starts its own Runtime outside the measured region.

#include "weft_ult.hpp"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "baselines.hpp"
#include <weft/runtime.hpp>
#include <weft/sched/cpuset.hpp>

namespace weft::bench::ult {

namespace {

Config workers_config(int workers) {
  Config c;
  c.workers = workers;
  return c;
}

long weft_fib_rec(int n) {
  if (n < 2) return n;
  auto child = weft::spawn([n] { return weft_fib_rec(n - 1); });
  long b = weft_fib_rec(n - 2);
  return child.join() + b;
}

long skynet(long num, long size, int width) {
  if (size == 1) return num;
  std::vector<Ult<long>> children;
  children.reserve(static_cast<std::size_t>(width));
  const long sub = size / width;
  for (int i = 0; i < width; ++i)
    children.push_back(weft::spawn([=] { return skynet(num + i * sub, sub, width); }));
  long sum = 0;
  for (auto& c : children) sum += c.join();
  return sum;
}

}  // namespace

Measurement weft_yield(int fibers, long iterations) {
  Runtime rt(workers_config(1));
  return rt.run([&] {
    std::vector<Ult<void>> ults;
    ults.reserve(static_cast<std::size_t>(fibers));
    double t0 = now_ns();
    for (int f = 0; f < fibers; ++f)
      ults.push_back(spawn_on(0, [iterations] {
        for (long i = 0; i < iterations; ++i) this_ult::yield();
      }));
    for (auto& u : ults) u.join();
    double t1 = now_ns();
    return Measurement{t1 - t0, static_cast<double>(fibers) * static_cast<double>(iterations)};
  });
}

Measurement weft_create_join_on(int workers, long count) {
  Runtime rt(workers_config(workers));
  return rt.spawn_on(0, [&] {
      long sum = 0;
      const double cpu0 = process_cpu_ns(), t0 = now_ns();
      for (long i = 0; i < count; ++i) sum += spawn([i] { return i; }).join();
      const double t1 = now_ns(), cpu1 = process_cpu_ns();
      if (sum != count * (count - 1) / 2) throw std::runtime_error("weft create+join: wrong sum");
      return Measurement{t1 - t0, static_cast<double>(count), {cpus_used(cpu1 - cpu0, t1 - t0)}};
    }).join();
}

Measurement weft_create_join(long count) { return weft_create_join_on(1, count); }

Measurement weft_create_join_batch_on(int workers, long count) {
  Runtime rt(workers_config(workers));
  return rt.spawn_on(0, [&] {
      std::vector<Ult<long>> ults;
      ults.reserve(static_cast<std::size_t>(count));
      double t0 = now_ns();
      for (long i = 0; i < count; ++i) ults.push_back(spawn([i] { return i; }));
      long sum = 0;
      for (auto& u : ults) sum += u.join();
      double t1 = now_ns();
      if (sum != count * (count - 1) / 2) throw std::runtime_error("weft batch: wrong sum");
      return Measurement{t1 - t0, static_cast<double>(count)};
    }).join();
}

Measurement weft_create_join_batch(long count) { return weft_create_join_batch_on(1, count); }

Measurement weft_fib(int n, int workers) {
  Runtime rt(workers_config(workers));
  double t0 = now_ns();
  long v = rt.run([n] { return weft_fib_rec(n); });
  double t1 = now_ns();
  if (v != fib_value(n)) throw std::runtime_error("weft fib: wrong value");
  return Measurement{t1 - t0, static_cast<double>(fib_tasks(n))};
}

Measurement weft_skynet_on(int workers, long leaves, int width) {
  Runtime rt(workers_config(workers));
  double t0 = now_ns();
  long sum = rt.run([=] { return skynet(0, leaves, width); });
  double t1 = now_ns();
  if (sum != leaves * (leaves - 1) / 2) throw std::runtime_error("weft skynet: wrong sum");
  return Measurement{t1 - t0, static_cast<double>(skynet_fibers(leaves, width))};
}

Measurement weft_skynet(long leaves, int width) { return weft_skynet_on(1, leaves, width); }

Measurement weft_parked(int workers, long n, std::size_t stack_size, bool cold) {
  Config c = workers_config(workers);
  c.stack_size = stack_size;
  if (cold) release_unused_stacks();
  Runtime rt(c);
  return rt.spawn_on(0, [&] {
      Latch gate(1);
      std::atomic<long> arrived{0}, finished{0};
      std::vector<Ult<void>> ults;
      ults.reserve(static_cast<std::size_t>(n));
      const double rss0 = resident_bytes();
      const double t0 = now_ns();
      for (long i = 0; i < n; ++i)
        ults.push_back(spawn([&] {
          arrived.fetch_add(1, std::memory_order_relaxed);
          gate.wait();
          finished.fetch_add(1, std::memory_order_relaxed);
        }));
      const double t1 = now_ns();
      while (arrived.load(std::memory_order_acquire) < n) this_ult::yield();
      this_ult::yield();  // the last ones reach their wait
      const double t2 = now_ns();
      const double rss1 = resident_bytes();
      gate.count_down();
      for (auto& u : ults) u.join();
      const double t3 = now_ns();
      check(finished.load(), n, "weft parked count");
      return Measurement{t3 - t0, static_cast<double>(n), parked_metrics(n, t0, t1, t2, t3, rss0, rss1)};
    }).join();
}

Measurement weft_wakeup(int samples, int idle_us, Waker waker) {
  Runtime rt(workers_config(1));
  rt.run([] {});
  sched::AffinityGuard restore_affinity;
  if (const int worker_cpu = rt.worker_cpus()[0]; worker_cpu >= 0) {
    int cpu = worker_cpu;
    if (waker == Waker::other_cpu) {
      for (int c : sched::allowed_cpus())
        if (c != worker_cpu) cpu = c;
      if (cpu == worker_cpu) throw std::runtime_error("weft wake-up: no CPU other than the worker's");
    }
    sched::pin_current_thread(cpu);
  }
  double total = 0;
  for (int s = 0; s < samples; ++s) {
    std::this_thread::sleep_for(std::chrono::microseconds(idle_us));  // the worker falls asleep
    std::atomic<double> started{0};
    double t0 = now_ns();
    rt.spawn_on(0, [&] { started.store(now_ns()); }).join();
    total += started.load() - t0;
  }
  return Measurement{total, static_cast<double>(samples)};
}

}  // namespace weft::bench::ult
