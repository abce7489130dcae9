#pragma once
// In which order each worker tries the others when it looks for work to
// steal (internal), from the machine model's latencies.

#include <cstdint>
#include <vector>

#include "weft/runtime/config.hpp"

namespace weft::detail {

// For each worker, the other workers nearest first (by the topology's
// context-to-context latency; ties: the next worker index first, wrapping).
// cpus[i] == -1 (unpinned) has no distance: plain round-robin order. A
// worker on a CPU the topology does not describe comes after all the others.
std::vector<std::vector<int>> steal_orders(const Config& config, const std::vector<int>& cpus);
// Whether steal_orders() consults the topology for these CPUs (more than one
// worker, all pinned); if not, it is round_robin_orders().
bool steal_order_uses_topology(const std::vector<int>& cpus);
// Worker i tries i+1, i+2, ... wrapping.
std::vector<std::vector<int>> round_robin_orders(int workers);

// The steal orders with each victim's distance class (weft/runtime/stats.hpp:
// its rank among the distinct latencies from the thief, capped at
// kStealDistanceClasses - 1; 0 for every victim without a topology).
struct StealOrders {
  std::vector<std::vector<int>> victims;
  std::vector<std::vector<std::uint8_t>> distance_class;
};
StealOrders steal_orders_with_distances(const Config& config, const std::vector<int>& cpus);
StealOrders round_robin_orders_with_distances(int workers);

}  // namespace weft::detail
