#pragma once
// What the latency probe does with one pair's samples (internal; tests/sched
// reaches it through its private include path): their statistics, and the
// check that rejects a value no cache-line transfer can have.

#include <vector>

#include "weft/sched/latency_probe.hpp"

namespace weft::sched {

// Median and percentile stdev of a sample set.
PairStats pair_stats(std::vector<double> samples);

// The probe's sanity check on one pair: the line came from the other cpu, so
// its CAS cannot be cheaper than most CASes on a line the measuring cpu
// already holds (stats.median < calibration.local_cas_p10). Throws ProbeError
// naming both cpus and the numbers; measure_pair() retries a pair that fails
// and calls this when the retries are spent, so no such value reaches
// MCTOP-ALG's clustering.
void check_transfer(const PairStats& stats, const ProbeCalibration& calibration, int os_cpu_b);

}  // namespace weft::sched
