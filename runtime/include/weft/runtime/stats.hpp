#pragma once
// Per-worker event counters, readable at any time (relaxed snapshots).

#include <cstdint>
#include <string>
#include <vector>

namespace weft {

struct WorkerStats {
  int worker = 0;
  int os_cpu = -1;
  int numa_node = -1;          // OS NUMA node of os_cpu, where the worker's stacks live (-1: not pinned)
  std::uint64_t spawns = 0;    // ULTs created by ULTs of this worker
  std::uint64_t switches = 0;  // context switches performed on this worker
  std::uint64_t yields = 0;    // this_ult::yield() calls that switched
  std::uint64_t steals = 0;    // unstarted ULTs taken from another worker
  std::uint64_t parks = 0;     // ULTs that parked (blocked) on this worker
  std::uint64_t sleeps = 0;    // times the worker went to sleep in the kernel
  std::uint64_t wakeups = 0;   // times it was woken from that sleep
  std::uint64_t inline_runs = 0;  // ULTs run by their joiner on its own stack before they started
};

struct Stats {
  std::vector<WorkerStats> workers;
  WorkerStats total() const;
  std::string to_string() const;  // a table, one row per worker plus the total
};

}  // namespace weft
