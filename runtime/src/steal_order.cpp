#include "steal_order.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "weft/sched/placement.hpp"
#include "weft/sched/topology_io.hpp"

namespace weft::detail {

const sched::Topology& machine_topology(const std::string& file) {
  // Start-up cost is paid once per process and file; entries are never
  // removed, so references stay valid.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<const sched::Topology>> loaded;
  std::lock_guard lock(mutex);
  auto& slot = loaded[file];
  if (!slot) {
    if (file.empty()) {
      slot = std::make_unique<const sched::Topology>(sched::Topology::discover());
    } else {
      try {
        slot = std::make_unique<const sched::Topology>(sched::load_topology(file));
      } catch (const std::exception& e) {
        loaded.erase(file);
        throw std::runtime_error(std::string("weft: topology file (Config::topology_file / WEFT_TOPOLOGY): ") +
                                 e.what());
      }
    }
  }
  return *slot;
}

std::vector<int> place_workers(const Config& config, const std::vector<int>& allowed) {
  const auto n = static_cast<std::size_t>(config.workers);
  if (config.placement.empty() && config.topology_file.empty())
    return {allowed.begin(), allowed.begin() + static_cast<long>(n)};
  sched::Policy policy = config.placement.empty() ? sched::Policy::Sequential : sched::parse_policy(config.placement);
  const sched::Topology& topo = machine_topology(config.topology_file);
  sched::Placement placement = sched::place(topo, policy, config.workers);
  std::vector<int> cpus;
  for (int ctx : placement.contexts) {
    const int cpu = topo.os_cpu(ctx);
    if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end())
      throw std::invalid_argument("weft: placement " + (config.placement.empty() ? std::string("SEQUENTIAL") : config.placement) +
                                  " on " + topo.description() + " puts a worker on OS CPU " + std::to_string(cpu) +
                                  ", which this process may not run on (is the topology file from another machine?)");
    cpus.push_back(cpu);
  }
  return cpus;
}

std::vector<std::vector<int>> steal_orders(const Config& config, const std::vector<int>& cpus) {
  const int n = static_cast<int>(cpus.size());
  const bool pinned = std::all_of(cpus.begin(), cpus.end(), [](int c) { return c >= 0; });
  const sched::Topology* topo = pinned && n > 1 ? &machine_topology(config.topology_file) : nullptr;
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
