// The OMP_* environment read into the initial ICVs (OpenMP 5.2 §21.1-21.2),
// with libgomp 12's defaults where the specification leaves them to the
// implementation. The parsers of the parallel layer (weft/apps/environment.hpp,
// weft/apps/schedule.hpp) and of sched (OMP_PLACES, OMP_PROC_BIND) are reused;
// the others are here.
#include "icv.hpp"

#include <cctype>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fatal.hpp"
#include "omp_runtime.hpp"
#include "weft/apps/environment.hpp"
#include "weft/apps/schedule.hpp"
#include "weft/sched/cpuset.hpp"

namespace weft::omp {
namespace {

std::string trimmed_lower(const std::string& value) {
  std::string_view v = value;
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
  std::string out(v);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

[[noreturn]] void bad(const char* variable, const std::string& value, const std::string& expected) {
  throw sched::OmpEnvError(variable, value, value, "expected " + expected);
}

// One positive count per nesting level. The parallel layer's parser checks
// the whole list (and names the whole value in its message); the items are
// then known to be valid.
std::vector<int> parse_count_list(const std::string& value, const char* variable) {
  parse_num_threads(value, variable);
  std::vector<int> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = value.find(',', pos);
    out.push_back(parse_num_threads(value.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos),
                                    variable));
    if (comma == std::string::npos) return out;
    pos = comma + 1;
  }
}

RunSchedule parse_run_schedule(const std::string& value) {
  const Schedule s = parse_schedule(value, "OMP_SCHEDULE");
  RunSchedule r;
  switch (s.kind) {
    case Schedule::Kind::static_: r.kind = SchedKind::static_; break;
    case Schedule::Kind::dynamic: r.kind = SchedKind::dynamic; break;
    case Schedule::Kind::guided: r.kind = SchedKind::guided; break;
    case Schedule::Kind::adaptive: r.kind = SchedKind::auto_; break;
  }
  r.chunk = static_cast<long>(s.chunk);
  r.monotonic = trimmed_lower(value).rfind("monotonic:", 0) == 0;
  return r;
}

// OMP_ALLOCATOR (OpenMP 5.2 §21.5.1): a predefined allocator, by name or
// by its omp_allocator_handle_t value (1-8, as libgomp takes it too).
constexpr const char* kPredefinedAllocators[] = {"omp_default_mem_alloc", "omp_large_cap_mem_alloc",
                                                 "omp_const_mem_alloc",   "omp_high_bw_mem_alloc",
                                                 "omp_low_lat_mem_alloc", "omp_cgroup_mem_alloc",
                                                 "omp_pteam_mem_alloc",   "omp_thread_mem_alloc"};

std::uintptr_t parse_allocator(const char* value) {
  const std::string t = trimmed_lower(value);
  for (std::uintptr_t k = 0; k < std::size(kPredefinedAllocators); ++k)
    if (t == kPredefinedAllocators[k] || t == std::to_string(k + 1)) return k + 1;
  bad("OMP_ALLOCATOR", value, "a predefined allocator, e.g. omp_default_mem_alloc or omp_high_bw_mem_alloc (or 1-8)");
}

Settings read_settings() {
  undo_libgomp_initial_binding();  // before default_worker_count() reads the CPUs
  Settings s;
  Icv& icv = s.initial;
  auto env = [](const char* name) -> const char* { return std::getenv(name); };
  icv.nthreads = sched::default_worker_count();
  if (const char* v = env("OMP_NUM_THREADS")) {
    s.nthreads_list = parse_count_list(v, "OMP_NUM_THREADS");
    icv.nthreads = s.nthreads_list.front();
    s.nthreads_from_env = true;
  }
  if (const char* v = env("OMP_DYNAMIC")) icv.dynamic = parse_bool(v, "OMP_DYNAMIC");
  if (const char* v = env("OMP_SCHEDULE")) icv.run_sched = parse_run_schedule(v);
  if (const char* v = env("OMP_PROC_BIND")) {
    s.bind_list = sched::parse_omp_proc_bind(v, "OMP_PROC_BIND");
    icv.bind = s.bind_list.front();
    s.bind_set = true;
  }
  if (const char* v = env("OMP_PLACES")) {
    sched::parse_omp_places(v, "OMP_PLACES");  // syntax now; resolved when the runtime starts
    s.places_set = true;
  }
  // max-active-levels-var: OMP_MAX_ACTIVE_LEVELS, else OMP_NESTED, else
  // (libgomp 12) unlimited when OMP_NUM_THREADS or OMP_PROC_BIND lists more
  // than one level, else 1.
  constexpr int kSupportedLevels = 255;
  const char* nested = env("OMP_NESTED");
  const bool nested_on = nested && parse_bool(nested, "OMP_NESTED");
  if (const char* v = env("OMP_MAX_ACTIVE_LEVELS"))
    icv.max_active_levels = std::min(parse_nonnegative(v, "OMP_MAX_ACTIVE_LEVELS", INT_MAX), kSupportedLevels);
  else if (nested)
    icv.max_active_levels = nested_on ? kSupportedLevels : 1;
  else if (s.nthreads_list.size() > 1 || s.bind_list.size() > 1)
    icv.max_active_levels = kSupportedLevels;
  if (const char* v = env("OMP_THREAD_LIMIT")) {
    icv.thread_limit = parse_nonnegative(v, "OMP_THREAD_LIMIT", INT_MAX);
    if (icv.thread_limit == 0) bad("OMP_THREAD_LIMIT", v, "a positive thread count");
  }
  if (const char* v = env("OMP_DEFAULT_DEVICE")) icv.default_device = parse_nonnegative(v, "OMP_DEFAULT_DEVICE", INT_MAX);
  if (const char* v = env("OMP_MAX_TASK_PRIORITY"))
    s.max_task_priority = parse_nonnegative(v, "OMP_MAX_TASK_PRIORITY", INT_MAX);
  if (const char* v = env("OMP_CANCELLATION")) s.cancellation = parse_bool(v, "OMP_CANCELLATION");
  if (const char* v = env("OMP_ALLOCATOR")) icv.default_allocator = parse_allocator(v);
  if (const char* v = env("OMP_TARGET_OFFLOAD")) {
    const std::string t = trimmed_lower(v);
    if (t == "mandatory") s.offload_mandatory = true;
    else if (t != "default" && t != "disabled") bad("OMP_TARGET_OFFLOAD", v, "MANDATORY, DEFAULT or DISABLED (any case)");
  }
  if (const char* v = env("OMP_NUM_TEAMS")) {
    s.num_teams = parse_nonnegative(v, "OMP_NUM_TEAMS", INT_MAX);
    if (s.num_teams == 0) bad("OMP_NUM_TEAMS", v, "a positive number of teams");
  }
  if (const char* v = env("OMP_TEAMS_THREAD_LIMIT")) {
    s.teams_thread_limit = parse_nonnegative(v, "OMP_TEAMS_THREAD_LIMIT", INT_MAX);
    if (s.teams_thread_limit == 0) bad("OMP_TEAMS_THREAD_LIMIT", v, "a positive thread count");
  }
  if (const char* v = env("OMP_STACKSIZE")) s.stacksize = parse_stacksize(v, "OMP_STACKSIZE");
  if (const char* v = env("OMP_WAIT_POLICY"))
    s.wait_policy = parse_wait_policy(v, "OMP_WAIT_POLICY") == WaitPolicy::active ? 1 : 0;
  if (const char* v = env("OMP_DISPLAY_ENV")) {
    const std::string t = trimmed_lower(v);
    if (t == "verbose") s.display_env = 2;
    else if (t == "true" || t == "1") s.display_env = 1;
    else if (t != "false" && t != "0") bad("OMP_DISPLAY_ENV", v, "TRUE, FALSE or VERBOSE (any case)");
  }
  return s;
}

const char* bind_name(sched::OmpBind b) {
  switch (b) {
    case sched::OmpBind::False: return "FALSE";
    case sched::OmpBind::True: return "TRUE";
    case sched::OmpBind::Primary: return "PRIMARY";
    case sched::OmpBind::Close: return "CLOSE";
    case sched::OmpBind::Spread: return "SPREAD";
  }
  return "?";
}

}  // namespace

