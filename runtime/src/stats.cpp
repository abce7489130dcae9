#include <algorithm>
#include <cstdio>
#include <numeric>

#include "weft/runtime/stats.hpp"

namespace weft {

std::uint64_t WorkerStats::steal_attempts() const {
  return std::accumulate(steal_attempts_by_distance.begin(), steal_attempts_by_distance.end(), std::uint64_t{0});
}

WorkerStats Stats::total() const {
  WorkerStats t;
  t.worker = -1;
  for (const auto& w : workers) {
    t.ults_run += w.ults_run;
    t.spawns += w.spawns;
    t.switches += w.switches;
    t.yields += w.yields;
    t.steals += w.steals;
    t.parks += w.parks;
    t.unparks += w.unparks;
    t.sleeps += w.sleeps;
    t.wakeups += w.wakeups;
    t.inline_runs += w.inline_runs;
    for (int d = 0; d < kStealDistanceClasses; ++d) {
      t.steal_attempts_by_distance[d] += w.steal_attempts_by_distance[d];
      t.steals_by_distance[d] += w.steals_by_distance[d];
    }
    t.busy_ns += w.busy_ns;
    t.spinning_ns += w.spinning_ns;
    t.sleeping_ns += w.sleeping_ns;
  }
  return t;
}

namespace {

unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }

double percent(std::uint64_t part, const WorkerStats& w) {
  const std::uint64_t all = w.busy_ns + w.spinning_ns + w.sleeping_ns;
  return all ? 100.0 * static_cast<double>(part) / static_cast<double>(all) : 0.0;
}

}  // namespace

std::uint64_t Stats::last_worker_started_ns() const {
  std::uint64_t last = 0;
  for (const auto& w : workers) last = std::max(last, w.started_after_ns);
  return last;
}

std::string Stats::to_string() const {
  std::string out =
      "worker  cpu node    ults_run      spawns    switches      yields       parks     unparks    sleeps     inline\n";
  std::string time =
      "worker     busy_ms    spin_ms   sleep_ms  busy%  spin% sleep%   steals/attempts by distance class 0 1 2 3+\n";
  auto row = [&](const WorkerStats& w, const char* name) {
    char line[256];
    std::snprintf(line, sizeof line, "%-6s %4d %4d %11llu %11llu %11llu %11llu %11llu %11llu %9llu %10llu\n", name,
                  w.os_cpu, w.numa_node, ull(w.ults_run), ull(w.spawns), ull(w.switches), ull(w.yields),
                  ull(w.parks), ull(w.unparks), ull(w.sleeps), ull(w.inline_runs));
    out += line;
    std::snprintf(line, sizeof line, "%-6s %10.3f %10.3f %10.3f %5.1f%% %5.1f%% %5.1f%%  ", name, w.busy_ns / 1e6,
                  w.spinning_ns / 1e6, w.sleeping_ns / 1e6, percent(w.busy_ns, w), percent(w.spinning_ns, w),
                  percent(w.sleeping_ns, w));
    time += line;
    for (int d = 0; d < kStealDistanceClasses; ++d) {
      std::snprintf(line, sizeof line, " %llu/%llu", ull(w.steals_by_distance[d]),
                    ull(w.steal_attempts_by_distance[d]));
      time += line;
    }
    time += '\n';
  };
  for (const auto& w : workers) row(w, std::to_string(w.worker).c_str());
  row(total(), "total");
  char line[160];
  std::snprintf(line, sizeof line, "from plain threads: %llu spawns, %llu unparks\n", ull(external_spawns),
                ull(external_unparks));
  char start[256];
  std::snprintf(start, sizeof start,
                "start-up (us since the constructor began): threads taken %.1f, workers built %.1f, handed over "
                "%.1f, constructor returned %.1f, last worker running %.1f\n",
                startup.threads_taken_ns / 1e3, startup.workers_built_ns / 1e3, startup.workers_handed_ns / 1e3,
                startup.constructor_ns / 1e3, last_worker_started_ns() / 1e3);
  return out + line + time + start;
}

}  // namespace weft
