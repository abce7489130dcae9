#pragma once
// The MCTOP power plugin (thesis §7.4 "Power Consumption"): per-socket power
// measured with Intel RAPL through Linux powercap
// (/sys/class/powercap/intel-rapl:<pkg>[:<sub>]/energy_uj), under the same
// memory-intensive workload as the bandwidth plugin, giving the per-level
// model of power_model.hpp's PowerInfo. RAPL is optional: rapl_status() says
// whether it can be read and, if not, why; measure_power() throws
// PowerUnavailable with that reason. Without RAPL a model can still come
// from a topology file's "power" lines or Topology::with_power().

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/sched/topology.hpp"

namespace weft::sched {

// RAPL cannot be used here; what() says why (no powercap, no RAPL domains,
// counters readable by root only, a socket without a package domain, ...).
class PowerUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RaplDomain {
  std::string path;          // e.g. /sys/class/powercap/intel-rapl:0
  std::string name;          // "package-0", "dram", ...
  int package = -1;          // physical package id (from the package domain's "package-N" name)
  double max_energy_uj = 0;  // counter range (wrap-around), 0 if unknown
};

struct RaplStatus {
  bool available = false;
  std::string reason;                // why not, when !available
  std::vector<RaplDomain> packages;  // one per package, ascending id
  std::vector<RaplDomain> dram;      // DRAM subdomains; `package` = their package's id
  std::string describe() const;
};
// Looks for RAPL package domains under `powercap_root` and checks that their
// energy counters can be read. Never throws.
RaplStatus rapl_status(const std::string& powercap_root = "/sys/class/powercap");

// Energy counters in microjoules, in the order of status.packages / .dram.
struct RaplSample {
  std::vector<double> package_uj, dram_uj;
  std::chrono::steady_clock::time_point when;
};
RaplSample rapl_sample(const RaplStatus& status);  // throws PowerUnavailable on a read error
// Average watts between two samples, per package / DRAM domain; a counter
// that wrapped is corrected with its max_energy_uj.
struct RaplPower {
  std::vector<double> package_w, dram_w;
};
RaplPower rapl_power(const RaplStatus& status, const RaplSample& before, const RaplSample& after);

// Package and DRAM watts of every socket in the five measurement phases
// (index = socket): nothing running; the first context of the socket's first
// core; plus the first context of its second core; the first core's first
// two contexts (SMT); every context. DRAM: idle and every context.
struct PowerPhases {
  std::vector<double> idle, one_core, two_cores, two_contexts, all;
  std::vector<double> dram_idle, dram_all;
};
// The model: idle_w = idle; socket_w = one_core - idle; core_w = two_cores -
// one_core (0 for a one-core socket); context_w = two_contexts - one_core (0
// without SMT); dram_idle_w = dram_idle; dram_active_w = dram_all - dram_idle.
// Differences below 0 (measurement noise) become 0. Throws
// std::invalid_argument if a vector's size is not topo.num_sockets()
// (dram_* may be empty: no DRAM domain, DRAM figures 0).
std::vector<PowerInfo> power_model_from_phases(const PowerPhases& phases, const Topology& topo);

struct PowerProbeOptions {
  double interval_s = 0.5;                // energy measured over this long per phase
  double settle_s = 0.1;                  // after a phase starts, before measuring
  std::size_t buffer_bytes = 8u << 20;    // per active thread, read sequentially (memory-intensive)
  std::string powercap_root = "/sys/class/powercap";
  std::string cpu_sysfs_root = "/sys/devices/system/cpu";  // for each socket's physical_package_id
  std::function<void(const std::string& phase)> progress;
};
// Runs the five phases on this machine (one pinned thread per context of
// `topo`; threads not in a phase sleep) and returns a copy of topo with the
// measured model (PowerSource::Measured). topo must describe CPUs this
// process may run on. Throws PowerUnavailable (RAPL unreadable, a socket's
// package not found, a CPU that cannot be pinned).
Topology measure_power(const Topology& topo, const PowerProbeOptions& options = {});
// The measured phases themselves (measure_power = this + power_model_from_phases).
PowerPhases measure_power_phases(const Topology& topo, const PowerProbeOptions& options = {});

}  // namespace weft::sched
