// MCTOP-ALG step 1 (thesis §7.3.1 [L2091-2114], Fig 7.3) and the practical
// considerations of §7.3.5 [L2136-2148]: DVFS warm-up, SMT detection.
#include "weft/sched/latency_probe.hpp"

#include <numa.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "weft/sched/cpuset.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace weft::sched {

namespace {

#if defined(__x86_64__) || defined(__i386__)
inline uint64_t ts_begin() {
  _mm_lfence();
  return __rdtsc();
}
inline uint64_t ts_end() {
  unsigned aux;
  uint64_t t = __rdtscp(&aux);
  _mm_lfence();
  return t;
}
inline void cpu_relax() { _mm_pause(); }
#else
inline uint64_t ts_begin() {
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}
inline uint64_t ts_end() { return ts_begin(); }
inline void cpu_relax() {}
#endif

// DVFS (§7.3.5): time an empty loop until two consecutive runs agree within 2%.
void warm_up() {
  uint64_t prev = 0;
  for (int tries = 0; tries < 200; ++tries) {
    uint64_t t0 = ts_begin();
    for (int i = 0; i < 200000; ++i) asm volatile("" ::: "memory");
    uint64_t t = ts_end() - t0;
    if (prev && std::fabs(static_cast<double>(t) - static_cast<double>(prev)) < 0.02 * static_cast<double>(prev)) return;
    prev = t;
  }
}

struct alignas(64) Padded {
  std::atomic<uint64_t> v{0};
};


// The two lock-step threads: x is the caller, y a helper that follows commands.
class Prober {
 public:
  Prober() : helper_([this] { run_helper(); }) {}
  ~Prober() {
    cmd_cpu_.v.store(-1);
    cmd_gen_.v.fetch_add(1);
    helper_.join();
  }

  // Moves thread y to cpu (and warms it up) if it is not there yet.
  void place_y(int cpu, bool warm) {
    if (cpu == y_cpu_) return;
    warm_ = warm;
    cmd_cpu_.v.store(static_cast<uint64_t>(cpu));
    uint64_t g = cmd_gen_.v.fetch_add(1) + 1;
    while (ack_.v.load() != g) cpu_relax();
    if (error_) throw std::system_error(error_, std::generic_category(), "weft: cannot pin probe thread to cpu " + std::to_string(cpu));
    y_cpu_ = cpu;
  }

  // Fig 7.3: [y] CAS(line); barrier; [x] t=rdtsc; CAS(line); lat=rdtsc-t.
  std::vector<double> lock_step(int reps, double overhead) {
    std::vector<double> out(reps);
    for (int r = 0; r < reps; ++r) {
      uint64_t seq = ++seq_;
      go_.v.store(seq, std::memory_order_release);  // y may now take the line
      while (done_.v.load(std::memory_order_acquire) != seq) cpu_relax();
      uint64_t expected = line_.v.load(std::memory_order_relaxed);
      uint64_t t0 = ts_begin();
      line_.v.compare_exchange_strong(expected, expected + 1);
      uint64_t t1 = ts_end();
      out[r] = std::max(1.0, static_cast<double>(t1 - t0) - overhead);
    }
    return out;
  }

 private:
  void run_helper() {
    uint64_t seen_gen = 0, seen_seq = 0;
    for (;;) {
      // Either a command or a lock-step round.
      uint64_t g = cmd_gen_.v.load(std::memory_order_acquire);
      if (g != seen_gen) {
        seen_gen = g;
        int64_t cpu = static_cast<int64_t>(cmd_cpu_.v.load());
        if (cpu < 0) return;
        error_ = 0;
        try {
          pin_current_thread(static_cast<int>(cpu));
          if (warm_) warm_up();
        } catch (const std::system_error& e) {
          error_ = e.code().value() ? e.code().value() : EINVAL;
        }
        ack_.v.store(g, std::memory_order_release);
        continue;
      }
      uint64_t s = go_.v.load(std::memory_order_acquire);
      if (s != seen_seq) {
        seen_seq = s;
        uint64_t expected = line_.v.load(std::memory_order_relaxed);
        line_.v.compare_exchange_strong(expected, expected + 1);  // brings the line Modified here
        done_.v.store(s, std::memory_order_release);
        continue;
      }
      cpu_relax();
    }
  }

