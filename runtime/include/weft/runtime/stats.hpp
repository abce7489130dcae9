#pragma once
// Per-worker event counters and time split, readable at any time (relaxed
// snapshots of counters each worker writes alone). Runtime::stats() returns
// them; WEFT_STATS=1 (Config::print_stats) prints them to stderr when the
// runtime shuts down. docs/observability.md says what each one means.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace weft {

// Steals are counted per distance class of the victim: its rank among the
// distinct latencies from the thief in the machine model (0 = nearest; the
// last class also holds everything farther). With no model (unpinned workers,
// or before the model has loaded) every victim is class 0.
inline constexpr int kStealDistanceClasses = 4;

struct WorkerStats {
  int worker = 0;
  int os_cpu = -1;
  int numa_node = -1;          // OS NUMA node of os_cpu, where the worker's stacks live (-1: not pinned)
  std::uint64_t ults_run = 0;  // ULTs that started running on this worker (each ULT counts once)
  std::uint64_t spawns = 0;    // ULTs created by ULTs of this worker
  std::uint64_t switches = 0;  // context switches performed on this worker
  std::uint64_t yields = 0;    // this_ult::yield() calls that switched
  std::uint64_t steals = 0;    // unstarted ULTs taken from another worker (sum of steals_by_distance)
  std::uint64_t parks = 0;     // ULTs that parked (blocked) on this worker
  std::uint64_t unparks = 0;   // unpark() calls made on this worker that woke a ULT or left it a token
  std::uint64_t sleeps = 0;    // times the worker went to sleep in the kernel
  std::uint64_t wakeups = 0;   // times it was woken from that sleep
  std::uint64_t inline_runs = 0;  // ULTs run by their joiner on its own stack before they started
  // Steal attempts (one per victim deque looked at) and successes, by distance class.
  std::array<std::uint64_t, kStealDistanceClasses> steal_attempts_by_distance{};
  std::array<std::uint64_t, kStealDistanceClasses> steals_by_distance{};
  // Wall time since the worker started (until it stopped), split three ways:
  // spinning for work when idle, asleep in the kernel, and the rest (running
  // ULTs and the scheduler between them).
  std::uint64_t busy_ns = 0;
  std::uint64_t spinning_ns = 0;
  std::uint64_t sleeping_ns = 0;
  // When its thread began the worker's scheduling loop, in ns since the
  // runtime's constructor began (0: not yet, or a hosted worker 0).
  std::uint64_t started_after_ns = 0;

  std::uint64_t steal_attempts() const;
};

// How the runtime's constructor spent its time, in ns since it began: the
// worker threads taken from the pool (new ones still coming up), every
// worker constructed, every worker handed to its thread, and the
// constructor's end. With WorkerStats::started_after_ns, the start-up's
// critical path (docs/observability.md).
struct StartupStats {
  std::uint64_t threads_taken_ns = 0;
  std::uint64_t workers_built_ns = 0;
  std::uint64_t workers_handed_ns = 0;
  std::uint64_t constructor_ns = 0;
};

struct Stats {
  std::vector<WorkerStats> workers;
  StartupStats startup;
  std::uint64_t external_spawns = 0;   // ULTs spawned from plain threads (not counted per worker)
  std::uint64_t external_unparks = 0;  // unparks of ULTs made from plain threads
  WorkerStats total() const;   // the sum over workers (worker = -1)
  std::uint64_t last_worker_started_ns() const;  // the latest WorkerStats::started_after_ns
  std::string to_string() const;  // a table, one row per worker plus the total
};

}  // namespace weft
