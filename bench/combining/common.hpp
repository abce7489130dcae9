// Shared pieces of `weft-bench combining`: the Osci paper's harness (random
// local work after each operation, 10^7 operations per run or 0.5 s, timed
// from a start gate), and the two ways a run places its
// threads: k ULTs on each weft worker (one pinned worker per core), or
// pinned std::threads (what a user of a lock-free library would pick).
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../harness.hpp"
#include "local_work.hpp"

namespace weft::bench::combining {

// xorshift64*: cheap, deterministic per seed (every row draws the same
// multipliers and local-work lengths for the same thread index).
struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull | 1u) {}
  std::uint64_t next() noexcept {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1Dull;
  }
};

// A 64-bit mix (splitmix64's finalizer): the checksum of queue/stack items is
// the sum of mix(item), so a lost or duplicated item changes it.
inline std::uint64_t mix(std::uint64_t z) noexcept {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The number of iterations after an operation: uniform in [1, W] (0 when W = 0).
// Scaled from a 32-bit fraction (a multiply), as the authors' harness scales
// its random fraction (fastRandomRange: low + high * r / 32768), not taken
// modulo W: a 64-bit division by a variable W costs 15-45 cycles, about 5 % of
// an Osci operation at W = 64 on the 2-core VM, paid by every row and the ideal
// alike but not by the reference we compare with. W < 2^32.
inline std::uint64_t local_work_draw(Rng& rng, std::uint64_t w) noexcept {
  return w ? (((rng.next() >> 32) * w) >> 32) + 1 : 0;
}

// The paper's run length: 10^7 operations in total, split evenly over the
// threads (§5: "each of the n threads simulating 10^8/n"; 10^7 here), unless
// the run reaches 0.5 s first: then every thread stops after its current
// operation (Gate::stopped) and the run counts the operations done.
inline constexpr long kRunOps = 10'000'000;
inline constexpr double kRunCapNs = 0.5e9;

// The CPUs the benchmark runs on: those of a default weft::Runtime's workers
// (one per usable CPU, capped by the cgroup quota, WEFT_* applied), measured
// once. cores() == cpus().size(). An entry is -1 where workers are unpinned.
const std::vector<int>& bench_cpus();
inline int bench_cores() { return static_cast<int>(bench_cpus().size()); }

// Start gate and stop flag: every thread announces itself, the controller
// opens the gate (taking t0) once all have arrived, each thread records when
// it is done and how many operations it did; elapsed = last end - t0 (thread
// creation and teardown excluded). The controller raises the stop flag when
// the run reaches kRunCapNs.
class Gate {
 public:
  explicit Gate(int threads) : n_(threads) {}
  // Thread side: after its set-up (handles), before its first operation.
  // Waits with this_ult::yield (a plain thread: std::this_thread::yield).
  void arrive_and_wait();
  // Thread side: checked before each operation; true once the run reached kRunCapNs.
  bool stopped() const noexcept { return stop_.load(std::memory_order_relaxed); }
  // Thread side: after its last operation; `ops` = operations it did.
  void finish(long ops);
  // Controller side: waits until every thread arrived, opens, returns t0.
  double open();
  // Controller side: waits until every thread finished, raising the stop
  // flag at t0 + kRunCapNs.
  void supervise(double t0);
  double end_ns() const { return static_cast<double>(end_.load(std::memory_order_acquire)); }
  // Operations done by all threads (after every finish()).
  long ops() const { return ops_.load(std::memory_order_acquire); }

 private:
  const int n_;
  alignas(64) std::atomic<int> ready_{0};
  alignas(64) std::atomic<bool> go_{false};
  alignas(64) std::atomic<bool> stop_{false};
  alignas(64) std::atomic<std::int64_t> end_{0};
  std::atomic<long> ops_{0};
  std::atomic<int> done_{0};
  std::mutex m_;
  std::condition_variable cv_;
};

// body(int tid, Gate&) for tid in [0, threads): must call arrive_and_wait()
// once, check stopped() before each operation, then call finish() once. Must
// not throw (record errors, check after).
using Body = std::function<void(int, Gate&)>;

// A weft::Runtime with `workers` pinned workers (64 KiB stacks), `per_worker`
// ULTs spawn_on'd to each (tid = worker * per_worker + j). Returns the
// measured ns (gate open to the last finish); the runtime is started before
// and stopped after the measured region. The operations done: gate.ops().
struct Timed {
  double ns = 0;
  long ops = 0;
  // ULT runs: the runtime's context switches and yields that switched
  // (Runtime::stats(), all workers) from the gate's opening until every ULT
  // finished; NaN for thread runs.
  double switches = NAN, yields = NAN;
};
Timed run_ults(int workers, int per_worker, const Body& body);

// `per_cpu` std::threads pinned to each of the first `ncpus` bench_cpus()
// (tid = cpu * per_cpu + j). Returns the measured ns as run_ults.
Timed run_threads(int ncpus, int per_cpu, const Body& body);

// Runs fn on one std::thread pinned to bench_cpus()[0] and waits for it.
void run_pinned(const std::function<void()>& fn);

// Aborts the process, naming `row`, if it is still alive after `seconds`: a
// hung algorithm must not hang the benchmark silently. One per run.
class Watchdog {
 public:
  Watchdog(std::string row, int seconds);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  struct State;
  std::unique_ptr<State> s_;
};
inline constexpr int kWatchdogSeconds = 60;

// Throws std::runtime_error(what) (the harness prints the row as FAILED).
[[noreturn]] void fail(const std::string& what);

// Ops of thread `tid` when `total` ops are split over `threads` threads.
inline long share(long total, int threads, int tid) {
  return total / threads + (tid < total % threads ? 1 : 0);
}

// A Measurement of `ops` operations in `ns`, with the throughput as its first
// extra column: `name` (e.g. "Mops/s") = 1000 / (ns per op).
Measurement with_throughput(double ns, double ops, const char* name = "Mops/s");
// Adds the profile columns of a ULT run: "sw/op" (context switches per
// operation) and "yld/op" (yields that switched, per operation).
void add_switch_profile(Measurement& m, const Timed& run, double ops);

}  // namespace weft::bench::combining
