// MCTOP-ALG step 1 (thesis §7.3.1 "Context-to-Context Latencies", Fig 7.3)
// and the practical considerations of §7.3.5: DVFS warm-up, SMT detection. Plus
// what the thesis leaves implicit and a virtual machine gets wrong: the timed
// CAS must be the only access that moves the line, the clock must be fenced,
// the threads must be where they were pinned, and a value no transfer can
// have is an error, not a latency (issue #13: a ~294-cycle pair measured as 10).
#include "weft/sched/latency_probe.hpp"

#include <numa.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "pair_samples.hpp"
#include "weft/sched/cpu.hpp"
#include "weft/sched/cpuset.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace weft::sched {

namespace {

#if defined(__x86_64__) || defined(__i386__)
// Timestamps around a timed region (Intel SDM vol. 2B, RDTSC/RDTSCP). Before
// the first read: mfence lets earlier stores leave the store buffer (a locked
// CAS drains it, so a pending store's cache miss would be counted as the
// transfer) and lfence lets earlier instructions finish; after it, lfence
// keeps the timed instructions from starting before the counter is read
// (without it the CAS's request for the line can go out early and the
// transfer is partly missed). rdtscp waits for the timed instructions to
// finish; the lfence after it keeps later ones out.
inline uint64_t ts_begin() {
  _mm_mfence();
  _mm_lfence();
  uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
}
inline uint64_t ts_end() {
  unsigned aux;
  uint64_t t = __rdtscp(&aux);
  _mm_lfence();
  return t;
}
#else
inline uint64_t ts_begin() {
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}
inline uint64_t ts_end() { return ts_begin(); }
#endif

// A timer this slow (cycles for an empty timed region) cannot time a
// transfer of a few hundred cycles: the hypervisor traps rdtsc.
constexpr double kMaxTimerOverhead = 500;

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

// pin_current_thread(), then check that the kernel did it: the affinity mask
// is exactly {cpu} and the thread runs on cpu. Fails loudly otherwise.
void pin_verified(int cpu) {
  pin_current_thread(cpu);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    throw std::system_error(errno, std::generic_category(), "weft: probe: sched_getaffinity");
  if (CPU_COUNT(&set) != 1 || !CPU_ISSET(cpu, &set)) {
    std::string mask;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) {
        if (!mask.empty()) mask += ',';
        mask += std::to_string(c);
      }
    throw ProbeError("weft: probe thread pinned to cpu " + std::to_string(cpu) + " has the affinity mask {" + mask +
                     "}");
  }
  if (int now = sched_getcpu(); now != cpu)
    throw ProbeError("weft: probe thread pinned to cpu " + std::to_string(cpu) + " runs on cpu " + std::to_string(now));
}

void check_still_on(int cpu) {
  if (int now = sched_getcpu(); now != cpu)
    throw ProbeError("weft: probe thread pinned to cpu " + std::to_string(cpu) + " was found running on cpu " +
                     std::to_string(now) + " after measuring");
}

// The measured line and every flag sit in their own 128-byte block: Intel's
// spatial prefetcher fetches lines in 128-byte pairs, so a line next to a
// flag that x writes would travel with the flag, outside the timed region.
struct alignas(128) Padded {
  std::atomic<uint64_t> v{0};
};

double median_of(std::vector<double> s) {
  std::nth_element(s.begin(), s.begin() + static_cast<long>(s.size() / 2), s.end());
  return s[s.size() / 2];
}

double timer_overhead() {
  std::vector<double> s(2001);
  for (auto& x : s) {
    uint64_t t0 = ts_begin();
    x = static_cast<double>(ts_end() - t0);
  }
  return median_of(std::move(s));
}

bool tsc_is_invariant() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line);
      std::set<std::string> flags;
      for (std::string w; words >> w;) flags.insert(w);
      return flags.count("constant_tsc") && flags.count("nonstop_tsc");
    }
  return false;
}

