#pragma once
// The machine as MCTOP sees it (thesis §7.2, Table 7.1): hardware contexts,
// cores, per-latency-level groups of contexts, sockets, NUMA nodes, and a
// context-to-context latency table, plus optional per-node memory figures.
// ("The thesis" here and in the other sched headers: V. Trigonakis, "Towards
// Scalable Synchronization on Multi-Cores", EPFL thesis 7246, 2016, whose
// chapter 7 is MCTOP.)
//
// Units: every latency in this header is in CYCLES (TSC cycles when measured
// by MCTOP-ALG, see mctop_alg.hpp; the thesis's Ivy cycle figures when
// estimated from the hwloc hierarchy). Memory latency is in nanoseconds and
// bandwidth in GB/s (10^9 bytes per second).

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/sched/power_model.hpp"

namespace weft::sched {

// Where a Topology's latencies came from.
enum class LatencySource {
  Estimated,  // derived from the hwloc hierarchy (no measurement)
  Measured,   // MCTOP-ALG lock-step CAS measurements (§7.3.1), normalized (§7.3.2)
};

// What a latency level is (§7.3.4 "roles").
enum class LevelRole {
  Core,         // the groups are exactly the physical cores (SMT siblings)
  Group,        // groups inside a socket: cores sharing a cache, a die, ...
  Socket,       // the groups are exactly the sockets
  CrossSocket,  // groups of sockets (cross-socket connectivity)
};
std::string_view to_string(LevelRole role);
std::string_view to_string(LatencySource source);

// One latency level: contexts that talk to each other at <= `latency` cycles
// form one group (an MCTOP hwc_group level, or socket level, or above).
struct TopologyLevel {
  double latency = 0;                    // cycles
  LevelRole role = LevelRole::Group;
  std::vector<std::vector<int>> groups;  // context indices, ascending; groups ordered by first member
};

// Per-NUMA-node memory figures (MCTOP enrichment, §7.4). 0 means "not measured".
struct MemoryInfo {
  double latency_ns = 0;            // random pointer-chase latency from a local context
  double bandwidth_gbs = 0;         // read bandwidth, all local contexts together (sum)
  double bandwidth_single_gbs = 0;  // read bandwidth of one local thread
  bool measured() const { return latency_ns > 0 || bandwidth_gbs > 0 || bandwidth_single_gbs > 0; }
};

// The placement-relevant facts about one hardware context.
struct ContextInfo {
  int os_cpu = -1;  // OS CPU id (what sched_setaffinity takes)
  int core = -1;    // core index, 0..num_cores()-1
  int socket = -1;  // socket index, 0..num_sockets()-1
  int node = -1;    // OS NUMA node id (what numa_alloc_onnode takes)
};

// An immutable, cheaply copyable (shared) description of a machine. Contexts
// are indexed 0..N-1 in ascending OS CPU id order; cores are numbered in order
// of their first context, sockets likewise.
class Topology {
 public:
  // The real machine: one hwloc load, restricted to this thread's affinity mask
  // (allowed_cpus()); latencies estimated from the hierarchy (see
  // estimated_latency()). No measurement. Throws std::runtime_error on failure.
  static Topology discover();
  // A machine described by an hwloc synthetic string, e.g. "pack:2 core:10 pu:2"
  // or "pack:4 [numa] core:8 pu:1". Throws std::invalid_argument naming the string.
  static Topology from_hwloc_synthetic(std::string_view desc);
  // A machine from an hwloc XML export (lstopo --of xml). Throws std::runtime_error.
  static Topology from_hwloc_xml(const std::string& path);
  // A machine from explicit parts (used by MCTOP-ALG, the file loader, tests).
  // `latency` is N*N, row-major, symmetric, zero diagonal. Validates everything
  // and throws std::invalid_argument saying what is inconsistent.
  static Topology from_parts(std::vector<ContextInfo> contexts, std::vector<double> latency,
                             LatencySource source, std::string description = {});

  // The latency estimate scale (thesis §7.3, Ivy: L1 4, other core same socket
  // 112, cross-socket 308 cycles) used when nothing is measured:
  //   same context 0; same core 4; sharing a cache/die/group smaller than the
  //   package 42; same package 112; other package, same NUMA node 308;
  //   other NUMA node 308 * (hwloc NUMA distance / nearest remote distance) or 308.
  static constexpr double kSameCore = 4, kSharedCache = 42, kSameSocket = 112, kCrossSocket = 308;

  int num_contexts() const;
  int num_cores() const;
  int num_sockets() const;
  int num_nodes() const;

  int os_cpu(int ctx) const;
  int context_of_os_cpu(int os_cpu) const;  // -1 if that CPU is not in the topology
  int core_of(int ctx) const;
  int socket_of(int ctx) const;
  int node_of(int ctx) const;  // OS NUMA node id
  const ContextInfo& context(int ctx) const;

  // Contexts of a core / socket, ascending; cores of a socket, ascending.
  const std::vector<int>& core_contexts(int core) const;
  const std::vector<int>& socket_contexts(int socket) const;
  const std::vector<int>& socket_cores(int socket) const;
  int socket_of_core(int core) const;
  // OS NUMA node ids present, ascending; and the (majority) local node of a socket.
  const std::vector<int>& node_ids() const;
  int socket_node(int socket) const;
  // Number of hardware contexts of the fullest core (1 = no SMT).
  int max_contexts_per_core() const;
  bool has_smt() const { return max_contexts_per_core() > 1; }

  double latency(int ctx_a, int ctx_b) const;  // cycles; 0 on the diagonal
  // Max context-to-context latency between two sockets (0 for s == s).
  double socket_latency(int socket_a, int socket_b) const;
  // All contexts sorted by latency from ctx (ctx itself first), ties by index.
  std::vector<int> by_distance(int ctx) const;
  // Max pairwise latency among the given contexts (0 for fewer than two).
  double max_latency(std::span<const int> ctxs) const;
  // Min non-zero pairwise latency among distinct given contexts (0 if none).
  double min_latency(std::span<const int> ctxs) const;

  // Latency levels, ascending (level 0, the contexts themselves, is implicit).
  const std::vector<TopologyLevel>& levels() const;
  // Distinct latency values of the table, ascending, without 0.
  std::vector<double> latency_values() const;

  LatencySource latency_source() const;
  const std::string& description() const;  // e.g. "hwloc: this machine", "synthetic: ..."

  // Memory figures of an OS node (all zero when not measured).
  MemoryInfo memory(int os_node) const;
  bool has_memory_info() const;
  // A copy with the memory figures of one node set (enrichment, §7.4).
  Topology with_memory(int os_node, const MemoryInfo& info) const;

  // Power model (enrichment, §7.4 "Power"): per socket, or nothing.
  PowerSource power_source() const;
  bool has_power_info() const { return power_source() != PowerSource::None; }
  // The model of one socket (all zero without power figures).
  PowerInfo power(int socket) const;
  // A copy with a power model: one PowerInfo per socket (index = socket), every
  // value finite and >= 0, and source Estimated or Measured; or an empty
  // vector with PowerSource::None to drop the figures. Throws
  // std::invalid_argument saying what is wrong.
  Topology with_power(std::vector<PowerInfo> per_socket, PowerSource source) const;

  // The full latency table, row-major N*N.
  const std::vector<double>& latency_table() const;

  // Human-readable tree (sockets > levels > cores > contexts) and latency table.
  std::string to_string() const;
  std::string to_json() const;

  struct Impl;

 private:
  explicit Topology(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace weft::sched
