// `weft-bench openmp`: unmodified OpenMP code under libgomp and under weft's
// OpenMP runtime (libweft-omp.so, issue #15), in the same run. One process
// cannot hold both runtimes, so every row runs weft-omp-probe (probe.cpp, an
// ordinary `g++ -fopenmp` binary linked against libgomp) in a fresh process:
// as it is for "libgomp", with LD_PRELOAD=libweft-omp.so for "weft". The
// probe prints its own median of --reps repetitions; the harness interleaves
// the rows' runs and reports the median of those.
//
//   sync/*    EPCC syncbench: overhead per construct (ns), delay ~0.1 us
//   sched/*   EPCC schedbench: overhead per loop of 128 iterations/thread
//   task/*    EPCC taskbench-like: time per task (ns)
//   nested/*  a region of 2 members whose members start regions of 2
//             (and again, 3 levels): overhead per outermost region
//   app/*     fib(27) with a task per call, a task-parallel mergesort of
//             2^20 ints, a task per node of a 2^18-node tree, a teams
//             distribute loop: ms per run
//   one-cpu/* a few of the above with the process bound to one CPU and 2
//             threads: the members share a CPU (the kernel may put them so
//             under load; a waiter must then let the other run)
//
// The library is found next to weft-bench's build (../openmp/libweft-omp.so)
// or where WEFT_OMP_LIBRARY says.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness.hpp"

extern char** environ;

namespace weft::bench::openmp {
namespace {

namespace fs = std::filesystem;

fs::path self_dir() { return fs::read_symlink("/proc/self/exe").parent_path(); }

std::string library_path() {
  if (const char* v = std::getenv("WEFT_OMP_LIBRARY")) return v;
  for (const fs::path& p : {self_dir() / "../openmp/libweft-omp.so", self_dir() / "../lib/libweft-omp.so"})
    if (fs::exists(p)) return fs::canonical(p).string();
  throw std::runtime_error("libweft-omp.so not found next to weft-bench's build; set WEFT_OMP_LIBRARY");
}

// Runs the probe for `name` on the given runtime; returns what it printed.
double run_probe(const std::string& name, bool weft, int reps) {
  static const std::string probe = sibling_executable("weft-omp-probe");
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    if (s.rfind("LD_PRELOAD=", 0) != 0) env.push_back(s);
  }
  if (weft) env.push_back("LD_PRELOAD=" + library_path());
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  const std::string r = std::to_string(reps);
  const ProcessRun run = run_process(probe, {name, r}, envp.data());
  double value = 0;
  if (!run.exited_ok || std::sscanf(run.output.c_str(), "%lf", &value) != 1)
    throw std::runtime_error("weft-omp-probe " + name + (weft ? " (weft)" : " (libgomp)") + " failed (output '" +
                             run.output + "')");
  return value;
}

struct Spec {
  const char* name;
  const char* what;
  const char* unit;
  bool quick;  // in --quick runs too
};

const Spec kSpecs[] = {
    {"sync/parallel", "EPCC syncbench PARALLEL: a region around a ~0.1 us delay", "ns/construct", true},
    {"sync/for", "EPCC FOR: a worksharing loop of one iteration per thread", "ns/construct", true},
    {"sync/parallel-for", "EPCC PARALLEL FOR", "ns/construct", true},
    {"sync/barrier", "EPCC BARRIER", "ns/construct", true},
    {"sync/single", "EPCC SINGLE", "ns/construct", true},
    {"sync/critical", "EPCC CRITICAL (contended)", "ns/construct", true},
    {"sync/lock", "EPCC LOCK/UNLOCK (omp_set_lock, contended)", "ns/construct", true},
    {"sync/ordered", "EPCC ORDERED (schedule(static,1))", "ns/construct", false},
    {"sync/atomic", "EPCC ATOMIC", "ns/construct", false},
    {"sync/reduction", "EPCC REDUCTION: a region with reduction(+)", "ns/construct", true},
    {"sched/static", "EPCC schedbench STATIC, 128 iterations per thread", "ns/loop", false},
    {"sched/static-8", "schedule(static, 8)", "ns/loop", false},
    {"sched/dynamic-1", "schedule(dynamic, 1)", "ns/loop", true},
    {"sched/dynamic-8", "schedule(dynamic, 8)", "ns/loop", false},
    {"sched/guided-1", "schedule(guided, 1)", "ns/loop", true},
    {"sched/guided-8", "schedule(guided, 8)", "ns/loop", false},
    {"task/parallel-task", "every member creates tasks (~0.1 us each)", "ns/task", true},
    {"task/master-task", "the master creates all tasks", "ns/task", true},
    {"task/included", "every member runs tasks with if(0) (undeferred): overhead per task", "ns/task", false},
    {"task/taskwait", "task, then taskwait, per member", "ns/task", false},
    {"task/task-barrier", "task, then barrier, per member", "ns/task", false},
    {"task/tree", "a binary tree of 2^14 tasks (taskwait per node)", "ns/task", true},
    {"nested/2-level", "parallel(2) of parallel(2) around a delay", "ns/region", true},
    {"nested/3-level", "parallel(2) x parallel(2) x parallel(2)", "ns/region", true},
    {"app/fib", "fib(27), a task per call (392835 tasks)", "ms", true},
    {"app/mergesort", "mergesort of 2^20 ints, a task per split down to 64", "ms", true},
    {"app/tree", "sum over a 2^18-node binary tree, a task per node", "ms", true},
    {"app/teams", "teams distribute over 2^15 iterations of ~1 us (libgomp runs the teams in turn)", "ms", true},
    {"one-cpu/sync/parallel", "PARALLEL, 2 threads bound to one CPU", "ns/construct", false},
    {"one-cpu/sync/barrier", "BARRIER, 2 threads bound to one CPU", "ns/construct", false},
    {"one-cpu/task/task-barrier", "task, then barrier, 2 threads bound to one CPU", "ns/task", false},
};

std::vector<Case> openmp_cases(const Options& o) {
  std::vector<Case> cases;
  const int reps = o.quick ? 3 : 7;
  for (const Spec& s : kSpecs) {
    if (o.quick && !s.quick) continue;
    Case c(std::string("openmp/") + s.name, s.what, s.unit);
    const std::string name = s.name;
    const double scale = std::string(s.unit) == "ms" ? 1e6 : 1;  // the probe reports ns per 1e6 ns for apps
    c.add(kReference, [name, reps, scale] { return Measurement{run_probe(name, true, reps) * scale, scale}; });
    c.add("libgomp", [name, reps, scale] { return Measurement{run_probe(name, false, reps) * scale, scale}; });
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace

WEFT_BENCH_SUITE("openmp",
                 "unmodified OpenMP code (EPCC-style constructs, nested regions, task programs) under libgomp "
                 "and under weft's libweft-omp.so, each row a fresh process",
                 openmp_cases);

}  // namespace weft::bench::openmp
