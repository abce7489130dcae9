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

#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace weft::bench {

// What one run of one implementation measured: the wall time of the measured
// region and the number of operations done in it. The harness reports
// total_ns / ops in the case's unit ("ns/switch", "ns/task", ...) and the
// total time in ms. Lower is better for both.
//
// `extra` optionally carries further named metrics of the run (a combining
// degree, a mean latency, ...): the table shows the median of each over the
// repetitions as an extra column (named by Metric::name, in order of first
// appearance in the case; "—" where a row has none), and --json writes one
// more record per metric. Rows without extras look exactly as before.
struct Metric {
  std::string name;              // column header and JSON "metric", e.g. "degree"
  std::string unit;              // JSON "unit", e.g. "req/round" (may be empty)
  double value = 0;              // NaN: not applicable to this run
  bool higher_is_better = false; // JSON "better"
};

struct Measurement {
  double total_ns = 0;
  double ops = 1;
  std::vector<Metric> extra = {};
};

// Monotonic nanoseconds (steady_clock).
double now_ns();
// Resident set size of this process now, in bytes (/proc/self/statm).
double resident_bytes();
// CPU time all of this process's threads have used so far, in ns.
double process_cpu_ns();
// The metric "cpus": CPU time over wall time between two readings of
// process_cpu_ns() and now_ns() (1.00: one CPU busy all along; a runtime
// whose idle workers spin shows more than the work needs).
Metric cpus_used(double cpu_ns, double wall_ns);

// A helper executable built next to weft-bench (e.g. weft-startup-probe);
// throws naming the CMake target to build when it is missing.
std::string sibling_executable(const std::string& name);

// What a helper process printed on stdout, how it ended and how long it took.
struct ProcessRun {
  std::string output;
  bool exited_ok = false;  // exited with status 0
  double spawned_ns = 0;   // now_ns() just before the spawn
  double reaped_ns = 0;    // now_ns() just after the wait
  double wall_ns() const { return reaped_ns - spawned_ns; }
};
// Runs `path args...` with the given environment (nullptr: this process's)
// and waits for it; throws if it cannot be started.
ProcessRun run_process(const std::string& path, const std::vector<std::string>& args,
                       char* const* envp = nullptr);

// The peak memory a piece of work adds: construct it just before the work
// (it returns freed heap to the system and resets the kernel's peak resident
// set through /proc/self/clear_refs), read added_bytes() just after.
class PeakMemory {
 public:
  PeakMemory();
  // Peak resident set since construction minus the resident set then, >= 0;
  // NaN where the kernel does not let the peak be reset.
  double added_bytes() const;

 private:
  bool reset_ = false;
  double resident_before_ = -1;
};

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
  std::vector<std::string> rows;  // --rows A,B: only these rows (e.g. to profile one)
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

// The medians of one row after its case ran, for Suite::summary.
struct RowResult {
  std::string case_name;
  std::string impl;
  bool ok = false;            // measured and verified (not missing, not failed)
  double per_op = 0;          // median, in the case's op_unit
  std::vector<std::pair<std::string, double>> extra = {};  // median per extra metric
  // Median of extra metric `name`, NaN if the row has none.
  double metric(const std::string& name) const;
};

// A small table a suite derives from its rows after all cases ran (e.g. the
// best of a sweep). Printed after the cases; in --json one record per cell
// beyond the first column: case = table name, impl = the row's first cell,
// metric = the column's header.
struct SummaryTable {
  struct Cell {
    std::string text;  // shown as is; empty: the value, formatted
    double value = NAN;
  };
  std::string name;  // e.g. "combining/table2/W64"
  std::string what;  // one line
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

// A suite builds its cases for the given options (sizes depend on --quick).
// `summary`, when set, is called once after the cases (only those --filter
// kept) with every row's result.
struct Suite {
  std::string name;
  std::string description;
  std::function<std::vector<Case>(const Options&)> cases;
  std::function<std::vector<SummaryTable>(const std::vector<RowResult>&, const Options&)> summary = {};
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
// The same with a summary function (see Suite::summary).
#define WEFT_BENCH_SUITE_WITH_SUMMARY(name, description, fn, summary_fn)   \
  [[maybe_unused]] static const bool WEFT_BENCH_CONCAT(weft_bench_suite_, \
                                                       __LINE__) =        \
      ::weft::bench::register_suite({name, description, fn, summary_fn})
