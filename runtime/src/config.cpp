#include <cerrno>
#include <cstdlib>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "machine_topology.hpp"
#include "trace_session.hpp"
#include "weft/runtime/config.hpp"
#include "weft/sched/cpuset.hpp"
#include "weft/sched/omp_places.hpp"
#include "weft/sched/placement.hpp"
#include "weft/sched/topology.hpp"

namespace weft {

namespace {

[[noreturn]] void bad(const char* var, const std::string& value, const std::string& expected) {
  throw std::invalid_argument(std::string("weft: environment variable ") + var + "='" + value +
                              "' is invalid: expected " + expected);
}

long long parse_integer(const char* var, const std::string& value, long long lo, long long hi,
                        const std::string& expected) {
  if (value.empty()) bad(var, value, expected);
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) bad(var, value, expected);
  return v;
}

std::size_t parse_bytes(const char* var, const std::string& value) {
  const std::string expected = "a byte count such as 262144, 256K or 1M (16K..1G)";
  if (value.empty()) bad(var, value, expected);
  std::string digits = value;
  std::size_t scale = 1;
  char suffix = value.back();
  if (suffix == 'K' || suffix == 'k') scale = 1024;
  if (suffix == 'M' || suffix == 'm') scale = 1024 * 1024;
  if (suffix == 'G' || suffix == 'g') scale = 1024ull * 1024 * 1024;
  if (scale != 1) digits.pop_back();
  long long n = parse_integer(var, digits, 1, std::numeric_limits<int>::max(), expected);
  auto bytes = static_cast<std::size_t>(n) * scale;
  if (bytes < 16 * 1024 || bytes > 1024ull * 1024 * 1024) bad(var, value, expected);
  return bytes;
}

bool parse_flag(const char* var, const std::string& value) {
  if (value == "1" || value == "true" || value == "yes") return true;
  if (value == "0" || value == "false" || value == "no") return false;
  bad(var, value, "1, true or yes, or 0, false or no");
}

}  // namespace

Config Config::from_env(Config base) {
  if (const char* v = std::getenv("WEFT_WORKERS"))
    base.workers = static_cast<int>(
        parse_integer("WEFT_WORKERS", v, 0, 4096, "a worker count from 0 (= one per CPU) to 4096"));
  if (const char* v = std::getenv("WEFT_STACK_SIZE")) base.stack_size = parse_bytes("WEFT_STACK_SIZE", v);
  const char* weft_pin = std::getenv("WEFT_PIN");
  if (const char* v = weft_pin) base.pin_workers = parse_flag("WEFT_PIN", v);
  if (const char* v = std::getenv("WEFT_CPUS")) {
    base.cpus.clear();
    std::stringstream list(v);
    std::string item;
    while (std::getline(list, item, ','))
      base.cpus.push_back(static_cast<int>(parse_integer(
          "WEFT_CPUS", item, 0, 1 << 20, "a comma-separated list of OS CPU ids, e.g. 0,2,4")));
    if (base.cpus.empty()) bad("WEFT_CPUS", v, "a comma-separated list of OS CPU ids, e.g. 0,2,4");
  }
  // Placement precedence: WEFT_PLACEMENT > Config::placement > OMP_PLACES /
  // OMP_PROC_BIND > default (docs/runtime.md). Config::cpus / WEFT_CPUS name
  // the CPUs outright and leave nothing to place.
  if (const char* v = std::getenv("WEFT_TOPOLOGY")) {
    if (*v == '\0') bad("WEFT_TOPOLOGY", v, "the path of a saved topology (docs/topology-format.md)");
    base.topology_file = v;
  }
  if (const char* v = std::getenv("WEFT_PLACEMENT")) {
    if (*v == '\0') bad("WEFT_PLACEMENT", v, "an MCTOP-PLACE policy name such as CON_CORE_HWC (weft-topo help)");
    base.placement = v;
  }
  const char* omp_places = std::getenv("OMP_PLACES");
  const char* omp_bind = std::getenv("OMP_PROC_BIND");
  if ((omp_places || omp_bind) && base.placement.empty() && base.cpus.empty() && base.workers >= 0) {
    const int n = base.workers > 0 ? base.workers : sched::default_worker_count();
    auto opt = [](const char* v) { return v ? std::optional<std::string_view>(v) : std::nullopt; };
    // The machine model (this process's CPUs) expands abstract names and drops CPUs it may not use.
    sched::OmpBinding b =
        sched::omp_binding(detail::machine_topology(base.topology_file), opt(omp_places), opt(omp_bind), n);
    if (!b.pinned) {
      if (!weft_pin) base.pin_workers = false;  // OMP_PROC_BIND=false: threads may move
    } else if (!base.pin_workers || n <= static_cast<int>(sched::allowed_cpus().size())) {
      base.workers = n;
      base.cpus = b.os_cpus;
    }
    // else: more pinned workers than allowed CPUs, which the runtime refuses
    // with its usual error when it places them, whatever chose the CPUs.
  }
  // NONE means "not pinned" (thesis Table 7.2), unless WEFT_PIN says otherwise.
  if (!base.placement.empty() && !weft_pin && base.cpus.empty()) {
    try {
      if (sched::parse_policy(base.placement) == sched::Policy::None) base.pin_workers = false;
    } catch (const std::invalid_argument&) {
      // An unknown name is reported when the workers are placed.
    }
  }
  if (const char* v = std::getenv("WEFT_MAX_ULTS"))
    base.max_ults = parse_integer("WEFT_MAX_ULTS", v, 0, std::numeric_limits<long long>::max(),
                                  "a count of ULTs (0 = derived from this machine's memory)");
  if (const char* v = std::getenv("WEFT_STATS")) base.print_stats = parse_flag("WEFT_STATS", v);
  if (const char* v = std::getenv("WEFT_TRACE")) {
    if (*v == '\0') bad("WEFT_TRACE", v, "the path of the trace file to write");
    base.trace_file = v;
  }
  if (std::size_t events = detail::trace_buffer_from_env()) base.trace_buffer_events = events;
  if (const char* v = std::getenv("WEFT_IDLE_SPIN_US"))
    base.idle_spin_us = static_cast<int>(
        parse_integer("WEFT_IDLE_SPIN_US", v, 0, 10'000'000, "microseconds from 0 to 10000000"));
  return base;
}

}  // namespace weft