// The caller is pinned to cpu.
ProbeCalibration calibrate_here(int cpu) {
  ProbeCalibration c;
  c.os_cpu = cpu;
  c.timer_overhead = timer_overhead();
  if (c.timer_overhead > kMaxTimerOverhead)
    throw ProbeError("weft: probe: reading the timestamp counter costs " + std::to_string(c.timer_overhead) +
                     " cycles on cpu " + std::to_string(cpu) + " (over " + std::to_string(kMaxTimerOverhead) +
                     "; the hypervisor traps rdtsc?): cache-line transfers cannot be timed here");
  Padded own;
  std::vector<double> s(2001);
  uint64_t value = 0;
  for (auto& x : s) {
    uint64_t expected = value;
    uint64_t t0 = ts_begin();
    own.v.compare_exchange_strong(expected, value + 1);
    uint64_t t1 = ts_end();
    ++value;
    x = static_cast<double>(t1 - t0) - c.timer_overhead;
  }
  std::sort(s.begin(), s.end());
  c.local_cas = s[s.size() / 2];
  c.local_cas_p10 = s[s.size() / 10];
  c.tsc_per_ns = tsc_per_ns();
  c.invariant_tsc = tsc_is_invariant();
  return c;
}

// check_transfer()'s rule.
bool cheaper_than_local(const PairStats& st, const ProbeCalibration& cal) { return st.median < cal.local_cas_p10; }

// The two lock-step threads of Fig 7.3: x is the caller, y a helper that
// follows commands.
class Prober {
 public:
  Prober() : helper_([this] { run_helper(); }) {}
  ~Prober() {
    cmd_cpu_.v.store(static_cast<uint64_t>(-1));
    cmd_gen_.v.fetch_add(1);
    helper_.join();
  }

  // Moves thread y to cpu (and warms it up) if it is not there yet.
  void place_y(int cpu, bool warm) {
    if (cpu == y_cpu_) return;
    warm_.store(warm);
    cmd_cpu_.v.store(static_cast<uint64_t>(cpu));
    uint64_t g = cmd_gen_.v.fetch_add(1) + 1;
    while (ack_.v.load(std::memory_order_acquire) != g) cpu_relax();
    if (error_) std::rethrow_exception(error_);
    y_cpu_ = cpu;
  }
  int y_cpu() const { return y_cpu_; }

  // Fig 7.3, round s: y CASes the line from 2s-2 to 2s-1 (now it holds it
  // Modified); barrier; x times its CAS from 2s-1 to 2s. Both know the value,
  // so neither reads the line outside its CAS: a read by x before the clock
  // starts would bring the line over untimed (what made a ~294-cycle pair
  // read 10 cycles in issue #13). A failed CAS means the lock step broke.
  std::vector<double> lock_step(int reps, double overhead) {
    std::vector<double> out(reps);
    for (int r = 0; r < reps; ++r) {
      const uint64_t seq = ++seq_;
      go_.v.store(seq, std::memory_order_release);  // y may now take the line
      while (done_.v.load(std::memory_order_acquire) != seq) cpu_relax();
      uint64_t expected = 2 * seq - 1;
      uint64_t t0 = ts_begin();
      bool ok = line_.v.compare_exchange_strong(expected, 2 * seq);
      uint64_t t1 = ts_end();
      if (!ok || broken_.load())
        throw ProbeError("weft: probe lock step broke in round " + std::to_string(seq) + " (the line held " +
                         std::to_string(expected) + ", expected " + std::to_string(2 * seq - 1) + ")");
      out[r] = static_cast<double>(t1 - t0) - overhead;
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
        error_ = nullptr;
        try {
          pin_verified(static_cast<int>(cpu));
          if (warm_.load()) warm_up();
        } catch (...) {
          error_ = std::current_exception();
        }
        ack_.v.store(g, std::memory_order_release);
        continue;
      }
      uint64_t s = go_.v.load(std::memory_order_acquire);
      if (s != seen_seq) {
        seen_seq = s;
        uint64_t expected = 2 * s - 2;
        if (!line_.v.compare_exchange_strong(expected, 2 * s - 1)) broken_.store(true);
        done_.v.store(s, std::memory_order_release);
        continue;
      }
      cpu_relax();
    }
  }

  Padded line_, go_, done_, cmd_gen_, cmd_cpu_, ack_;
  uint64_t seq_ = 0;
  int y_cpu_ = -1;
  std::atomic<bool> warm_{true}, broken_{false};
  std::exception_ptr error_;  // written by y before ack_, read by x after
  std::thread helper_;
};

