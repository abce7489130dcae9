#pragma once
// Where the workers run (internal): the one function that turns a Config
// (after Config::from_env applied the environment) into one OS CPU per
// worker, implementing the README's precedence.

#include <vector>

#include "weft/runtime/config.hpp"

namespace weft::detail {

// OS CPU of each worker (-1 where unpinned); fills in config.workers when it
// is 0. Precedence: Config::cpus (WEFT_CPUS, or OMP_PLACES resolved by
// from_env) > Config::placement (WEFT_PLACEMENT > the field) > the first
// allowed CPUs in order. Throws std::invalid_argument naming the setting when
// the count is impossible, a CPU is not allowed, or the policy is unknown.
std::vector<int> worker_cpus_for(Config& config);

}  // namespace weft::detail
