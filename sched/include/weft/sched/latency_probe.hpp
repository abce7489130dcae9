#pragma once
// MCTOP-ALG step 1 (thesis §7.3.1, §7.3.5): measure context-to-context
// latencies with two pinned threads doing lock-step CAS round trips timed with
// the TSC, plus the DVFS warm-up and the SMT detection. The results feed
// mctop_alg.hpp's infer_topology(); infer_machine() runs the whole pipeline.

#include <functional>
#include <span>
#include <vector>

#include "weft/sched/mctop_alg.hpp"
#include "weft/sched/topology.hpp"

namespace weft::sched {

struct ProbeOptions {
  int repetitions = 2000;      // lock-step round trips per pair (thesis default n = 2000)
  double stdev_limit = 0.07;   // re-measure a pair whose percentile stdev / median exceeds this (7%)
  double stdev_step = 0.01;    // ... raising the limit this much on each retry, so it always ends
  int max_retries = 20;
  bool warm_up = true;         // DVFS: spin until an empty loop's time is stable before measuring
  // Called after each pair: (pairs done, pairs total). For progress output.
  std::function<void(int, int)> progress;
};

// Statistics of one pair's samples.
struct PairStats {
  double median = 0;     // cycles, local CAS cost subtracted (>= 1)
  double stdev_pct = 0;  // stdev of the samples between the 10th and 90th percentile, / median
  int retries = 0;
};

// Median and percentile stdev of a sample set (exposed for tests).
PairStats pair_stats(std::vector<double> samples);

// Cycles per nanosecond of the timestamp counter (measured once against steady_clock).
double tsc_per_ns();

// Measures one pair (thread y on cpu_b holds the line Modified, thread x on
// cpu_a times its CAS); pins two threads; restores nothing it did not change.
PairStats measure_pair(int os_cpu_a, int os_cpu_b, const ProbeOptions& options = {});

// Measures the upper triangle for the given OS cpus (ascending), lower
// triangle mirrored. Throws std::system_error if a cpu cannot be pinned.
LatencyTable measure_latency_table(std::span<const int> os_cpus, const ProbeOptions& options = {});

// §7.3.5 "Detecting SMT": a spin loop timed solo on cpu_a, then on cpu_a and
// cpu_b at once; true if it slows down by more than 30% (shared core).
bool detect_smt(int os_cpu_a, int os_cpu_b);

// The whole pipeline on this machine: allowed cpus, number of memory nodes
// (libnuma: nodes holding allowed cpus, or options override), measurement,
// SMT detection on the closest pair, inference, OS node names.
struct InferOptions {
  ProbeOptions probe;
  int num_nodes = 0;  // 0 = ask libnuma
};
AlgResult infer_machine(const InferOptions& options = {});

}  // namespace weft::sched