bool parse_bool(const std::string& value, const char* variable) {
  const std::string t = trimmed_lower(value);
  if (t == "true" || t == "1") return true;
  if (t == "false" || t == "0") return false;
  bad(variable, value, "TRUE or FALSE (any case)");
}

int parse_nonnegative(const std::string& value, const char* variable, int max) {
  const std::string t = trimmed_lower(value);
  const std::string expected = "a non-negative integer up to " + std::to_string(max);
  if (t.empty() || t.size() > 10) bad(variable, value, expected);
  long long v = 0;
  for (char c : t) {
    if (c < '0' || c > '9') bad(variable, value, expected);
    v = v * 10 + (c - '0');
  }
  if (v > max) bad(variable, value, expected);
  return static_cast<int>(v);
}

std::size_t parse_stacksize(const std::string& value, const char* variable) {
  // OpenMP 5.2 §21.2.2: size | sizeB | sizeK | sizeM | sizeG, K when no unit.
  const std::string expected = "a size such as 512K, 4M or 1G (B, K, M or G; K when none), 16K to 1G";
  std::string t = trimmed_lower(value);
  std::size_t scale = 1024;
  if (!t.empty() && std::isalpha(static_cast<unsigned char>(t.back()))) {
    switch (t.back()) {
      case 'b': scale = 1; break;
      case 'k': scale = 1024; break;
      case 'm': scale = 1024 * 1024; break;
      case 'g': scale = 1024ull * 1024 * 1024; break;
      default: bad(variable, value, expected);
    }
    t.pop_back();
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  }
  if (t.empty() || t.size() > 12) bad(variable, value, expected);
  unsigned long long n = 0;
  for (char c : t) {
    if (c < '0' || c > '9') bad(variable, value, expected);
    n = n * 10 + static_cast<unsigned long long>(c - '0');
  }
  const unsigned long long bytes = n * scale;
  if (n == 0 || bytes / scale != n || bytes < 16 * 1024 || bytes > 1024ull * 1024 * 1024) bad(variable, value, expected);
  return static_cast<std::size_t>(bytes);
}

