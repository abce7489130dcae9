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
      double t0 = now_ns();
      for (long i = 0; i < count; ++i) sum += spawn([i] { return i; }).join();
      double t1 = now_ns();
      if (sum != count * (count - 1) / 2) throw std::runtime_error("weft create+join: wrong sum");
      return Measurement{t1 - t0, static_cast<double>(count)};
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

Measurement weft_wakeup(int samples, int idle_us) {
  Runtime rt(workers_config(1));
  rt.run([] {});
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
