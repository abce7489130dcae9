#pragma once
// MCTOP-ALG step 1 (thesis §7.3.1, §7.3.5): measure context-to-context
// latencies with two pinned threads doing lock-step CAS round trips timed with
// the TSC, plus the DVFS warm-up and the SMT detection; and, to check the
// probe against, a plain ping-pong. The results feed mctop_alg.hpp's
// infer_topology(); infer_machine() runs the whole pipeline.

#include <functional>
#include <span>
#include <stdexcept>
#include <vector>

#include "weft/sched/mctop_alg.hpp"
#include "weft/sched/topology.hpp"

namespace weft::sched {

struct ProbeOptions {
  int repetitions = 2000;      // lock-step round trips per pair (thesis default n = 2000)
  double stdev_limit = 0.07;   // re-measure a pair whose percentile stdev / median exceeds this (7%)
  double stdev_step = 0.01;    // ... raising the limit this much on each retry, so it always ends
  int max_retries = 20;        // also the retries for a pair whose median fails the sanity check
  bool warm_up = true;         // DVFS: spin until an empty loop's time is stable before measuring
  // A table's pairs that fail the SMT sanity check (closer than two cores
  // can be, yet not SMT siblings) are measured again up to this many times
  // before the measurement fails with ProbeError.
  int max_remeasures = 3;
  // Called after each pair: (pairs done, pairs total). For progress output.
  std::function<void(int, int)> progress;
  // Called with a sentence for each pair measured again, and why.
  std::function<void(const std::string&)> note;
};

// The probe's measurements cannot be trusted: a value no cache-line transfer
// can have (cheaper than a CAS on the thread's own line), a thread not on the
// cpu it was pinned to, a timestamp counter too slow to time a transfer, or a
// lock step out of order. what() says which, with the numbers.
class ProbeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the probe measures on one cpu before it measures pairs, in TSC cycles.
struct ProbeCalibration {
  int os_cpu = -1;
  double timer_overhead = 0;  // median of an empty timed region; subtracted from every sample
  double local_cas = 0;       // median CAS on a line already Modified in this cpu's cache (overhead subtracted)
  double local_cas_p10 = 0;   // its 10th percentile: the floor of the sanity check
  double tsc_per_ns = 0;      // see tsc_per_ns()
  bool invariant_tsc = false; // /proc/cpuinfo has constant_tsc and nonstop_tsc: TSC cycles are wall time
};

// Pins the caller to os_cpu (restored on return) and measures its calibration.
// Throws ProbeError when reading the TSC costs so much (over 500 cycles, e.g.
// a hypervisor trapping rdtsc) that a transfer cannot be timed.
ProbeCalibration calibrate_probe(int os_cpu);

// Statistics of one pair's samples.
struct PairStats {
  double median = 0;     // cycles of the CAS that takes the line from the other cpu (timer overhead subtracted)
  double stdev_pct = 0;  // stdev of the samples between the 10th and 90th percentile, / median
  int retries = 0;
};

// Cycles per nanosecond of the timestamp counter (measured once against steady_clock).
double tsc_per_ns();

// Measures one pair (thread y on cpu_b holds the line Modified, thread x on
// cpu_a times its CAS); pins two threads and checks that each runs where it
// was pinned; restores the caller's affinity. Throws ProbeError when the
// median stays below cpu_a's local CAS (10th percentile) after max_retries,
// or when it is at most twice cpu_a's local CAS (only a shared L1 is that
// close) and detect_smt() says the two cpus do not share a core.
PairStats measure_pair(int os_cpu_a, int os_cpu_b, const ProbeOptions& options = {});

// Measures the upper triangle for the given OS cpus (ascending), lower
// triangle mirrored. Throws std::system_error if a cpu cannot be pinned,
// ProbeError as measure_pair() does.
LatencyTable measure_latency_table(std::span<const int> os_cpus, const ProbeOptions& options = {});

// The independent cross-check of the probe, and the method of the tables in
// tests/sched/data: a plain two-thread ping-pong on one 128-byte-aligned
// atomic. x stores 2r+1 and spins until it reads 2r+2; y spins until it reads
// 2r+1 and stores 2r+2. One-way latency = the median round trip (timer
// overhead subtracted) halved, the minimum over `runs` runs.
struct PingPongOptions {
  int round_trips = 2000;
  int runs = 3;
  std::function<void(int, int)> progress;  // (pairs done, pairs total), tables only
};
double measure_pingpong(int os_cpu_a, int os_cpu_b, const PingPongOptions& options = {});
LatencyTable measure_pingpong_table(std::span<const int> os_cpus, const PingPongOptions& options = {});

// §7.3.5 "Detecting SMT": a spin loop timed solo on cpu_a, then on cpu_a and
// cpu_b at once; true if it slows down by more than 30% (shared core).
bool detect_smt(int os_cpu_a, int os_cpu_b);

// Whether the table can describe SMT at all: every cpu has a partner within
// twice the closest pair's latency (a core's contexts are all that close to
// each other). A lone close pair is not a core: on a virtual machine the host
// can put two vCPUs on one physical core while that pair is measured (seen on
// a 16-vCPU KVM guest: cpus 4 and 8 at 26 cycles, every other pair 152-286,
// and the spin test, run right after, agreed). Empty string: plausible; else
// why not, naming the pair.
std::string smt_implausible_reason(const LatencyTable& table);

// This machine's step 1: the latency table of the allowed cpus, libnuma's
// node of each, the probe's calibration on the first cpu, and SMT detection
// on the closest pair, when smt_implausible_reason() lets the table have SMT.
struct MachineLatencies {
  LatencyTable table;
  std::vector<int> os_nodes;
  ProbeCalibration calibration;
  bool smt = false;
  std::string smt_note;  // why SMT was ruled out without the spin test, if it was
};
MachineLatencies measure_machine(const ProbeOptions& probe = {});

// Steps 2-4 on a measurement; num_nodes 0 = the number of distinct os_nodes.
AlgResult infer_measured(const MachineLatencies& measured, int num_nodes = 0);

// The whole pipeline on this machine.
struct InferOptions {
  ProbeOptions probe;
  int num_nodes = 0;  // 0 = ask libnuma
};
AlgResult infer_machine(const InferOptions& options = {});

}  // namespace weft::sched
