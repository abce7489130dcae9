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

namespace {
// Loaded once per process and file; entries are never removed, so
// references stay valid.
std::mutex& topology_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<std::string, std::unique_ptr<const sched::Topology>>& loaded_topologies() {
  static std::map<std::string, std::unique_ptr<const sched::Topology>> loaded;
  return loaded;
}
}  // namespace

const sched::Topology& machine_topology(const std::string& file) {
  std::lock_guard lock(topology_mutex());
  auto& loaded = loaded_topologies();
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

bool machine_topology_loaded(const std::string& file) {
  std::lock_guard lock(topology_mutex());
  auto it = loaded_topologies().find(file);
  return it != loaded_topologies().end() && it->second;
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
      return a < 0 || b < 0 ? 0.0 : topo->latency(a, b);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return latency_to(a) < latency_to(b); });
  }
  return orders;
}

}  // namespace weft::detail