bool cancel_var = false;

const Settings& settings() {
  static const Settings s = [] {
    try {
      Settings read = read_settings();
      cancel_var = read.cancellation;
      return read;
    } catch (const std::exception& e) {
      fatal_environment(e.what());
    }
  }();
  return s;
}

std::string to_string(const RunSchedule& s) {
  std::string out = s.monotonic ? "MONOTONIC:" : "";
  switch (s.kind) {
    case SchedKind::static_: out += "STATIC"; break;
    case SchedKind::dynamic: out += "DYNAMIC"; break;
    case SchedKind::guided: out += "GUIDED"; break;
    case SchedKind::auto_: out += "AUTO"; break;
  }
  if (s.chunk > 0 && !(s.chunk == 1 && s.kind != SchedKind::static_)) {
    out += ',';
    out += std::to_string(s.chunk);
  }
  return out;
}

void display_env(bool verbose) {
  const Settings& s = settings();
  const Icv& icv = s.initial;
  auto line = [](const char* name, const std::string& value) { std::fprintf(stderr, "  %s = '%s'\n", name, value.c_str()); };
  auto env_or = [](const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return std::string(v ? v : fallback);
  };
  auto join = [](const auto& items, auto name) {
    std::string out;
    for (const auto& item : items) {
      if (!out.empty()) out += ',';
      out += name(item);
    }
    return out;
  };
  const std::string threads = s.nthreads_list.empty() ? std::to_string(icv.nthreads)
                                                      : join(s.nthreads_list, [](int n) { return std::to_string(n); });
  const std::string bind = s.bind_list.empty() ? bind_name(icv.bind) : join(s.bind_list, bind_name);
  std::fprintf(stderr, "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n");
  line("_OPENMP", "201511");
  line("OMP_DYNAMIC", icv.dynamic ? "TRUE" : "FALSE");
  line("OMP_NESTED", icv.max_active_levels > 1 ? "TRUE" : "FALSE");
  line("OMP_NUM_THREADS", threads);
  line("OMP_SCHEDULE", to_string(icv.run_sched));
  line("OMP_PROC_BIND", bind);
  line("OMP_PLACES", env_or("OMP_PLACES", ""));
  line("OMP_STACKSIZE", std::to_string(s.stacksize));
  line("OMP_WAIT_POLICY", s.wait_policy == 1 ? "ACTIVE" : "PASSIVE");
  line("OMP_THREAD_LIMIT", std::to_string(icv.thread_limit));
  line("OMP_MAX_ACTIVE_LEVELS", std::to_string(icv.max_active_levels));
  line("OMP_CANCELLATION", s.cancellation ? "TRUE" : "FALSE");
  line("OMP_DEFAULT_DEVICE", std::to_string(icv.default_device));
  line("OMP_MAX_TASK_PRIORITY", std::to_string(s.max_task_priority));
  line("OMP_ALLOCATOR", kPredefinedAllocators[(icv.default_allocator - 1) % std::size(kPredefinedAllocators)]);
  line("OMP_TARGET_OFFLOAD", env_or("OMP_TARGET_OFFLOAD", "DEFAULT"));
  line("OMP_NUM_TEAMS", std::to_string(s.num_teams));
  line("OMP_TEAMS_THREAD_LIMIT", std::to_string(s.teams_thread_limit));
  if (verbose) {
    line("WEFT_WORKERS", env_or("WEFT_WORKERS", ""));
    line("WEFT_CPUS", env_or("WEFT_CPUS", ""));
    line("WEFT_PLACEMENT", env_or("WEFT_PLACEMENT", ""));
    line("WEFT_STACK_SIZE", env_or("WEFT_STACK_SIZE", ""));
    line("WEFT_IDLE_SPIN_US", env_or("WEFT_IDLE_SPIN_US", ""));
  }
  std::fprintf(stderr, "OPENMP DISPLAY ENVIRONMENT END\n");
}

}  // namespace weft::omp
