#pragma once
// MCTOP-ALG (thesis §7.3): infer a machine's topology from a table of
// context-to-context communication latencies. The algorithm (steps 2-4) runs
// on an injected table, so it is testable with made-up machines; the
// measurement (step 1) lives in latency_probe.hpp.

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "weft/sched/topology.hpp"

namespace weft::sched {

// An N x N table of latencies in cycles between hardware contexts (step 1's
// output). Only one triangle needs values: entries (a,b) and (b,a) are averaged
// when both are > 0 and fall in one cluster of all the table's entries, the
// lower one is used when they fall in different clusters (interference only
// ever adds latency; reported as InferenceDiagnostic::Asymmetric), and the
// positive one when the other is 0 (not measured). The diagonal is ignored. Text format:
// latency_table_io.hpp.
struct LatencyTable {
  std::vector<int> os_cpus;    // OS cpu of each row, ascending
  std::vector<double> values;  // N*N, row-major
  int size() const { return static_cast<int>(os_cpus.size()); }
  double at(int a, int b) const { return values[static_cast<size_t>(a) * os_cpus.size() + b]; }
  double& at(int a, int b) { return values[static_cast<size_t>(a) * os_cpus.size() + b]; }
};

// One value cluster of the latency CDF (§7.3.2): the triplet (min, median, max).
struct LatencyCluster {
  double min = 0, median = 0, max = 0;
  int count = 0;  // table entries (one triangle) in the cluster
};

// Step 2: clusters the sorted values; a new cluster starts where the next value
// exceeds the previous one by more than max(abs_gap, rel_gap * previous).
std::vector<LatencyCluster> cluster_latencies(std::vector<double> values, double rel_gap = 0.10,
                                              double abs_gap = 2.0);

struct AlgOptions {
  // Number of memory nodes: the level with this many components is the
  // socket level (§7.3.4). When no level has exactly this many, the sockets
  // are the components of the first level with fewer, split by
  // os_node_of_row when given (InferenceDiagnostic::NodeCount).
  int num_nodes = 1;
  // Whether the contexts have SMT (§7.3.5 measures it: latency_probe.hpp's
  // detect_smt). nullopt: guess "SMT" when the first level's latency is below
  // a third of the next level's and its groups have 2..8 contexts.
  std::optional<bool> smt;
  double rel_gap = 0.10;  // clustering, see cluster_latencies()
  double abs_gap = 2.0;
  // The OS's node of each row's cpu (same order as the table), used to name
  // each inferred socket's node by majority. Empty: sockets get nodes 0..S-1.
  std::vector<int> os_node_of_row;
  // Optional memory latency from each inferred socket (row) to each OS node
  // (column, in ascending node id order `node_ids`): when given, each socket's
  // local node is the one with the lowest latency (§7.4 / the Opteron case
  // of §7.1, where the OS's mapping is wrong).
  std::vector<std::vector<double>> socket_node_latency;
  std::vector<int> node_ids;
};

// One inferred latency level (§7.3.3): the components of that level.
struct AlgLevel {
  LatencyCluster cluster;                    // its latency cluster; latency = cluster.median
  LevelRole role = LevelRole::Group;
  std::vector<std::vector<int>> components;  // contexts (row indices), ascending; empty above sockets
};

// Something in the table that does not fit the uniform hierarchy §7.3.3
// assumes, and how infer_topology() resolved it instead of stopping (§7.3.5
// stops: "the user must retry"). Messages name OS cpus, not rows.
struct InferenceDiagnostic {
  enum class Kind {
    Asymmetric,     // (a,b) and (b,a) in different clusters: the lower one is used
    LevelResolved,  // a level's components break the §7.3.3 definition: grouped by majority linkage
    NodeCount,      // no level has one component per memory node: how the sockets were chosen
    Misfit,         // a pair whose latency disagrees with the inferred hierarchy: set to the hierarchy's
  };
  Kind kind = Kind::Misfit;
  int a = -1, b = -1;    // table rows of the pair (Asymmetric, Misfit); -1 otherwise
  double measured = 0;   // cycles: the table's value for the pair (Asymmetric: the lower of the two)
  double resolved = 0;   // cycles: the value in the result's latency table (Misfit)
  std::string message;   // one line, for people
};
std::string_view to_string(InferenceDiagnostic::Kind kind);

struct AlgResult {
  Topology topology;                     // latencies = the normalized table (misfits resolved)
  std::vector<LatencyCluster> clusters;  // ascending: every cluster of the CDF, used by a level or not
  std::vector<AlgLevel> levels;          // ascending latency; levels above the socket level carry no components
  int socket_level = -1;                 // index into levels (-1: the whole machine is one context)
  bool smt = false;
  // Empty when the table is a uniform hierarchy: the result is then exactly
  // the thesis's. Otherwise every misfit pair and every deviation, in order.
  std::vector<InferenceDiagnostic> diagnostics;
  bool uniform() const { return diagnostics.empty(); }
};

// The input to infer_topology() is malformed: wrong sizes, rows not in
// ascending cpu order, a negative, non-finite or missing latency, options
// that do not fit the table. The message names the problem. A table that is
// well formed but not a clean hierarchy is no error: see AlgResult::diagnostics.
class InferenceError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Steps 2-4: normalize, build components level by level, assign roles.
//
// Clean tables take the thesis's path (§7.3.3 classification and reduction).
// Where a level's components break the §7.3.3 definition (the reduction the
// thesis uses to detect failure, §7.3.5), that level is grouped by majority
// linkage instead: two groups merge when at least half of the context pairs
// between them talk at the level's latency or lower. Pairs that disagree with
// the resulting hierarchy are misfits: listed in `diagnostics` and set to the
// hierarchy's latency in the result (docs/topology-format.md, "Inference on
// virtual machines", gives the reasons).
AlgResult infer_topology(const LatencyTable& table, const AlgOptions& options);

}  // namespace weft::sched
