#include "weft/apps/default_runtime.hpp"

#include <cstdlib>

#include "weft/apps/environment.hpp"
#include "weft/sched/cpuset.hpp"

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

Runtime& default_runtime() {
  // A function-local static: started by the first caller (thread-safe), shut
  // down by the static destructors at exit after every ULT finished.
  static Runtime runtime(default_runtime_config());
  return runtime;
}

}  // namespace weft
