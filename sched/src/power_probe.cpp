// Measuring a topology's power model with RAPL (Trigonakis, "Towards
// Scalable Synchronization on Multi-Cores", EPFL thesis 7246, 2016, §7.4
// "Power Consumption"). The phases follow libmctop's power plugin: idle, 1st
// core, 1st two cores, two contexts of one core, everything, each running a
// sequential memory read loop, the differences giving the per-level
// increments (power_model_from_phases).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "sysfs_file.hpp"
#include "weft/sched/cpuset.hpp"
#include "weft/sched/power.hpp"

namespace weft::sched {

std::vector<PowerInfo> power_model_from_phases(const PowerPhases& ph, const Topology& t) {
  const size_t S = static_cast<size_t>(t.num_sockets());
  auto check = [&](const std::vector<double>& v, const char* what, bool may_be_empty) {
    if (v.size() != S && !(may_be_empty && v.empty()))
      throw std::invalid_argument(std::string("weft::sched::power_model_from_phases: ") + what + " has " +
                                  std::to_string(v.size()) + " values, the topology " + std::to_string(S) + " sockets");
  };
  check(ph.idle, "idle", false);
  check(ph.one_core, "one_core", false);
  check(ph.two_cores, "two_cores", false);
  check(ph.two_contexts, "two_contexts", false);
  check(ph.all, "all", false);
  check(ph.dram_idle, "dram_idle", true);
  check(ph.dram_all, "dram_all", true);
  if (ph.dram_idle.size() != ph.dram_all.size())
    throw std::invalid_argument("weft::sched::power_model_from_phases: dram_idle and dram_all differ in size");
  std::vector<PowerInfo> out(S);
  auto pos = [](double x) { return std::isfinite(x) && x > 0 ? x : 0.0; };
  for (size_t s = 0; s < S; ++s) {
    PowerInfo& p = out[s];
    p.idle_w = pos(ph.idle[s]);
    p.socket_w = pos(ph.one_core[s] - ph.idle[s]);
    p.core_w = t.socket_cores(static_cast<int>(s)).size() > 1 ? pos(ph.two_cores[s] - ph.one_core[s]) : 0;
    const int first_core = t.socket_cores(static_cast<int>(s)).front();
    p.context_w = t.core_contexts(first_core).size() > 1 ? pos(ph.two_contexts[s] - ph.one_core[s]) : 0;
    if (!ph.dram_idle.empty()) {
      p.dram_idle_w = pos(ph.dram_idle[s]);
      p.dram_active_w = pos(ph.dram_all[s] - ph.dram_idle[s]);
    }
  }
  return out;
}

namespace {

// One thread per context, pinned; in each phase the active ones read their
// buffer sequentially until the phase ends, the others sleep.
class Load {
 public:
  Load(const Topology& t, std::size_t bytes) : bytes_(std::max<std::size_t>(bytes, 4096) / sizeof(std::uint64_t)) {
    const int n = t.num_contexts();
    failed_cpu_.store(-1);
    for (int c = 0; c < n; ++c) threads_.emplace_back([this, c, cpu = t.os_cpu(c)] { run(c, cpu); });
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return started_ == n; });
  }
  ~Load() {
    {
      std::lock_guard lock(m_);
      done_ = true;
      phase_.fetch_add(1);
    }
    cv_.notify_all();
    for (auto& th : threads_) th.join();
  }
  int failed_cpu() const { return failed_cpu_.load(); }
  void set(std::vector<char> active) {
    {
      std::lock_guard lock(m_);
      active_ = std::move(active);
      phase_.fetch_add(1);
    }
    cv_.notify_all();
  }

 private:
  void run(int ctx, int cpu) {
    bool ok = true;
    try {
      pin_current_thread(cpu);
    } catch (...) {
      failed_cpu_.store(cpu);
      ok = false;
    }
    std::unique_ptr<std::uint64_t[]> buf;
    std::unique_lock lock(m_);
    ++started_;
    cv_.notify_all();
    int seen = phase_.load();
    for (;;) {
      cv_.wait(lock, [&] { return phase_.load() != seen; });
      seen = phase_.load();
      if (done_) return;
      if (!ok || !active_[static_cast<size_t>(ctx)]) continue;
      lock.unlock();
      if (!buf) {
        buf = std::make_unique<std::uint64_t[]>(bytes_);
        for (std::size_t i = 0; i < bytes_; ++i) buf[i] = i;
      }
      volatile std::uint64_t sink = 0;
      while (phase_.load(std::memory_order_relaxed) == seen) {
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < bytes_; i += 8) sum += buf[i];  // one load per 64-byte line
        sink = sink + sum;
      }
      lock.lock();
    }
  }

  std::size_t bytes_;
  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable cv_;
  int started_ = 0;
  bool done_ = false;
  std::atomic<int> phase_{0};
  std::atomic<int> failed_cpu_;
  std::vector<char> active_;
};

}  // namespace

