#include "steal_order.hpp"

#include <algorithm>
#include <limits>

#include "machine_topology.hpp"
#include "weft/runtime/stats.hpp"

namespace weft::detail {

namespace {
// Latency between the CPUs of workers i and j; a CPU the model does not
// describe has no known distance (infinity: tried last).
double worker_latency(const sched::Topology& topo, const std::vector<int>& cpus, int i, int j) {
  int a = topo.context_of_os_cpu(cpus[static_cast<std::size_t>(i)]);
  int b = topo.context_of_os_cpu(cpus[static_cast<std::size_t>(j)]);
  return a < 0 || b < 0 ? std::numeric_limits<double>::infinity() : topo.latency(a, b);
}

std::vector<std::vector<std::uint8_t>> zero_classes(const std::vector<std::vector<int>>& orders) {
  std::vector<std::vector<std::uint8_t>> classes;
  for (const auto& order : orders) classes.emplace_back(order.size(), 0);
  return classes;
}
}  // namespace

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
    auto latency_to = [&](int j) { return worker_latency(*topo, cpus, i, j); };
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return latency_to(a) < latency_to(b); });
  }
  return orders;
}

StealOrders round_robin_orders_with_distances(int workers) {
  StealOrders s{round_robin_orders(workers), {}};
  s.distance_class = zero_classes(s.victims);
  return s;
}

StealOrders steal_orders_with_distances(const Config& config, const std::vector<int>& cpus) {
  StealOrders s{steal_orders(config, cpus), {}};
  s.distance_class = zero_classes(s.victims);
  if (!steal_order_uses_topology(cpus)) return s;
  const sched::Topology& topo = machine_topology(config.topology_file);
  for (std::size_t i = 0; i < s.victims.size(); ++i) {
    // The order is sorted by latency: the class goes up at each new latency.
    int rank = 0;
    double previous = -1;
    for (std::size_t k = 0; k < s.victims[i].size(); ++k) {
      const double latency = worker_latency(topo, cpus, static_cast<int>(i), s.victims[i][k]);
      if (k > 0 && latency != previous) ++rank;
      previous = latency;
      s.distance_class[i][k] = static_cast<std::uint8_t>(std::min(rank, kStealDistanceClasses - 1));
    }
  }
  return s;
}

}  // namespace weft::detail
