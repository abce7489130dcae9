// The power model (Trigonakis, "Towards Scalable Synchronization on
// Multi-Cores", EPFL thesis 7246, 2016, §7.4 "Power Consumption" and §7.5
// "Estimate Power Consumption"): a socket's per-level increments
// (PowerInfo), a topology's model (Topology::power, with_power) and the
// estimated max power of a set of contexts. Measuring it: rapl.cpp and
// power_probe.cpp; placing by it: power_placement.cpp.
#include "weft/sched/power_model.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "topology_impl.hpp"

namespace weft::sched {

std::string_view to_string(PowerSource source) {
  switch (source) {
    case PowerSource::None: return "none";
    case PowerSource::Estimated: return "estimated";
    case PowerSource::Measured: return "measured";
  }
  return "?";
}

double PowerInfo::package_w(int cores, int contexts) const {
  if (cores <= 0) return idle_w;
  return idle_w + socket_w + (cores - 1) * core_w + std::max(0, contexts - cores) * context_w;
}

PowerSource Topology::power_source() const { return impl_->power_source; }

PowerInfo Topology::power(int socket) const {
  if (socket < 0 || socket >= num_sockets())
    throw std::out_of_range("weft::sched::Topology::power: socket " + std::to_string(socket) + " out of range [0," +
                            std::to_string(num_sockets()) + ")");
  return impl_->power.empty() ? PowerInfo{} : impl_->power[static_cast<size_t>(socket)];
}

Topology Topology::with_power(std::vector<PowerInfo> per_socket, PowerSource source) const {
  const std::string who = "weft::sched::Topology::with_power: ";
  if (source == PowerSource::None) {
    if (!per_socket.empty())
      throw std::invalid_argument(who + "power figures given with PowerSource::None (use Estimated or Measured)");
  } else {
    if (static_cast<int>(per_socket.size()) != num_sockets())
      throw std::invalid_argument(who + std::to_string(per_socket.size()) + " socket power models given, but the topology has " +
                                  std::to_string(num_sockets()) + " sockets (give one per socket)");
    for (size_t s = 0; s < per_socket.size(); ++s) {
      const PowerInfo& p = per_socket[s];
      const std::pair<const char*, double> fields[] = {{"idle_w", p.idle_w},           {"socket_w", p.socket_w},
                                                       {"core_w", p.core_w},           {"context_w", p.context_w},
                                                       {"dram_idle_w", p.dram_idle_w}, {"dram_active_w", p.dram_active_w}};
      for (auto [name, v] : fields)
        if (!std::isfinite(v) || v < 0)
          throw std::invalid_argument(who + "socket " + std::to_string(s) + ": " + name + " = " + std::to_string(v) +
                                      " (watts must be finite and >= 0)");
    }
  }
  auto copy = std::make_shared<Impl>(*impl_);
  copy->power = std::move(per_socket);
  copy->power_source = source;
  return Topology(std::move(copy));
}

double PowerEstimate::used_package_w() const {
  double sum = 0;
  for (double w : package_w) sum += w;
  return sum;
}
double PowerEstimate::used_total_w() const {
  double sum = used_package_w();
  for (double w : dram_w) sum += w;
  return sum;
}
double PowerEstimate::machine_total_w() const { return used_total_w() + unused_package_w + unused_dram_w; }

std::optional<PowerEstimate> estimate_power(const Topology& t, std::span<const int> contexts) {
  if (!t.has_power_info()) return std::nullopt;
  PowerEstimate e;
  e.source = t.power_source();
  const int S = t.num_sockets();
  std::vector<std::set<int>> cores(S), ctxs(S);
  for (int c : contexts) {
    int s = t.socket_of(c);
    if (std::find(e.sockets.begin(), e.sockets.end(), s) == e.sockets.end()) e.sockets.push_back(s);
    cores[s].insert(t.core_of(c));
    ctxs[s].insert(c);
  }
  for (int s = 0; s < S; ++s) {
    PowerInfo pw = t.power(s);
    if (std::find(e.sockets.begin(), e.sockets.end(), s) == e.sockets.end()) {
      e.unused_package_w += pw.idle_w;
      e.unused_dram_w += pw.dram_idle_w;
    }
  }
  for (int s : e.sockets) {
    PowerInfo pw = t.power(s);
    e.package_w.push_back(pw.package_w(static_cast<int>(cores[s].size()), static_cast<int>(ctxs[s].size())));
    e.dram_w.push_back(pw.dram_w(true));
  }
  return e;
}

}  // namespace weft::sched