PairStats measure_with(Prober& p, int x_cpu, const ProbeCalibration& cal, const ProbeOptions& o) {
  double limit = o.stdev_limit;
  PairStats st;
  for (int attempt = 0;; ++attempt) {
    p.lock_step(std::max(10, o.repetitions / 10), cal.timer_overhead);  // warm the pair's path
    st = pair_stats(p.lock_step(std::max(1, o.repetitions), cal.timer_overhead));
    check_still_on(x_cpu);
    st.retries = attempt;
    const bool impossible = cheaper_than_local(st, cal);
    if (!impossible && (st.stdev_pct <= limit || attempt >= o.max_retries)) return st;
    if (attempt >= o.max_retries) check_transfer(st, cal, p.y_cpu());
    limit += o.stdev_step;  // "slightly increased" on each retry (§7.3.1)
  }
}

// The second sanity rule: a transfer at most twice as dear as a CAS on the
// cpu's own line can only come from a shared L1, so the two cpus must be SMT
// siblings; the §7.3.5 spin test must confirm it, or the line did not really
// move and the value is an error. Runs while no probe thread spins.
bool near_local_but_not_smt(double median, const ProbeCalibration& cal, int a, int b) {
  return median <= 2 * cal.local_cas && !detect_smt(a, b);
}
// The error for a pair that broke that rule.
[[noreturn]] void throw_near_local(double median, const ProbeCalibration& cal, int a, int b) {
  std::ostringstream m;
  m << "weft: probe: cpus " << a << " and " << b << " measured " << median
    << " cycles, at most twice a CAS on cpu " << a << "'s own line (" << cal.local_cas
    << "): only SMT siblings share a cache that close, and the SMT test says they do not share a core; the "
       "measurement cannot be trusted and is not given to MCTOP-ALG (on a virtual machine the host may have moved "
       "the vCPUs: retry)";
  throw ProbeError(m.str());
}
void confirm_near_local(double median, const ProbeCalibration& cal, int a, int b) {
  if (near_local_but_not_smt(median, cal, a, b)) throw_near_local(median, cal, a, b);
}

// The pair (row, column; row < column) of the smallest latency in a table of
// at least two cpus.
std::pair<int, int> closest_pair(const LatencyTable& t) {
  std::pair<int, int> best{0, 1};
  for (int a = 0; a < t.size(); ++a)
    for (int b = a + 1; b < t.size(); ++b)
      if (t.at(a, b) < t.at(best.first, best.second)) best = {a, b};
  return best;
}

// A table of the given cpus with every entry 0 (not measured).
LatencyTable unmeasured_table(std::span<const int> cpus) {
  LatencyTable t;
  t.os_cpus.assign(cpus.begin(), cpus.end());
  t.values.assign(cpus.size() * cpus.size(), 0);
  return t;
}

// Runs f on a thread pinned (and verified) to cpu; rethrows what it throws.
class PinnedThread {
 public:
  template <class F>
  PinnedThread(int cpu, F f)
      : thread_([this, cpu, f = std::move(f)]() mutable {
          try {
            pin_verified(cpu);
            f();
          } catch (...) {
            error_ = std::current_exception();
            failed_.store(true);
          }
        }) {}
  bool failed() const { return failed_.load(); }
  void join() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
  std::thread thread_;
};

double pingpong_run(int a, int b, int round_trips, double overhead) {
  Padded ball, ready;
  PinnedThread y(b, [&] {
    ready.v.store(1);
    for (uint64_t r = 0; r < static_cast<uint64_t>(round_trips); ++r) {
      while (ball.v.load(std::memory_order_acquire) != 2 * r + 1) cpu_relax();
      ball.v.store(2 * r + 2, std::memory_order_release);
    }
  });
  std::vector<double> s(round_trips);
  while (!ready.v.load())
    if (y.failed()) break;
    else cpu_relax();
  if (!y.failed())
    for (uint64_t r = 0; r < static_cast<uint64_t>(round_trips); ++r) {
      uint64_t t0 = ts_begin();
      ball.v.store(2 * r + 1, std::memory_order_release);
      while (ball.v.load(std::memory_order_acquire) != 2 * r + 2) cpu_relax();
      s[r] = (static_cast<double>(ts_end() - t0) - overhead) / 2;
    }
  y.join();
  check_still_on(a);
  return median_of(std::move(s));
}

}  // namespace