PowerPhases measure_power_phases(const Topology& t, const PowerProbeOptions& o) {
  RaplStatus st = rapl_status(o.powercap_root);
  if (!st.available) throw PowerUnavailable("weft: RAPL power measurement unavailable: " + st.reason);
  const int S = t.num_sockets();
  // Socket -> index of its RAPL package / DRAM domain.
  std::vector<int> pkg(static_cast<size_t>(S), -1), dram(static_cast<size_t>(S), -1);
  for (int s = 0; s < S; ++s) {
    const int cpu = t.os_cpu(t.socket_contexts(s).front());
    const std::string path = o.cpu_sysfs_root + "/cpu" + std::to_string(cpu) + "/topology/physical_package_id";
    const std::optional<double> package_id = detail::read_number(path);
    if (!package_id)
      throw PowerUnavailable("weft: cannot read " + path + " to find socket " + std::to_string(s) + "'s RAPL package");
    const int id = static_cast<int>(*package_id);
    for (size_t i = 0; i < st.packages.size(); ++i)
      if (st.packages[i].package == id) pkg[static_cast<size_t>(s)] = static_cast<int>(i);
    for (size_t i = 0; i < st.dram.size(); ++i)
      if (st.dram[i].package == id) dram[static_cast<size_t>(s)] = static_cast<int>(i);
    if (pkg[static_cast<size_t>(s)] < 0)
      throw PowerUnavailable("weft: socket " + std::to_string(s) + " (cpu " + std::to_string(cpu) + ", package " +
                             std::to_string(id) + ") has no RAPL package domain under " + o.powercap_root);
  }
  const bool have_dram = std::all_of(dram.begin(), dram.end(), [](int d) { return d >= 0; });
  Load load(t, o.buffer_bytes);
  if (load.failed_cpu() >= 0)
    throw PowerUnavailable("weft: cannot pin a measuring thread to CPU " + std::to_string(load.failed_cpu()) +
                           " (the topology must describe CPUs this process may run on)");
  const int N = t.num_contexts();
  auto phase = [&](const char* name, const std::function<bool(int)>& active) {
    if (o.progress) o.progress(name);
    std::vector<char> a(static_cast<size_t>(N));
    for (int c = 0; c < N; ++c) a[static_cast<size_t>(c)] = active(c);
    load.set(std::move(a));
    std::this_thread::sleep_for(std::chrono::duration<double>(o.settle_s));
    RaplSample before = rapl_sample(st);
    std::this_thread::sleep_for(std::chrono::duration<double>(o.interval_s));
    RaplSample after = rapl_sample(st);
    return rapl_power(st, before, after);
  };
  auto core_rank = [&](int c) {  // position of c's core in its socket
    const auto& sc = t.socket_cores(t.socket_of(c));
    return static_cast<int>(std::find(sc.begin(), sc.end(), t.core_of(c)) - sc.begin());
  };
  auto ctx_rank = [&](int c) {
    const auto& cc = t.core_contexts(t.core_of(c));
    return static_cast<int>(std::find(cc.begin(), cc.end(), c) - cc.begin());
  };
  RaplPower idle = phase("idle", [](int) { return false; });
  RaplPower one = phase("first core of each socket", [&](int c) { return core_rank(c) == 0 && ctx_rank(c) == 0; });
  RaplPower two = phase("first two cores of each socket", [&](int c) { return core_rank(c) <= 1 && ctx_rank(c) == 0; });
  RaplPower smt = phase("two contexts of the first core", [&](int c) { return core_rank(c) == 0 && ctx_rank(c) <= 1; });
  RaplPower all = phase("every context", [](int) { return true; });
  PowerPhases ph;
  for (int s = 0; s < S; ++s) {
    const size_t p = static_cast<size_t>(pkg[static_cast<size_t>(s)]);
    ph.idle.push_back(idle.package_w[p]);
    ph.one_core.push_back(one.package_w[p]);
    ph.two_cores.push_back(two.package_w[p]);
    ph.two_contexts.push_back(smt.package_w[p]);
    ph.all.push_back(all.package_w[p]);
    if (have_dram) {
      const size_t d = static_cast<size_t>(dram[static_cast<size_t>(s)]);
      ph.dram_idle.push_back(idle.dram_w[d]);
      ph.dram_all.push_back(all.dram_w[d]);
    }
  }
  return ph;
}

Topology measure_power(const Topology& t, const PowerProbeOptions& o) {
  return t.with_power(power_model_from_phases(measure_power_phases(t, o), t), PowerSource::Measured);
}

}  // namespace weft::sched