  Padded line_, go_, done_, cmd_gen_, cmd_cpu_, ack_;
  uint64_t seq_ = 0;
  int y_cpu_ = -1;
  bool warm_ = true;
  std::atomic<int> error_{0};
  std::thread helper_;
};

// Cost of the timed sequence on a line already Modified in the caller's cache.
double local_overhead() {
  Padded own;
  std::vector<double> s(501);
  for (auto& x : s) {
    uint64_t e = own.v.load(std::memory_order_relaxed);
    uint64_t t0 = ts_begin();
    own.v.compare_exchange_strong(e, e + 1);
    x = static_cast<double>(ts_end() - t0);
  }
  std::nth_element(s.begin(), s.begin() + 250, s.end());
  return s[250];
}

PairStats measure_with(Prober& p, double overhead, const ProbeOptions& o) {
  double limit = o.stdev_limit;
  PairStats st;
  for (int attempt = 0;; ++attempt) {
    p.lock_step(std::max(10, o.repetitions / 10), overhead);  // warm the pair's path
    st = pair_stats(p.lock_step(std::max(1, o.repetitions), overhead));
    st.retries = attempt;
    if (st.stdev_pct <= limit || attempt >= o.max_retries) return st;
    limit += o.stdev_step;  // "slightly increased" on each retry (§7.3.1)
  }
}

}  // namespace

PairStats pair_stats(std::vector<double> s) {
  PairStats st;
  if (s.empty()) return st;
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  st.median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  size_t lo = n / 10, hi = std::max(lo + 1, n - n / 10);
  double sum = 0, sq = 0;
  for (size_t i = lo; i < hi; ++i) sum += s[i];
  double mean = sum / static_cast<double>(hi - lo);
  for (size_t i = lo; i < hi; ++i) sq += (s[i] - mean) * (s[i] - mean);
  double sd = std::sqrt(sq / static_cast<double>(hi - lo));
  st.stdev_pct = st.median > 0 ? sd / st.median : 0;
  return st;
}

double tsc_per_ns() {
  static const double value = [] {
    auto c0 = std::chrono::steady_clock::now();
    uint64_t t0 = ts_begin();
    while (std::chrono::steady_clock::now() - c0 < std::chrono::milliseconds(20)) {
    }
    uint64_t t1 = ts_end();
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - c0).count();
    return static_cast<double>(t1 - t0) / ns;
  }();
  return value;
}

PairStats measure_pair(int a, int b, const ProbeOptions& o) {
  if (a == b) throw std::invalid_argument("weft::sched::measure_pair: both threads on cpu " + std::to_string(a));
  AffinityGuard guard;
  pin_current_thread(a);
  if (o.warm_up) warm_up();
  Prober p;
  p.place_y(b, o.warm_up);
  return measure_with(p, local_overhead(), o);
}

LatencyTable measure_latency_table(std::span<const int> cpus, const ProbeOptions& o) {
  LatencyTable t;
  t.os_cpus.assign(cpus.begin(), cpus.end());
  const int n = t.size();
  t.values.assign(static_cast<size_t>(n) * n, 0);
  if (n < 2) return t;
  AffinityGuard guard;
  Prober p;
  const int total = n * (n - 1) / 2;
  int done = 0;
  for (int a = 0; a < n - 1; ++a) {
    pin_current_thread(cpus[a]);
    if (o.warm_up) warm_up();
    double overhead = local_overhead();
    for (int b = a + 1; b < n; ++b) {
      p.place_y(cpus[b], o.warm_up);
      PairStats st = measure_with(p, overhead, o);
      t.at(a, b) = t.at(b, a) = st.median;
      if (o.progress) o.progress(++done, total);
    }
  }
  return t;
}

bool detect_smt(int a, int b) {
  AffinityGuard guard;
  auto spin = [] {
    uint64_t x = 1;
    uint64_t t0 = ts_begin();
    for (int i = 0; i < 20'000'000; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      asm volatile("" : "+r"(x));
    }
    return static_cast<double>(ts_end() - t0);
  };
  pin_current_thread(a);
  warm_up();
  double solo = spin();
  solo = std::min(solo, spin());
  std::atomic<int> phase{0};
  std::thread other([&] {
    pin_current_thread(b);
    warm_up();
    phase.store(1);
    while (phase.load() != 2) cpu_relax();
    spin();
    spin();
  });
  while (phase.load() != 1) cpu_relax();
  phase.store(2);
  double together = spin();
  other.join();
  return together > 1.3 * solo;
}

AlgResult infer_machine(const InferOptions& o) {
  std::vector<int> cpus = allowed_cpus();
  std::vector<int> node_of_row;
  std::set<int> nodes;
  const bool have_numa = numa_available() >= 0;
  for (int c : cpus) {
    int node = have_numa ? numa_node_of_cpu(c) : 0;
    if (node < 0) node = 0;
    node_of_row.push_back(node);
    nodes.insert(node);
  }
  LatencyTable table = measure_latency_table(cpus, o.probe);
  AlgOptions ao;
  ao.num_nodes = o.num_nodes > 0 ? o.num_nodes : static_cast<int>(nodes.size());
  ao.os_node_of_row = node_of_row;
  if (cpus.size() >= 2) {
    int ba = 0, bb = 1;
    for (int a = 0; a < table.size(); ++a)
      for (int b = a + 1; b < table.size(); ++b)
        if (table.at(a, b) < table.at(ba, bb)) ba = a, bb = b;
    ao.smt = detect_smt(cpus[ba], cpus[bb]);
  }
  return infer_topology(table, ao);
}

}  // namespace weft::sched
