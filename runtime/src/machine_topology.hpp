#pragma once
// The machine model the runtime places workers on and orders steal victims
// by (internal): a saved topology file or hwloc's view of this machine,
// loaded once per process and file.

#include <string>

#include "weft/sched/topology.hpp"

namespace weft::detail {

// The saved topology in `file` (Config::topology_file) or, when empty,
// hwloc's view of this machine. Throws std::runtime_error naming the file
// (and line) when it cannot be read or parsed. Loaded models stay for the
// life of the process (references remain valid; never destroyed, so a
// detached loader thread may still finish during exit).
const sched::Topology& machine_topology(const std::string& file);
// True when machine_topology(file) would return at once.
bool machine_topology_loaded(const std::string& file);

}  // namespace weft::detail
