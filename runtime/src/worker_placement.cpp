#include "worker_placement.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "machine_topology.hpp"
#include "weft/sched/cpuset.hpp"
#include "weft/sched/placement.hpp"

namespace weft::detail {

namespace {

std::string cpu_list(const std::vector<int>& cpus) {
  std::string s;
  for (int c : cpus) {
    if (!s.empty()) s += ',';
    s += std::to_string(c);
  }
  return s;
}

// By config.placement (an MCTOP-PLACE policy), or the first allowed CPUs.
std::vector<int> placed_cpus(const Config& config, const std::vector<int>& allowed) {
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

}  // namespace

std::vector<int> worker_cpus_for(Config& config) {
  std::vector<int> allowed = sched::allowed_cpus();
  if (config.workers < 0)
    throw std::invalid_argument("weft: Config::workers = " + std::to_string(config.workers) +
                                " is negative (0 means one worker per allowed CPU)");
  if (!config.cpus.empty()) {
    if (config.workers == 0) config.workers = static_cast<int>(config.cpus.size());
    if (static_cast<int>(config.cpus.size()) != config.workers)
      throw std::invalid_argument("weft: Config::cpus lists " + std::to_string(config.cpus.size()) +
                                  " CPUs but Config::workers is " + std::to_string(config.workers));
    for (int cpu : config.cpus)
      if (config.pin_workers && std::find(allowed.begin(), allowed.end(), cpu) == allowed.end())
        throw std::invalid_argument("weft: Config::cpus names CPU " + std::to_string(cpu) +
                                    ", which this process may not run on (allowed: " + cpu_list(allowed) + ")");
    return config.cpus;
  }
  if (config.workers == 0) config.workers = sched::default_worker_count();
  if (config.workers > static_cast<int>(allowed.size())) {
    if (config.pin_workers)
      throw std::invalid_argument(
          "weft: Config::workers = " + std::to_string(config.workers) + " but only " +
          std::to_string(allowed.size()) + " CPUs are allowed to this process (" + cpu_list(allowed) +
          "); use fewer workers, or set pin_workers = false (WEFT_PIN=0) to oversubscribe");
    return std::vector<int>(static_cast<std::size_t>(config.workers), -1);
  }
  return placed_cpus(config, allowed);
}

}  // namespace weft::detail
