// See common.hpp.
#include "common.hpp"

#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <weft/runtime.hpp>

namespace weft::bench::combining {

const std::vector<int>& bench_cpus() {
  static const std::vector<int> cpus = [] {
    Runtime rt;  // default Config + WEFT_* overrides: what a user gets
    std::vector<int> c = rt.worker_cpus();
    if (c.empty()) c.push_back(-1);
    return c;
  }();
  return cpus;
}

void Gate::arrive_and_wait() {
  ready_.fetch_add(1, std::memory_order_acq_rel);
  while (!go_.load(std::memory_order_acquire)) weft::this_ult::yield();
}

void Gate::finish(long ops) {
  const auto t = static_cast<std::int64_t>(now_ns());
  std::int64_t cur = end_.load(std::memory_order_relaxed);
  while (cur < t && !end_.compare_exchange_weak(cur, t, std::memory_order_acq_rel)) {
  }
  ops_.fetch_add(ops, std::memory_order_acq_rel);
  if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
    std::lock_guard lk(m_);
    cv_.notify_all();
  }
}

double Gate::open() {
  while (ready_.load(std::memory_order_acquire) < n_)
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  const double t0 = now_ns();
  go_.store(true, std::memory_order_release);
  return t0;
}

void Gate::supervise(double t0) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::nanoseconds(static_cast<std::int64_t>(t0 + kRunCapNs - now_ns()));
  std::unique_lock lk(m_);
  if (!cv_.wait_until(lk, deadline, [&] { return done_.load(std::memory_order_acquire) == n_; })) {
    stop_.store(true, std::memory_order_relaxed);
    cv_.wait(lk, [&] { return done_.load(std::memory_order_acquire) == n_; });
  }
}

Timed run_ults(int workers, int per_worker, const Body& body) {
  Config cfg;
  cfg.workers = workers;
  cfg.stack_size = 64 * 1024;
  Runtime rt(cfg);
  Gate gate(workers * per_worker);
  std::vector<Ult<void>> ults;
  ults.reserve(static_cast<std::size_t>(workers) * static_cast<std::size_t>(per_worker));
  for (int w = 0; w < workers; ++w)
    for (int j = 0; j < per_worker; ++j) {
      const int tid = w * per_worker + j;
      ults.push_back(rt.spawn_on(w, [&body, &gate, tid] { body(tid, gate); }));
    }
  const WorkerStats before = rt.stats().total();
  const double t0 = gate.open();
  gate.supervise(t0);
  const WorkerStats after = rt.stats().total();
  for (auto& u : ults) u.join();
  return {gate.end_ns() - t0, gate.ops(), static_cast<double>(after.switches - before.switches),
          static_cast<double>(after.yields - before.yields)};
}

namespace {
void pin_to(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}
}  // namespace

Timed run_threads(int ncpus, int per_cpu, const Body& body) {
  const auto& cpus = bench_cpus();
  Gate gate(ncpus * per_cpu);
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(ncpus) * static_cast<std::size_t>(per_cpu));
  for (int c = 0; c < ncpus; ++c)
    for (int j = 0; j < per_cpu; ++j) {
      const int tid = c * per_cpu + j;
      const int cpu = cpus[static_cast<std::size_t>(c) % cpus.size()];
      threads.emplace_back([&body, &gate, tid, cpu] {
        pin_to(cpu);
        body(tid, gate);
      });
    }
  const double t0 = gate.open();
  gate.supervise(t0);
  for (auto& t : threads) t.join();
  return {gate.end_ns() - t0, gate.ops()};
}

void run_pinned(const std::function<void()>& fn) {
  const int cpu = bench_cpus()[0];
  std::thread t([&] {
    pin_to(cpu);
    fn();
  });
  t.join();
}

struct Watchdog::State {
  std::string row;
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread t;
};

Watchdog::Watchdog(std::string row, int seconds) : s_(std::make_unique<State>()) {
  s_->row = std::move(row);
  State* s = s_.get();
  s_->t = std::thread([s, seconds] {
    std::unique_lock lk(s->m);
    if (!s->cv.wait_for(lk, std::chrono::seconds(seconds), [s] { return s->done; })) {
      std::fprintf(stderr,
                   "\nweft-bench combining: %s did not finish within %d s (a hang, or a livelock "
                   "in the algorithm?); aborting\n",
                   s->row.c_str(), seconds);
      std::fflush(stdout);
      std::abort();
    }
  });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lk(s_->m);
    s_->done = true;
  }
  s_->cv.notify_one();
  s_->t.join();
}

void fail(const std::string& what) { throw std::runtime_error(what); }

void add_switch_profile(Measurement& m, const Timed& run, double ops) {
  if (std::isnan(run.switches)) return;
  m.extra.push_back({"sw/op", "switches/op", run.switches / ops});
  m.extra.push_back({"yld/op", "yields/op", run.yields / ops});
}

Measurement with_throughput(double ns, double ops, const char* name) {
  Measurement m{ns, ops};
  m.extra.push_back({name, name, ns > 0 ? 1000.0 * ops / ns : NAN, true});
  return m;
}

}  // namespace weft::bench::combining
