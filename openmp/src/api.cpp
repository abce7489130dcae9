// The OpenMP user API (omp_*; OpenMP 5.2 §18), and weft's extension
// omp_set_binding_policy (include/weft/omp_ext.h).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "fatal.hpp"
#include "icv.hpp"
#include "omp_runtime.hpp"
#include "team.hpp"
#include "weft/omp_ext.h"
#include "weft/runtime/this_ult.hpp"
#include "weft/sched/cpuset.hpp"

namespace weft::omp {
namespace {

constexpr int kSupportedActiveLevels = 255;

omp_proc_bind_t to_proc_bind(sched::OmpBind b) {
  switch (b) {
    case sched::OmpBind::False: return omp_proc_bind_false;
    case sched::OmpBind::True: return omp_proc_bind_true;
    case sched::OmpBind::Primary: return omp_proc_bind_primary;
    case sched::OmpBind::Close: return omp_proc_bind_close;
    case sched::OmpBind::Spread: return omp_proc_bind_spread;
  }
  return omp_proc_bind_false;
}

// The team `levels_up` levels above the caller's (0: its own), and the
// caller's thread number at that level.
bool ancestor(int level, const Team*& team, int& thread_num) {
  const TaskContext& c = current();
  team = c.team;
  if (level < 0 || level > team->level) return false;
  thread_num = thread_num_of(c);
  while (team->level > level) {
    thread_num = team->parent_thread_num;
    team = team->parent;
  }
  return true;
}

// Places: one per pinned worker (a team's members run on workers).
// The place list (one CPU per place): the CPUs OMP_PLACES / OMP_PROC_BIND
// (or WEFT_CPUS) bound the threads to, the initial thread's first; empty
// when nothing binds them, where libgomp's omp_get_num_places() is 0 too
// (OpenBLAS, for one, sizes its thread pool by a non-zero count). Read from
// the configuration, never by starting the runtime: libraries call these
// queries from their constructors, before libnuma's has run.
std::vector<int> places() {
  std::vector<int> cpus;
  if (initial_thread_cpu() >= 0) cpus.push_back(initial_thread_cpu());
  for (int cpu : runtime_config().cpus)
    if (cpu >= 0 && std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) cpus.push_back(cpu);
  return cpus;
}

std::string affinity_format = "level %L thread %i affinity %A";

// omp_capture_affinity's fields (OpenMP 5.2 Table 21.2), short and long names.
std::string format_affinity(const char* format) {
  const std::string f = format && *format ? format : affinity_format;
  const TaskContext& c = current();
  std::string out;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%' || i + 1 == f.size()) {
      out += f[i];
      continue;
    }
    std::string field(1, f[++i]);
    if (field == "{") {
      const std::size_t close = f.find('}', i);
      if (close == std::string::npos) fatal("omp_capture_affinity", "unterminated %{ in the format");
      field = f.substr(i + 1, close - i - 1);
      i = close;
    }
    char host[256] = "";
    if (field == "t" || field == "team_num") out += std::to_string(c.team->team_num);
    else if (field == "T" || field == "num_teams") out += std::to_string(c.team->num_teams);
    else if (field == "L" || field == "nesting_level") out += std::to_string(c.team->level);
    else if (field == "n" || field == "thread_num") out += std::to_string(thread_num_of(c));
    else if (field == "N" || field == "num_threads") out += std::to_string(c.team->nthreads);
    else if (field == "a" || field == "ancestor_tnum") out += std::to_string(c.team->level > 0 ? c.team->parent_thread_num : -1);
    else if (field == "H" || field == "host") out += (gethostname(host, sizeof host - 1) == 0 ? host : "?");
    else if (field == "P" || field == "process_id") out += std::to_string(getpid());
    else if (field == "i" || field == "native_thread_id") out += std::to_string(gettid());
    else if (field == "A" || field == "thread_affinity") {
      const int w = this_ult::worker_index();
      const std::vector<int> cpus = w >= 0 ? runtime().worker_cpus() : std::vector<int>{};
      out += w >= 0 && cpus[static_cast<std::size_t>(w)] >= 0 ? std::to_string(cpus[static_cast<std::size_t>(w)]) : "-";
    } else if (field == "%") out += "%";
    else out += "%" + field;
  }
  return out;
}

}  // namespace
}  // namespace weft::omp

using namespace weft::omp;

