// Shared pieces of `weft-bench combining`: the random local work of the
// Osci paper's benchmarks, a start gate, and the two ways a run places its
// threads: k ULTs on each weft worker (one pinned worker per core), or
// pinned std::threads (what a user of a lock-free library would pick).
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../harness.hpp"

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

// The paper's local work: `n` dummy loop iterations (§5: "a loop of dummy
// iterations whose number is chosen randomly (to be up to 512)"). Out of
// line (common.cpp), so every row and the ideal run the very same machine
// code: inlined, the loop's counter may land in a register in one caller and
// on the stack in another, a 3x difference per iteration.
void local_work(std::uint64_t n) noexcept;
// The number of iterations before the next operation: uniform in [0, W].
inline std::uint64_t local_work_draw(Rng& rng, std::uint64_t w) noexcept {
  return w ? rng.next() % (w + 1) : 0;
}

// The CPUs the benchmark runs on: those of a default weft::Runtime's workers
// (one per usable CPU, capped by the cgroup quota, WEFT_* applied), measured
// once. cores() == cpus().size(). An entry is -1 where workers are unpinned.
const std::vector<int>& bench_cpus();
inline int bench_cores() { return static_cast<int>(bench_cpus().size()); }

// Start gate: every thread announces itself, the controller opens the gate
// (taking t0), each thread records when it is done; elapsed = last end - t0.
class Gate {
 public:
  explicit Gate(int threads) : n_(threads) {}
  // Thread side: after its set-up (handles), before its first operation.
  // Waits with this_ult::yield (a plain thread: std::this_thread::yield).
  void arrive_and_wait();
  // Thread side: after its last operation.
  void finish();
  // Controller side: waits until every thread arrived, opens, returns t0.
  double open();
  double end_ns() const { return static_cast<double>(end_.load(std::memory_order_acquire)); }

 private:
  const int n_;
  alignas(64) std::atomic<int> ready_{0};
  alignas(64) std::atomic<bool> go_{false};
  alignas(64) std::atomic<std::int64_t> end_{0};
};

// body(int tid, Gate&) for tid in [0, threads): must call arrive_and_wait()
// once, then finish() once. Must not throw (record errors, check after).
using Body = std::function<void(int, Gate&)>;

// A weft::Runtime with `workers` pinned workers (64 KiB stacks), `per_worker`
// ULTs spawn_on'd to each (tid = worker * per_worker + j). Returns the
// measured ns (gate open to the last finish); the runtime is started before
// and stopped after the measured region.
double run_ults(int workers, int per_worker, const Body& body);

// `per_cpu` std::threads pinned to each of the first `ncpus` bench_cpus()
// (tid = cpu * per_cpu + j). Returns the measured ns as run_ults.
double run_threads(int ncpus, int per_cpu, const Body& body);

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

}  // namespace weft::bench::combining
