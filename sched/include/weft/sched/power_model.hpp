#pragma once
// The power model (thesis §7.4 "Power Consumption", §7.5 "Estimate Power
// Consumption"): what one socket draws per active level (PowerInfo), where a
// topology's figures came from, and the estimated max power of running on a
// set of contexts. A Topology carries one model per socket
// (Topology::power(), with_power()); power.hpp measures it with RAPL;
// place(POWER) minimises the estimate; topology files save it
// (docs/topology-format.md).

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace weft::sched {

class Topology;

// Where a Topology's power figures came from (they are optional).
enum class PowerSource {
  None,       // no power figures (the default): power-oriented policies fall back to structure
  Estimated,  // given, not measured here (a topology file's "power" lines without "power-source measured",
              //   or values injected with with_power(..., Estimated))
  Measured,   // measured on this machine with Intel RAPL (power.hpp, thesis §7.4 "Power")
};
std::string_view to_string(PowerSource source);

// Power model of one socket, one increment per topology level (thesis §7.4
// "Power Consumption": idle power, power of the first hardware context, of the
// second core, and of the second context of a core, measured with the
// memory-intensive bandwidth workload; §5.3: "activating the first core of a
// socket is more expensive than activating any subsequent due to the
// activation of the uncore"). Watts. A socket with c active cores and h active
// contexts (h >= c >= 1) is estimated to draw at most
//   package: idle_w + socket_w + (c - 1) * core_w + (h - c) * context_w
//   DRAM:    dram_idle_w + dram_active_w
// and an inactive socket idle_w + dram_idle_w.
struct PowerInfo {
  double idle_w = 0;         // package power with none of the socket's contexts active
  double socket_w = 0;       // socket level: + the first active core (wakes the package / uncore)
  double core_w = 0;         // core level: + each further active core
  double context_w = 0;      // context level: + each further active hardware context of an active core (SMT)
  double dram_idle_w = 0;    // the socket's DRAM (RAPL "dram" domain), idle
  double dram_active_w = 0;  // + DRAM when the socket runs the memory-intensive workload (max)
  // Max package / DRAM power with `cores` active cores and `contexts` active contexts.
  double package_w(int cores, int contexts) const;
  double dram_w(bool active) const { return dram_idle_w + (active ? dram_active_w : 0); }
  bool operator==(const PowerInfo&) const = default;
};

// Estimated maximum power of running on a set of contexts (the thesis's Fig 7.5
// "Max pow no DRAM / with DRAM"), from the topology's power model (PowerInfo).
struct PowerEstimate {
  PowerSource source = PowerSource::None;
  std::vector<int> sockets;       // sockets used, in order of first use
  std::vector<double> package_w;  // per used socket: package power (idle included)
  std::vector<double> dram_w;     // per used socket: DRAM power (idle included)
  double unused_package_w = 0;    // idle package power of the sockets not used
  double unused_dram_w = 0;       // idle DRAM power of the sockets not used
  double used_package_w() const;  // sum of package_w ("max pow no DRAM" of Fig 7.5)
  double used_total_w() const;    // sum of package_w and dram_w ("max pow with DRAM")
  double machine_total_w() const; // used_total_w() plus the idle power of the unused sockets
};
// nullopt when the topology has no power model. Duplicate contexts count once.
std::optional<PowerEstimate> estimate_power(const Topology& topo, std::span<const int> contexts);

}  // namespace weft::sched