extern "C" {

// ------------------------------------------------------------ teams and threads

void omp_set_num_threads(int n) noexcept { current().icv.nthreads = n > 0 ? n : 1; }
int omp_get_num_threads() noexcept { return current().team->nthreads; }
int omp_get_max_threads() noexcept { return current().icv.nthreads; }
int omp_get_thread_num() noexcept { return thread_num_of(current()); }
int omp_get_num_procs() noexcept { return static_cast<int>(weft::sched::allowed_cpus().size()); }
int omp_in_parallel() noexcept { return current().team->active_level > 0 ? 1 : 0; }
void omp_set_dynamic(int on) noexcept { current().icv.dynamic = on != 0; }
int omp_get_dynamic() noexcept { return current().icv.dynamic ? 1 : 0; }
void omp_set_nested(int on) noexcept {
  Icv& icv = current().icv;
  if (!on) icv.max_active_levels = 1;
  else if (icv.max_active_levels <= 1) icv.max_active_levels = kSupportedActiveLevels;
}
int omp_get_nested() noexcept { return current().icv.max_active_levels > 1 ? 1 : 0; }
int omp_get_thread_limit() noexcept { return current().icv.thread_limit; }
void omp_set_max_active_levels(int n) noexcept {
  if (n >= 0) current().icv.max_active_levels = std::min(n, kSupportedActiveLevels);
}
int omp_get_max_active_levels() noexcept { return current().icv.max_active_levels; }
int omp_get_supported_active_levels() noexcept { return kSupportedActiveLevels; }
int omp_get_level() noexcept { return current().team->level; }
int omp_get_active_level() noexcept { return current().team->active_level; }
int omp_get_ancestor_thread_num(int level) noexcept {
  const Team* team = nullptr;
  int num = 0;
  return ancestor(level, team, num) ? num : -1;
}
int omp_get_team_size(int level) noexcept {
  const Team* team = nullptr;
  int num = 0;
  return ancestor(level, team, num) ? team->nthreads : -1;
}

void omp_set_schedule(omp_sched_t kind, int chunk) noexcept {
  const auto bits = static_cast<unsigned>(kind);
  const unsigned k = bits & ~static_cast<unsigned>(omp_sched_monotonic);
  if (k < 1 || k > 4) return;  // OpenMP: an unknown kind is implementation defined; ignored, as libgomp
  RunSchedule& r = current().icv.run_sched;
  r.kind = static_cast<SchedKind>(k);
  r.chunk = chunk < 1 ? (r.kind == SchedKind::static_ || r.kind == SchedKind::auto_ ? 0 : 1) : chunk;
  r.monotonic = (bits & static_cast<unsigned>(omp_sched_monotonic)) != 0;
}
void omp_get_schedule(omp_sched_t* kind, int* chunk) noexcept {
  const RunSchedule& r = current().icv.run_sched;
  *kind = static_cast<omp_sched_t>(static_cast<unsigned>(r.kind) |
                                   (r.monotonic ? static_cast<unsigned>(omp_sched_monotonic) : 0u));
  *chunk = static_cast<int>(std::min<long>(r.chunk, INT_MAX));
}

double omp_get_wtime() noexcept {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double omp_get_wtick() noexcept { return 1e-9; }

int omp_get_cancellation() noexcept { return settings().cancellation ? 1 : 0; }
omp_proc_bind_t omp_get_proc_bind() noexcept { return to_proc_bind(current().icv.bind); }
int omp_get_max_task_priority() noexcept { return settings().max_task_priority; }

// ------------------------------------------------------------ places

int omp_get_num_places() noexcept { return static_cast<int>(places().size()); }
int omp_get_place_num_procs(int place) noexcept {
  return place >= 0 && place < omp_get_num_places() ? 1 : 0;
}
void omp_get_place_proc_ids(int place, int* ids) noexcept {
  const std::vector<int> p = places();
  if (place >= 0 && place < static_cast<int>(p.size())) ids[0] = p[static_cast<std::size_t>(place)];
}
int omp_get_place_num() noexcept {
  const std::vector<int> p = places();
  const int w = weft::this_ult::worker_index();
  int cpu = -1;
  if (w >= 0) cpu = runtime().worker_cpus()[static_cast<std::size_t>(w)];
  else if (gettid() == getpid()) cpu = initial_thread_cpu();
  const auto at = std::find(p.begin(), p.end(), cpu);
  return cpu >= 0 && at != p.end() ? static_cast<int>(at - p.begin()) : -1;
}
int omp_get_partition_num_places() noexcept { return omp_get_num_places(); }
void omp_get_partition_place_nums(int* nums) noexcept {
  const int n = omp_get_num_places();
  for (int i = 0; i < n; ++i) nums[i] = i;
}

void omp_set_affinity_format(const char* format) noexcept { affinity_format = format ? format : ""; }
std::size_t omp_get_affinity_format(char* buffer, std::size_t size) noexcept {
  if (size > 0) std::snprintf(buffer, size, "%s", affinity_format.c_str());
  return affinity_format.size();
}
std::size_t omp_capture_affinity(char* buffer, std::size_t size, const char* format) noexcept {
  const std::string s = format_affinity(format);
  if (buffer && size > 0) std::snprintf(buffer, size, "%s", s.c_str());
  return s.size();
}
void omp_display_affinity(const char* format) noexcept {
  const std::string s = format_affinity(format);
  std::fprintf(stderr, "%s\n", s.c_str());
}

void omp_display_env(int verbose) noexcept { display_env(verbose != 0); }

// ------------------------------------------------------------ weft's extension

int omp_set_binding_policy(const char* policy) {
  Icv& icv = current().icv;
  if (!policy) {
    icv.binding_policy = weft::sched::Policy::None;
    return 0;
  }
  try {
    const weft::sched::Policy p = weft::sched::parse_policy(policy);
    if (p != weft::sched::Policy::None && !runtime_config().pin_workers) {
      std::fprintf(stderr,
                   "weft-omp: omp_set_binding_policy: the workers are not pinned (no OMP_PLACES or OMP_PROC_BIND "
                   "binds the threads): set OMP_PROC_BIND=true or WEFT_PIN=1 to place regions by policy\n");
      return -1;
    }
    icv.binding_policy = p;
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft-omp: omp_set_binding_policy: %s\n", e.what());
    return -1;
  }
}

const char* omp_get_binding_policy() {
  return weft::sched::to_string(current().icv.binding_policy).data();
}

}  // extern "C"
