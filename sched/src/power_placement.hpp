#pragma once
// POWER with a power model (internal; see place() in placement.hpp): the
// contexts whose estimated max power is least.

#include <vector>

#include "weft/sched/topology.hpp"

namespace weft::sched::detail {

// n contexts from the sockets in `allowed` (n <= their contexts), used sockets
// most threads first (then by index), each in its cheapest order.
std::vector<int> power_placement(const Topology& t, const std::vector<int>& allowed, int n);

}  // namespace weft::sched::detail
