#pragma once
// Runtime configuration: a plain struct with defaults, overridable by WEFT_*
// environment variables (see Config::from_env and docs/runtime.md).

#include <cstddef>
#include <string>
#include <vector>

namespace weft {

struct Config {
  // Number of workers (kernel threads, one per core). 0 = one per CPU allowed
  // to the process (affinity mask), capped by its cgroup CPU limit.
  int workers = 0;
  // Usable bytes of each ULT stack (a guard page is added below it). Rounded
  // up to whole pages. Stacks are pooled per worker and reused.
  std::size_t stack_size = 256 * 1024;
  // Pin each worker to one CPU.
  bool pin_workers = true;
  // Explicit OS CPU ids for the workers (worker i on cpus[i]); empty = the
  // placement policy below chooses.
  std::vector<int> cpus;
  // Placement policy name (see weft/sched/placement.hpp); empty = sequential
  // over the allowed CPUs.
  std::string placement;
  // How long an idle worker spins looking for work before it sleeps.
  int idle_spin_us = 50;
  // Stacks and task blocks each worker keeps for reuse.
  int stack_pool_limit = 256;

  // `base` with every WEFT_* variable that is set applied on top:
  // WEFT_WORKERS, WEFT_STACK_SIZE (bytes, or with K/M suffix), WEFT_PIN (0/1),
  // WEFT_CPUS (comma list), WEFT_PLACEMENT, WEFT_IDLE_SPIN_US.
  // Throws std::invalid_argument naming the variable when a value is invalid.
  static Config from_env(Config base);
  static Config from_env() { return from_env(Config{}); }
};

}  // namespace weft
