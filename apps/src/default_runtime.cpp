#include "weft/apps/default_runtime.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

#include "weft/apps/environment.hpp"
#include "weft/sched/cpuset.hpp"
#include "weft/sync/cpu.hpp"

namespace weft {

Config default_runtime_config() {
  Config c;
  // OMP_NUM_THREADS sizes the default runtime (WEFT_WORKERS, applied below by
  // Config::from_env, wins). More threads than allowed CPUs oversubscribes, as
  // OpenMP's threads would: the workers are then not pinned (unless WEFT_PIN
  // says otherwise, in which case the runtime reports the conflict).
  if (const char* v = std::getenv("OMP_NUM_THREADS")) {
    c.workers = parse_num_threads(v, "OMP_NUM_THREADS");
    if (c.workers > static_cast<int>(sched::allowed_cpus().size())) c.pin_workers = false;
  }
  if (auto policy = detail::env_twin("WEFT_WAIT_POLICY", "OMP_WAIT_POLICY"))
    c.idle_spin_us = idle_spin_us_for(parse_wait_policy(policy->value, policy->variable));
  return Config::from_env(c);
}

namespace detail {
void wait_briefly_for(Runtime& rt, bool (*done)(const void*), const void* state) {
  // Only where a CPU is left over for this thread: with a worker on every
  // CPU, a spinning thread would take a CPU from a worker of the construct
  // (time-sliced at milliseconds), so it blocks at once instead.
  static const int cpus = static_cast<int>(sched::allowed_cpus().size());
  if (rt.num_workers() >= cpus) return;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::microseconds(rt.config().idle_spin_us);
  for (unsigned round = 1; !done(state); ++round) {
    sync::cpu_relax();
    if ((round & 15) == 0) {
      std::this_thread::yield();
      if (std::chrono::steady_clock::now() >= deadline) return;
    }
  }
}
}  // namespace detail

Runtime& default_runtime() {
  // A function-local static: started by the first caller (thread-safe), shut
  // down by the static destructors at exit after every ULT finished.
  static Runtime runtime(default_runtime_config());
  return runtime;
}

}  // namespace weft