void check_transfer(const PairStats& st, const ProbeCalibration& cal, int b) {
  if (!cheaper_than_local(st, cal)) return;
  std::ostringstream m;
  m << "weft: probe: cpu " << cal.os_cpu << " took " << st.median << " cycles (median, after " << st.retries + 1
    << " attempt(s)) for a CAS on the line cpu " << b << " had just written, less than a CAS on its own line ("
    << cal.local_cas_p10 << " cycles, 10th percentile): the line cannot have come from cpu " << b
    << "; the measurement cannot be trusted and is not given to MCTOP-ALG";
  throw ProbeError(m.str());
}

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

ProbeCalibration calibrate_probe(int cpu) {
  AffinityGuard guard;
  pin_verified(cpu);
  return calibrate_here(cpu);
}

PairStats measure_pair(int a, int b, const ProbeOptions& o) {
  if (a == b) throw std::invalid_argument("weft::sched::measure_pair: both threads on cpu " + std::to_string(a));
  AffinityGuard guard;
  pin_verified(a);
  if (o.warm_up) warm_up();
  const ProbeCalibration cal = calibrate_here(a);
  PairStats st;
  {
    Prober p;
    p.place_y(b, o.warm_up);
    st = measure_with(p, a, cal, o);
  }
  confirm_near_local(st.median, cal, a, b);
  return st;
}

LatencyTable measure_latency_table(std::span<const int> cpus, const ProbeOptions& o) {
  LatencyTable t = unmeasured_table(cpus);
  const int n = t.size();
  if (n < 2) return t;
  AffinityGuard guard;
  std::vector<ProbeCalibration> cal(n);
  {
    Prober p;
    const int total = n * (n - 1) / 2;
    int done = 0;
    for (int a = 0; a < n - 1; ++a) {
      pin_verified(cpus[a]);
      if (o.warm_up) warm_up();
      cal[a] = calibrate_here(cpus[a]);
      for (int b = a + 1; b < n; ++b) {
        p.place_y(cpus[b], o.warm_up);
        PairStats st = measure_with(p, cpus[a], cal[a], o);
        t.at(a, b) = t.at(b, a) = st.median;
        if (o.progress) o.progress(++done, total);
      }
    }
  }
  // Pairs that fail the second sanity rule are measured again: on a virtual
  // machine the host may run two vCPUs on one core for a moment (a 16-vCPU KVM
  // guest showed one such pair, 14-26 cycles against 150-290 for the rest, in
  // 2 of 3 runs; never the same pair twice). Only a pair that fails every
  // time stops the measurement.
  for (int round = 0;; ++round) {
    std::vector<std::pair<int, int>> suspects;
    for (int a = 0; a < n - 1; ++a)
      for (int b = a + 1; b < n; ++b)
        if (near_local_but_not_smt(t.at(a, b), cal[a], cpus[a], cpus[b])) suspects.emplace_back(a, b);
    if (suspects.empty()) return t;
    if (round == o.max_remeasures) {
      const auto [a, b] = suspects[0];
      throw_near_local(t.at(a, b), cal[a], cpus[a], cpus[b]);
    }
    Prober p;
    for (auto [a, b] : suspects) {
      const double before = t.at(a, b);
      pin_verified(cpus[a]);
      p.place_y(cpus[b], o.warm_up);
      t.at(a, b) = t.at(b, a) = measure_with(p, cpus[a], cal[a], o).median;
      if (o.note) {
        std::ostringstream m;
        m << "cpus " << cpus[a] << " and " << cpus[b] << " measured " << before
          << " cycles, too close for two cores that the SMT test says do not share one; measured again: "
          << t.at(a, b) << " cycles";
        o.note(m.str());
      }
    }
  }
}

double measure_pingpong(int a, int b, const PingPongOptions& o) {
  if (a == b) throw std::invalid_argument("weft::sched::measure_pingpong: both threads on cpu " + std::to_string(a));
  if (o.round_trips < 1 || o.runs < 1)
    throw std::invalid_argument("weft::sched::measure_pingpong: round_trips and runs must be >= 1");
  AffinityGuard guard;
  pin_verified(a);
  const double overhead = timer_overhead();
  double best = 0;
  for (int run = 0; run < o.runs; ++run) {
    double v = pingpong_run(a, b, o.round_trips, overhead);
    best = run == 0 ? v : std::min(best, v);
  }
  return best;
}

