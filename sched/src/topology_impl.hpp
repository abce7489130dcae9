#pragma once
// What a Topology holds (internal): the parts it was made from and the
// indexes derived from them once, at construction (topology_parts.cpp).

#include <map>
#include <string>
#include <vector>

#include "weft/sched/topology.hpp"

namespace weft::sched {

struct Topology::Impl {
  std::vector<ContextInfo> ctx;
  std::vector<double> lat;  // N*N
  LatencySource source = LatencySource::Estimated;
  std::string description;

  std::vector<std::vector<int>> core_ctx;
  std::vector<int> core_socket;
  std::vector<std::vector<int>> socket_ctx;
  std::vector<std::vector<int>> socket_cores;
  std::vector<int> socket_node;
  std::vector<int> nodes;
  std::vector<double> socket_lat;  // S*S
  std::vector<TopologyLevel> levels;
  std::map<int, int> os_to_ctx;
  std::map<int, MemoryInfo> memory;
  std::vector<PowerInfo> power;  // per socket, empty when power_source == None
  PowerSource power_source = PowerSource::None;
  int max_per_core = 1;

  int n() const { return static_cast<int>(ctx.size()); }
};

namespace detail {

// The latency levels of a validated topology (topology_levels.cpp).
std::vector<TopologyLevel> compute_levels(const Topology::Impl& t);

}  // namespace detail

}  // namespace weft::sched
