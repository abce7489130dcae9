// weft-bench harness: a registry of suites (the driver's subcommands), each
// suite a list of cases, each case several implementations (weft and its
// baselines) measured in the same process run, repetitions interleaved, the
// median reported beside min/max and beside a ratio to weft.
//
// Timing engine: a hand-written loop around std::chrono::steady_clock, not
// Google Benchmark's State loop. Reasons:
//  * a case compares implementations row by row and prints ratios between
//    them; Google Benchmark runs and reports each benchmark on its own, so
//    the table, the ratios and our JSON schema would need a custom reporter
//    that regroups its runs after the fact;
//  * most of our measurements are whole runs with their own set-up (a fiber
//    scheduler, a TBB arena, an OpenMP team, 10^6 fibers for skynet): the
//    function times exactly the region of interest and says how many
//    operations it did; Google Benchmark's adaptive iteration count would
//    either re-create the set-up per iteration or hide it in the timing;
//  * repetitions are interleaved across implementations (rep 1 of every row,
//    then rep 2, ...) so the drift of a shared, noisy 2-core machine lands on
//    every row alike; Google Benchmark repeats one benchmark back to back.
// We still use Google Benchmark where it fits: benchmark::DoNotOptimize and
// benchmark::ClobberMemory defeat dead-code elimination in the measured code.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace weft::bench {

// What one run of one implementation measured: the wall time of the measured
// region and the number of operations done in it. The harness reports
// total_ns / ops in the case's unit ("ns/switch", "ns/task", ...) and the
// total time in ms. Lower is better for both.
struct Measurement {
  double total_ns = 0;
  double ops = 1;
};

// Monotonic nanoseconds (steady_clock).
double now_ns();

// Options common to every suite.
struct Options {
  int reps = 5;        // --reps N: measured repetitions per implementation
  int warmup = 1;      // --warmup N: unmeasured runs first
  int settle_ms = 10;  // --settle MS: pause before each run, so that the
                       // threads of the previous row's runtime (TBB workers,
                       // libgomp's spinning team) go idle first
  bool quick = false;  // --quick: small sizes (demo, CI)
  bool json = false;   // --json: JSON Lines instead of the table
  std::string filter;  // --filter SUBSTR: only cases whose name contains it
};

// One row of a case. A row with a non-empty `missing` is listed but never run:
// it says which implementation is still to be written, not a number.
struct Impl {
  std::string name;
  std::function<Measurement()> run;
  std::string missing;
};

// The name of the row every other row is compared with.
inline constexpr const char* kReference = "weft";

// A case: one workload, several implementations.
struct Case {
  std::string name;     // e.g. "yield/2-fibers"; --filter matches on it
  std::string what;     // one line: the workload and its sizes
  std::string op_unit;  // unit of total_ns/ops, e.g. "ns/switch"
  std::vector<Impl> impls;

  Case(std::string n, std::string w, std::string unit)
      : name(std::move(n)), what(std::move(w)), op_unit(std::move(unit)) {}
  // Adds a measured row.
  Case& add(std::string impl, std::function<Measurement()> fn) {
    impls.push_back({std::move(impl), std::move(fn), {}});
    return *this;
  }
  // Adds a row that is listed as missing (never faked).
  Case& missing(std::string impl, std::string why) {
    impls.push_back({std::move(impl), {}, std::move(why)});
    return *this;
  }
};

// A suite builds its cases for the given options (sizes depend on --quick).
struct Suite {
  std::string name;
  std::string description;
  std::function<std::vector<Case>(const Options&)> cases;
};

// Registers a suite; called from a static initializer (WEFT_BENCH_SUITE).
bool register_suite(Suite suite);
const std::vector<Suite>& suites();

// The driver: parses argv, runs a suite, prints; returns the exit code.
int main_driver(int argc, char** argv);

}  // namespace weft::bench

#define WEFT_BENCH_CONCAT2(a, b) a##b
#define WEFT_BENCH_CONCAT(a, b) WEFT_BENCH_CONCAT2(a, b)
// WEFT_BENCH_SUITE("ult", "description", function returning std::vector<Case>)
#define WEFT_BENCH_SUITE(name, description, fn)                            \
  [[maybe_unused]] static const bool WEFT_BENCH_CONCAT(weft_bench_suite_, \
                                                       __LINE__) =        \
      ::weft::bench::register_suite({name, description, fn})
