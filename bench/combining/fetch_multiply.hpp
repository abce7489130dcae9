// The Fetch&Multiply benchmark of the Osci paper (§5): `ops` Fetch&Multiply
// operations in total on one shared 64-bit word, split evenly over the
// threads (or as many as fit in kRunCapNs), each followed by random local
// work of 1..W dummy loop iterations (common.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "../harness.hpp"

namespace weft::bench::combining {

struct FmRun {
  int cores = 1;  // weft workers, one pinned per core
  int k = 1;      // ULTs per worker (the paper's -x<k>); the originals use 1
  int w = 0;      // local work: up to w dummy iterations after each operation
  long ops = 0;   // total operations (fewer if the run reaches kRunCapNs)
};

// One synchronization algorithm of the sweep. `yielding` runs it with
// YieldWait on k ULTs per worker (the paper's "-x<k>" variants), `original`
// with SpinWait on one ULT per worker (the one-thread-per-core original).
// Each run verifies the final value (the product of every multiplier drawn,
// mod 2^64, all odd) and, where the algorithm counts them, that its combining
// stats saw exactly `ops` requests; it throws if not.
// Extra metrics: "Mops/s" (1000 / ns per op), "degree" (requests per
// combining round, CombiningStats;
// only for algorithms that keep stats) and "lat ns", the mean latency per
// operation by Little's law, threads * elapsed / ops: the mean time from one
// of a thread's operations to its next (apply, time switched out to the other
// ULTs of its core, its local work). The paper's Table 3 latencies relate to
// its throughputs this way (Osci-x4: 3.81x CC-Synch's throughput for < 5%
// more latency, 4 / 3.81 = 1.05).
struct FmAlgo {
  std::string name;  // e.g. "CC-Synch"; rows are "CC-Synch-x8" and "CC-Synch"
  std::function<Measurement(const FmRun&)> yielding;
  std::function<Measurement(const FmRun&)> original;
};

// The algorithms of the sweep, Osci first (it is the "weft" row of each case).
const std::vector<FmAlgo>& fm_algorithms();

// The paper's ideal (§5, Figure 3): the sequential Fetch&Multiply with the
// same local work on one pinned core (one core's share, ops / cores, or
// kRunCapNs), its throughput times `cores`. total_ns = that core's elapsed /
// cores (the wall time of a perfect parallel run), ops = the operations it did.
Measurement fm_ideal(int cores, int w, long ops);

}  // namespace weft::bench::combining