LatencyTable measure_pingpong_table(std::span<const int> cpus, const PingPongOptions& o) {
  LatencyTable t = unmeasured_table(cpus);
  const int n = t.size();
  const int total = n * (n - 1) / 2;
  int done = 0;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      t.at(a, b) = t.at(b, a) = measure_pingpong(cpus[a], cpus[b], o);
      if (o.progress) o.progress(++done, total);
    }
  return t;
}

// §7.3.5 "Detecting SMT": a spin loop timed solo, then beside the same loop
// on the other cpu. The loop runs eight independent multiply-add chains, so it
// is bound by the core's multipliers (one or two ports), which SMT siblings
// share: each gets about half. (A single chain is bound by the multiply's
// latency and leaves room for a sibling: no slowdown to see.) The fastest of
// three runs each way: a shared core slows every run down, another process
// briefly sharing a cpu (a busy or virtual machine) only some.
bool detect_smt(int a, int b) {
  AffinityGuard guard;
  auto spin = [] {
    uint64_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint64_t t0 = ts_begin();
    for (int i = 0; i < 2'500'000; ++i)
      for (auto& v : x) {
        v = v * 6364136223846793005ULL + 1442695040888963407ULL;
        asm volatile("" : "+r"(v));
      }
    return static_cast<double>(ts_end() - t0);
  };
  auto fastest_of_three = [&] { return std::min({spin(), spin(), spin()}); };
  pin_verified(a);
  warm_up();
  const double solo = fastest_of_three();
  std::atomic<int> phase{0};
  PinnedThread other(b, [&] {
    warm_up();
    phase.store(1);
    while (phase.load() != 2) cpu_relax();
    while (phase.load() != 3) spin();  // busy for as long as a's runs last
  });
  while (phase.load() != 1)
    if (other.failed()) break;
    else cpu_relax();
  phase.store(2);
  const double together = fastest_of_three();
  phase.store(3);
  other.join();
  return together > 1.3 * solo;
}

MachineLatencies measure_machine(const ProbeOptions& probe) {
  MachineLatencies m;
  std::vector<int> cpus = allowed_cpus();
  const bool have_numa = numa_available() >= 0;
  for (int c : cpus) {
    int node = have_numa ? numa_node_of_cpu(c) : 0;
    m.os_nodes.push_back(node < 0 ? 0 : node);
  }
  m.calibration = calibrate_probe(cpus.at(0));
  m.table = measure_latency_table(cpus, probe);
  if (cpus.size() >= 2) {
    m.smt_note = smt_implausible_reason(m.table);
    if (m.smt_note.empty()) {
      const auto [a, b] = closest_pair(m.table);
      m.smt = detect_smt(cpus[a], cpus[b]);
    }
  }
  return m;
}

std::string smt_implausible_reason(const LatencyTable& t) {
  const int n = t.size();
  if (n < 2) return "one cpu";
  const auto [ba, bb] = closest_pair(t);
  const double limit = 2 * t.at(ba, bb);
  int alone = 0, first_alone = -1;
  double alone_nearest = 0;
  for (int a = 0; a < n; ++a) {
    double nearest = -1;
    for (int b = 0; b < n; ++b)
      if (b != a && (nearest < 0 || t.at(a, b) < nearest)) nearest = t.at(a, b);
    if (nearest > limit) {
      if (alone++ == 0) first_alone = a, alone_nearest = nearest;
    }
  }
  if (alone == 0) return {};
  std::ostringstream m;
  m << "cpus " << t.os_cpus[ba] << " and " << t.os_cpus[bb] << " measured " << t.at(ba, bb) << " cycles, but "
    << alone << " of " << n << " cpus have no partner within twice that (cpu " << t.os_cpus[first_alone]
    << ": nearest " << alone_nearest
    << " cycles), so the close pairs are not cores: no SMT (on a virtual machine the host may have run two vCPUs on "
       "one core while they were measured)";
  return m.str();
}

AlgResult infer_measured(const MachineLatencies& m, int num_nodes) {
  AlgOptions ao;
  ao.num_nodes = num_nodes > 0 ? num_nodes : static_cast<int>(std::set<int>(m.os_nodes.begin(), m.os_nodes.end()).size());
  ao.os_node_of_row = m.os_nodes;
  ao.smt = m.smt;
  return infer_topology(m.table, ao);
}

AlgResult infer_machine(const InferOptions& o) { return infer_measured(measure_machine(o.probe), o.num_nodes); }

}  // namespace weft::sched
