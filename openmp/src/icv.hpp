#pragma once
// The OpenMP internal control variables (OpenMP 5.2 §2): the per-task data
// environment a task inherits from its parent (Icv), and the process-wide
// settings read once from the OMP_* environment (Settings). A malformed value
// stops the program at load with an error naming the variable, its value and
// the accepted forms, before the program's main() runs.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "weft/sched/omp_places.hpp"
#include "weft/sched/placement.hpp"

namespace weft::omp {

// omp_sched_t values (omp.h), as run-sched-var and GOMP's schedule codes use them.
enum class SchedKind : int { static_ = 1, dynamic = 2, guided = 3, auto_ = 4 };
inline constexpr int kMonotonicFlag = static_cast<int>(0x80000000u);

struct RunSchedule {
  SchedKind kind = SchedKind::dynamic;  // libgomp's default for schedule(runtime)
  long chunk = 1;                       // 0 = the kind's default
  bool monotonic = false;
};

// The ICVs of one task's data environment.
struct Icv {
  int nthreads = 1;            // nthreads-var: team size of the next region
  int thread_limit = 2147483647;  // thread-limit-var (INT_MAX: none)
  int max_active_levels = 1;   // max-active-levels-var
  bool dynamic = false;        // dyn-var
  RunSchedule run_sched;       // run-sched-var
  sched::OmpBind bind = sched::OmpBind::False;  // bind-var of the next region
  int default_device = 0;      // default-device-var
  // weft's extension (MCTOP_MP's omp_set_binding_policy): the MCTOP-PLACE
  // policy that places the members of the next regions; None = the default.
  sched::Policy binding_policy = sched::Policy::None;
  std::uintptr_t default_allocator = 1;  // def-allocator-var: an omp_allocator_handle_t (omp_default_mem_alloc)
};

struct Settings {
  Icv initial;                                // the initial task's ICVs
  std::vector<int> nthreads_list;             // OMP_NUM_THREADS, one per nesting level
  std::vector<sched::OmpBind> bind_list;      // OMP_PROC_BIND, one per nesting level
  bool nthreads_from_env = false;
  int max_task_priority = 0;                  // OMP_MAX_TASK_PRIORITY
  int num_teams = 0;                          // OMP_NUM_TEAMS (nteams-var), 0 = unset
  int teams_thread_limit = 0;                 // OMP_TEAMS_THREAD_LIMIT, 0 = unset
  bool offload_mandatory = false;             // OMP_TARGET_OFFLOAD=MANDATORY
  bool cancellation = false;                  // OMP_CANCELLATION
  int display_env = 0;                        // OMP_DISPLAY_ENV: 0 false, 1 true, 2 verbose
  std::size_t stacksize = 0;                  // OMP_STACKSIZE in bytes, 0 = unset
  int wait_policy = -1;                       // OMP_WAIT_POLICY: -1 unset, 0 passive, 1 active
  bool places_set = false, bind_set = false;  // OMP_PLACES / OMP_PROC_BIND present
};

// Parsed on first use (and by the library's constructor, so a bad value stops
// the program before main()). A malformed variable: message on stderr, exit(1).
const Settings& settings();

// cancel-var (OMP_CANCELLATION), copied out of settings() when they are read
// for the paths that test it at every task (cancel.hpp). They are read
// before the first task context exists, so whoever has a context may test it.
extern bool cancel_var;

// The same parsing, for one variable's value; throws std::invalid_argument
// (weft::sched::OmpEnvError) naming `variable`. Exposed for the tests' sake.
bool parse_bool(const std::string& value, const char* variable);
std::size_t parse_stacksize(const std::string& value, const char* variable);
int parse_nonnegative(const std::string& value, const char* variable, int max);

// The OMP_DISPLAY_ENV block (OpenMP 5.2 §21.7), to stderr. verbose adds the
// weft-specific settings.
void display_env(bool verbose);

// "static", "dynamic,4", ... as OMP_SCHEDULE spells it.
std::string to_string(const RunSchedule& s);

}  // namespace weft::omp
