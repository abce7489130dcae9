#include "steal_order.hpp"

#include <algorithm>
#include <mutex>

#include "weft/sched/placement.hpp"
#include "weft/sched/topology.hpp"

namespace weft::detail {

namespace {

// The machine as hwloc sees it, loaded once per process (start-up cost is paid once).
const sched::Topology& machine() {
  static const sched::Topology topology = sched::Topology::discover();
  return topology;
}

}  // namespace

std::vector<int> place_workers(const Config& config, const std::vector<int>& allowed) {
  const auto n = static_cast<std::size_t>(config.workers);
  if (config.placement.empty()) return {allowed.begin(), allowed.begin() + static_cast<long>(n)};
  sched::Policy policy = sched::parse_policy(config.placement);
  const sched::Topology& topo = machine();
  sched::Placement placement = sched::place(topo, policy, config.workers);
  std::vector<int> cpus;
  for (int ctx : placement.contexts) cpus.push_back(topo.os_cpu(ctx));
  return cpus;
}

std::vector<std::vector<int>> steal_orders(const std::vector<int>& cpus) {
  const int n = static_cast<int>(cpus.size());
  const bool pinned = std::all_of(cpus.begin(), cpus.end(), [](int c) { return c >= 0; });
  const sched::Topology* topo = pinned && n > 1 ? &machine() : nullptr;
  std::vector<std::vector<int>> orders(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    auto& order = orders[static_cast<std::size_t>(i)];
    for (int k = 1; k < n; ++k) order.push_back((i + k) % n);  // round-robin from i+1
    if (!topo) continue;
    auto latency_to = [&](int j) {
      int a = topo->context_of_os_cpu(cpus[static_cast<std::size_t>(i)]);
      int b = topo->context_of_os_cpu(cpus[static_cast<std::size_t>(j)]);
      return a < 0 || b < 0 ? 0.0 : topo->latency(a, b);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return latency_to(a) < latency_to(b); });
  }
  return orders;
}

}  // namespace weft::detail
