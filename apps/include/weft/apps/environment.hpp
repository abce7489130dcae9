#pragma once
// The OpenMP environment variables the parallel layer reads, and their WEFT_*
// twins (a WEFT_* variable wins over its OMP_* twin). docs/parallel.md has the
// table. Each parser throws weft::sched::OmpEnvError (a std::invalid_argument)
// whose message names the variable, its value and the accepted forms:
//
//   weft: environment variable OMP_WAIT_POLICY='busy' is invalid: expected
//   ACTIVE or PASSIVE (any case)
//
// The parsers take the value (and the name to report) so that programs and
// tests can check a value without touching the environment.

#include <optional>
#include <string_view>

namespace weft {

// OMP_NUM_THREADS: a positive thread count, or a comma list of them (one per
// nesting level, as OpenMP allows); weft uses the first. Blanks around the
// numbers are ignored. At most 4096.
int parse_num_threads(std::string_view value, std::string_view variable = "OMP_NUM_THREADS");

// OMP_WAIT_POLICY / WEFT_WAIT_POLICY: how long a waiting thread spins before
// it sleeps. weft maps it onto Config::idle_spin_us of the default runtime,
// which is also how long the parallel layer's waits (joins, team barriers)
// spin before they park: active = 1000 us, passive = 0 (sleep at once),
// unset = the Config default (50 us).
enum class WaitPolicy { active, passive };
WaitPolicy parse_wait_policy(std::string_view value, std::string_view variable = "OMP_WAIT_POLICY");
int idle_spin_us_for(WaitPolicy policy);

namespace detail {
// The value of the first of `weft_name`, `omp_name` that is set, with the name
// it came from (for error messages); nullopt when neither is set.
struct EnvValue {
  std::string_view variable;
  std::string_view value;
};
std::optional<EnvValue> env_twin(const char* weft_name, const char* omp_name);
}  // namespace detail

}  // namespace weft
