#pragma once
// Where the workers run and in which order each one tries the others when it
// looks for work to steal, both from the sched layer's machine model.

#include <string>
#include <vector>

#include "weft/runtime/config.hpp"
#include "weft/sched/topology.hpp"

namespace weft::detail {

// The machine model the runtime places workers on: the saved topology in
// `file` (Config::topology_file) or, when empty, hwloc's view of this
// machine. Loaded once per process and file. Throws std::runtime_error
// naming the file (and line) when it cannot be read or parsed.
const sched::Topology& machine_topology(const std::string& file);
// True when machine_topology(file) would return at once.
bool machine_topology_loaded(const std::string& file);

// OS CPU of each of config.workers workers (config.workers <= allowed.size()):
// by config.placement (an MCTOP-PLACE policy name) or, when empty, the first
// allowed CPUs in order. Throws std::invalid_argument for an unknown policy or
// a placement on CPUs outside `allowed` (possible with a topology file).
std::vector<int> place_workers(const Config& config, const std::vector<int>& allowed);

// For each worker, the other workers nearest first (by the topology's
// context-to-context latency; ties: the next worker index first, wrapping).
// cpus[i] == -1 (unpinned) has no distance: plain round-robin order.
std::vector<std::vector<int>> steal_orders(const Config& config, const std::vector<int>& cpus);
// Whether steal_orders() consults the topology for these CPUs (more than one
// worker, all pinned); if not, it is round_robin_orders().
bool steal_order_uses_topology(const std::vector<int>& cpus);
// Worker i tries i+1, i+2, ... wrapping.
std::vector<std::vector<int>> round_robin_orders(int workers);

}  // namespace weft::detail
