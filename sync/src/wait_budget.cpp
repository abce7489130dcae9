// Measuring the waiting budgets of weft/sync (weft/sync/locks/wait_budget.hpp).
#include "weft/sync/locks/wait_budget.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "weft/runtime/runtime.hpp"
#include "weft/sched/cpu.hpp"
#include "weft/sched/latency_probe.hpp"
#include "weft/sched/placement.hpp"
#include "weft/sched/topology.hpp"

namespace weft::sync {

namespace detail {
std::atomic<const WaitBudget*> g_wait_budget{nullptr};
}  // namespace detail

namespace {

using Clock = std::chrono::steady_clock;

double ns_since(Clock::time_point t0) { return std::chrono::duration<double, std::nano>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One cpu_relax(): the median of 9 timings of 2000.
double measure_relax_ns() {
  std::vector<double> per;
  for (int round = 0; round < 9; ++round) {
    const auto t0 = Clock::now();
    for (int i = 0; i < 2000; ++i) sched::cpu_relax();
    per.push_back(ns_since(t0) / 2000.0);
  }
  return std::max(median(std::move(per)), 0.1);
}

// Futex turnaround (thesis §5.4.3, Figure 5.6): a thread sleeps on a word
// (std::atomic::wait, a futex on Linux); 50 us later, long after it fell
// asleep, the other stamps the time, stores and wakes it; the sleeper stamps
// when it runs again. The lower quartile of 15 rounds.
double measure_thread_wake_ns() {
  std::atomic<std::uint32_t> word{0};
  std::atomic<int> asleep{0};
  std::atomic<std::int64_t> woke_at{0};
  constexpr int kRounds = 15;
  std::vector<double> samples;
  std::thread sleeper([&] {
    for (std::uint32_t r = 1; r <= kRounds; ++r) {
      asleep.store(static_cast<int>(r), std::memory_order_release);
      word.wait(r - 1, std::memory_order_acquire);
      woke_at.store(Clock::now().time_since_epoch().count(), std::memory_order_release);
    }
  });
  for (std::uint32_t r = 1; r <= kRounds; ++r) {
    while (asleep.load(std::memory_order_acquire) != static_cast<int>(r)) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    woke_at.store(0, std::memory_order_relaxed);
    const std::int64_t t0 = Clock::now().time_since_epoch().count();
    word.store(r, std::memory_order_release);
    word.notify_one();
    std::int64_t t1;
    while ((t1 = woke_at.load(std::memory_order_acquire)) == 0) std::this_thread::yield();
    samples.push_back(std::chrono::duration<double, std::nano>(Clock::duration(t1 - t0)).count());
  }
  sleeper.join();
  // The lower quartile: on a loaded machine most rounds also measure the
  // wait for a free CPU, which is not the futex's cost (the median was 1 ms
  // on the 2-core VM while other builds ran, and every thread then spun
  // 1 ms before sleeping). Below 1 us the sleeper had not yet slept (it spun
  // in std::atomic::wait); 100 us bounds what a busy machine can still
  // inflate.
  std::sort(samples.begin(), samples.end());
  return std::clamp(samples[samples.size() / 4], 1000.0, 100000.0);
}

// The largest transfer latency and the backoff quantum (cycles) over the
// CPUs of the live runtime's workers, or over every CPU of this machine.
struct TopologyLatencies {
  double coherence_cycles = sched::Topology::kSameSocket;
  double quantum_cycles = sched::Topology::kSameSocket;
};

TopologyLatencies topology_latencies() {
  auto over = [](const sched::Topology& topo, const std::vector<int>& cpus) {
    std::vector<int> ctxs;
    for (int cpu : cpus)
      if (int c = cpu < 0 ? -1 : topo.context_of_os_cpu(cpu); c >= 0) ctxs.push_back(c);
    if (ctxs.size() < 2) {  // unpinned workers or one CPU: all contexts
      ctxs.clear();
      for (int c = 0; c < topo.num_contexts(); ++c) ctxs.push_back(c);
    }
    TopologyLatencies t;
    const double max = topo.max_latency(ctxs);
    const double quantum = sched::backoff_quantum(topo, ctxs);
    if (max > 0) t.coherence_cycles = max;
    if (quantum > 0) t.quantum_cycles = quantum;
    return t;
  };
  try {
    if (Runtime* rt = Runtime::current()) return over(rt->topology(), rt->worker_cpus());
    const sched::Topology topo = sched::Topology::discover();
    std::vector<int> cpus;
    for (int c = 0; c < topo.num_contexts(); ++c) cpus.push_back(topo.os_cpu(c));
    return over(topo, cpus);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft::sync::wait_budget: no topology (%s); using %g cycles per transfer\n", e.what(),
                 sched::Topology::kSameSocket);
    return {};
  }
}

double cycles_per_ns() {
  try {
    const double r = sched::tsc_per_ns();
    if (std::isfinite(r) && r > 0.1 && r < 10) return r;
  } catch (const std::exception&) {
  }
  return 2.5;  // no usable timestamp counter: a typical server clock
}

std::uint32_t spins(double ns, double relax_ns) {
  const double n = std::ceil(ns / relax_ns);
  return static_cast<std::uint32_t>(std::clamp(n, 1.0, 1e7));
}

void check_latency(const char* name, double v, bool zero_ok) {
  if (!std::isfinite(v) || v < 0 || (!zero_ok && v == 0))
    throw std::invalid_argument(std::string("weft::sync::WaitBudget::derive: ") + name + " = " + std::to_string(v) +
                                " (must be finite and " + (zero_ok ? ">= 0" : "> 0") + ")");
}

}  // namespace

WaitBudget WaitBudget::derive(double relax_ns, double coherence_ns, double backoff_quantum_ns,
                              double thread_wake_ns) {
  check_latency("relax_ns", relax_ns, false);
  check_latency("coherence_ns", coherence_ns, false);
  check_latency("backoff_quantum_ns", backoff_quantum_ns, true);
  check_latency("thread_wake_ns", thread_wake_ns, false);
  WaitBudget b;
  b.relax_ns = relax_ns;
  b.coherence_ns = coherence_ns;
  b.backoff_quantum_ns = backoff_quantum_ns;
  b.thread_wake_ns = thread_wake_ns;
  b.thread_spins = spins(thread_wake_ns, relax_ns);
  b.ult_spins = spins(2 * coherence_ns, relax_ns);
  b.ult_yields = static_cast<std::uint32_t>(std::clamp(std::ceil(thread_wake_ns / kYieldRoundNs), 1.0, 1000.0));
  b.backoff_spins = spins(backoff_quantum_ns, relax_ns);
  // Thesis §5.5.1: lock side 8000 cycles against a >= 7000-cycle turnaround,
  // unlock side 384 against a largest latency of 308; mutex mode 256 and 128.
  const double lock_ns = thread_wake_ns * (8000.0 / 7000.0);
  const double unlock_ns = coherence_ns * (384.0 / 308.0);
  b.mutexee_lock_spins = spins(lock_ns, relax_ns);
  b.mutexee_unlock_spins = spins(unlock_ns, relax_ns);
  b.mutexee_lock_spins_min = spins(lock_ns * (256.0 / 8000.0), relax_ns);
  b.mutexee_unlock_spins_min = spins(unlock_ns * (128.0 / 384.0), relax_ns);
  return b;
}

WaitBudget WaitBudget::measure() {
  const double relax = measure_relax_ns();
  const TopologyLatencies lat = topology_latencies();
  const double cpn = cycles_per_ns();
  return derive(relax, lat.coherence_cycles / cpn, lat.quantum_cycles / cpn, measure_thread_wake_ns());
}

std::string WaitBudget::to_string() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "relax %.1f ns, coherence %.1f ns, backoff quantum %.1f ns, futex turnaround %.0f ns; spins: "
                "thread %u, ULT %u (+%u yields), backoff %u, MUTEXEE lock %u/%u unlock %u/%u (spin/mutex mode)",
                relax_ns, coherence_ns, backoff_quantum_ns, thread_wake_ns, thread_spins, ult_spins, ult_yields, backoff_spins,
                mutexee_lock_spins, mutexee_lock_spins_min, mutexee_unlock_spins, mutexee_unlock_spins_min);
  return buf;
}

namespace detail {
const WaitBudget& measure_wait_budget_once() {
  static const WaitBudget* measured = [] {
    const WaitBudget* b = new WaitBudget(WaitBudget::measure());
    const WaitBudget* expected = nullptr;
    // set_wait_budget() may have installed figures meanwhile: those win.
    g_wait_budget.compare_exchange_strong(expected, b, std::memory_order_acq_rel);
    return b;
  }();
  const WaitBudget* current = g_wait_budget.load(std::memory_order_acquire);
  return current ? *current : *measured;
}
}  // namespace detail

void set_wait_budget(const WaitBudget& budget) {
  // Every installed copy lives until exit: a wait in progress may still read
  // the figures it replaces.
  static std::mutex m;
  static auto* installed = new std::vector<std::unique_ptr<WaitBudget>>;
  std::lock_guard lk(m);
  installed->push_back(std::make_unique<WaitBudget>(budget));
  detail::g_wait_budget.store(installed->back().get(), std::memory_order_release);
}

}  // namespace weft::sync
