#include <cstdio>

#include "weft/runtime/stats.hpp"

namespace weft {

WorkerStats Stats::total() const {
  WorkerStats t;
  t.worker = -1;
  for (const auto& w : workers) {
    t.spawns += w.spawns;
    t.switches += w.switches;
    t.yields += w.yields;
    t.steals += w.steals;
    t.parks += w.parks;
    t.sleeps += w.sleeps;
    t.wakeups += w.wakeups;
    t.inline_runs += w.inline_runs;
  }
  return t;
}

std::string Stats::to_string() const {
  std::string out = "worker  cpu node      spawns    switches      yields    steals       parks    sleeps     inline\n";
  auto row = [&](const WorkerStats& w, const char* name) {
    char line[192];
    std::snprintf(line, sizeof line, "%-6s %4d %4d %11llu %11llu %11llu %9llu %11llu %9llu %10llu\n", name, w.os_cpu,
                  w.numa_node,
                  static_cast<unsigned long long>(w.spawns), static_cast<unsigned long long>(w.switches),
                  static_cast<unsigned long long>(w.yields), static_cast<unsigned long long>(w.steals),
                  static_cast<unsigned long long>(w.parks), static_cast<unsigned long long>(w.sleeps),
                  static_cast<unsigned long long>(w.inline_runs));
    out += line;
  };
  for (const auto& w : workers) row(w, std::to_string(w.worker).c_str());
  row(total(), "total");
  return out;
}

}  // namespace weft
