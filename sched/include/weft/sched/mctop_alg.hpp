#pragma once
// MCTOP-ALG (thesis §7.3): infer a machine's topology from a table of
// context-to-context communication latencies. The algorithm (steps 2-4) runs
// on an injected table, so it is testable with made-up machines; the
// measurement (step 1) lives in latency_probe.hpp.

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/sched/topology.hpp"

namespace weft::sched {

// An N x N table of latencies in cycles between hardware contexts (step 1's
// output). Only one triangle needs values: entry (a,b) and (b,a) are averaged
// when both are > 0, otherwise the positive one is used. The diagonal is ignored.
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
  // socket level (§7.3.4).
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
  // local node is the one with the lowest latency (§7.4 / the Opteron case,
  // [L2014], where the OS's mapping is wrong).
  std::vector<std::vector<double>> socket_node_latency;
  std::vector<int> node_ids;
};

// One inferred latency level (§7.3.3): the components of that level.
struct AlgLevel {
  LatencyCluster cluster;                    // its latency cluster; latency = cluster.median
  LevelRole role = LevelRole::Group;
  std::vector<std::vector<int>> components;  // contexts (row indices), ascending; empty above sockets
};

struct AlgResult {
  Topology topology;                     // latencies = the normalized table
  std::vector<LatencyCluster> clusters;  // ascending
  std::vector<AlgLevel> levels;          // ascending latency; levels above the socket level carry no components
  int socket_level = -1;                 // index into levels (-1: the whole machine is one context)
  bool smt = false;
};

// MCTOP-ALG failed (the reduction of step 3 could not be done, §7.3.5): the
// message says at which level and which contexts; retry with more repetitions.
class InferenceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Steps 2-4: normalize, build components level by level, assign roles.
AlgResult infer_topology(const LatencyTable& table, const AlgOptions& options);

}  // namespace weft::sched
