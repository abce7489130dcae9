#include "steal_order.hpp"

#include <algorithm>
#include <limits>

#include "machine_topology.hpp"

namespace weft::detail {

bool steal_order_uses_topology(const std::vector<int>& cpus) {
  return cpus.size() > 1 && std::all_of(cpus.begin(), cpus.end(), [](int c) { return c >= 0; });
}

std::vector<std::vector<int>> round_robin_orders(int n) {
  std::vector<std::vector<int>> orders(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int k = 1; k < n; ++k) orders[static_cast<std::size_t>(i)].push_back((i + k) % n);
  return orders;
}

std::vector<std::vector<int>> steal_orders(const Config& config, const std::vector<int>& cpus) {
  const int n = static_cast<int>(cpus.size());
  std::vector<std::vector<int>> orders = round_robin_orders(n);
  if (!steal_order_uses_topology(cpus)) return orders;
  const sched::Topology* topo = &machine_topology(config.topology_file);
  for (int i = 0; i < n; ++i) {
    auto& order = orders[static_cast<std::size_t>(i)];
    auto latency_to = [&](int j) {
      int a = topo->context_of_os_cpu(cpus[static_cast<std::size_t>(i)]);
      int b = topo->context_of_os_cpu(cpus[static_cast<std::size_t>(j)]);
      // A CPU the model does not describe has no known distance: tried last.
      return a < 0 || b < 0 ? std::numeric_limits<double>::infinity() : topo->latency(a, b);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return latency_to(a) < latency_to(b); });
  }
  return orders;
}

}  // namespace weft::detail
