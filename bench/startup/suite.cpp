// `weft-bench startup`: how long a program waits before its parallel work can
// begin, weft beside oneTBB, OpenMP and std::thread, and what weft's topology
// costs over the plain hwloc load it starts from (issue #3: "keep runtime
// start-up fast, measure it"; the Qthreads community's complaint is slow
// hwloc start-up).
//
//  cold:     a fresh process per repetition (bench/startup/probe.cpp): from
//            main() to "every worker has run one task", so weft's first
//            topology discovery, thread creation and pinning are all in it.
//            Extra columns: the shutdown, the parent's wall time for the
//            whole process, and two parts of it: from the spawn to main()
//            (exec, dynamic loading, static constructors) and from main()'s
//            end to the parent's wait returning (static destructors, atexit
//            handlers, the kernel's exit of every thread and mapping).
//  warm:     the same inside this process after the first time (weft's
//            topology is cached per process; TBB's workers persist).
//  topology: weft's Topology::discover() beside the raw hwloc load it wraps,
//            and loading a saved topology file (docs/topology-format.md).
#include <hwloc.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "first_task.hpp"
#include "harness.hpp"
#include <weft/runtime.hpp>
#include <weft/sched/cpuset.hpp>
#include <weft/sched/topology.hpp>
#include <weft/sched/topology_io.hpp>

namespace weft::bench::startup {
namespace {

// weft's rows: where its start went, in us since its constructor began
// (Stats::startup): every worker constructed, the last worker's loop begun.
void add_startup_columns(Measurement& m, double built_ns, double last_worker_ns) {
  m.extra.push_back({"built us", "us", built_ns / 1000});
  m.extra.push_back({"last up us", "us", last_worker_ns / 1000});
}

// One cold start: runs the probe, returns its times and the process's wall time.
Measurement cold(const std::string& impl, int workers) {
  static const std::string probe = sibling_executable("weft-startup-probe");
  const std::string n = std::to_string(workers);
  const ProcessRun run = run_process(probe, {impl, n});
  double start = 0, teardown = 0, built = 0, last_worker = 0, main_began = 0, main_ends = 0;
  const int fields = run.exited_ok ? std::sscanf(run.output.c_str(), "%lf %lf %lf %lf", &start, &teardown, &built, &last_worker) : 0;
  const std::size_t clock_line = run.output.find("main ");
  const bool clocked = clock_line != std::string::npos &&
                       std::sscanf(run.output.c_str() + clock_line, "main %lf %lf", &main_began, &main_ends) == 2;
  if ((fields != 2 && fields != 4) || !clocked)
    throw std::runtime_error("weft-startup-probe " + impl + " " + n + " failed (output '" + run.output + "')");
  Measurement m{start, 1000};
  m.extra = {{"teardown us", "us", teardown / 1000},
             {"process ms", "ms", run.wall_ns() / 1e6},
             {"to main ms", "ms", (main_began - run.spawned_ns) / 1e6},
             {"after main ms", "ms", (run.reaped_ns - main_ends) / 1e6}};
  if (fields == 4) add_startup_columns(m, built, last_worker);
  return m;
}

// One warm run: t0 just before the call, the shutdown as an extra column.
Measurement warm(Times (*run)(int, double), int workers) {
  const Times t = run(workers, now_ns());
  Measurement m{t.start, 1000};
  m.extra = {{"teardown us", "us", t.teardown / 1000}};
  if (t.workers_built >= 0) add_startup_columns(m, t.workers_built, t.last_worker_running);
  return m;
}

template <class F>
Measurement timed_us(F&& f) {
  const double t0 = now_ns();
  f();
  return {now_ns() - t0, 1000};
}

std::vector<Case> startup_cases(const Options& o) {
  (void)o;
  std::vector<Case> cases;
  const int all = static_cast<int>(sched::allowed_cpus().size());
  std::vector<int> counts{1};
  if (all > 1) counts.push_back(all);
  for (int n : counts) {
    const std::string w = std::to_string(n) + (n == 1 ? "-worker" : "-workers");
    Case c("startup/cold/" + w,
           "fresh process: main() until each of " + std::to_string(n) + " workers ran one task",
           "us");
    c.add(kReference, [n] { return cold("weft", n); });
    c.add("tbb task_arena", [n] { return cold("tbb", n); });
    c.add("openmp parallel", [n] { return cold("openmp", n); });
    c.add("std::thread", [n] { return cold("std-thread", n); });
    cases.push_back(std::move(c));
  }
  for (int n : counts) {
    const std::string w = std::to_string(n) + (n == 1 ? "-worker" : "-workers");
    Case c("startup/warm/" + w,
           "in this process, after the first time: create, one task on each of " + std::to_string(n) +
               " workers, destroy",
           "us");
    c.add(kReference, [n] { return warm(run_weft, n); });
    c.add("tbb task_arena", [n] { return warm(run_tbb, n); });
    c.add("std::thread", [n] { return warm(run_threads, n); });
    cases.push_back(std::move(c));
  }
  {
    // A saved copy of this machine, written once when the case is built and
    // removed at exit.
    struct SavedTopology {
      std::string path = (std::filesystem::temp_directory_path() /
                          ("weft-bench-topology-" + std::to_string(getpid()) + ".txt"))
                             .string();
      SavedTopology() { sched::save_topology(sched::Topology::discover(), path); }
      ~SavedTopology() { std::filesystem::remove(path); }
    };
    static const SavedTopology saved_file;
    const std::string saved = saved_file.path;
    Case c("startup/topology", "this machine's topology: weft's model vs the hwloc load under it", "us");
    c.add(kReference, [] {
      return timed_us([] {
        if (sched::Topology::discover().num_contexts() < 1) throw std::runtime_error("empty topology");
      });
    });
    c.add("hwloc init+load", [] {
      return timed_us([] {
        hwloc_topology_t t;
        if (hwloc_topology_init(&t) != 0 || hwloc_topology_load(t) != 0)
          throw std::runtime_error("hwloc_topology_load failed");
        hwloc_topology_destroy(t);
      });
    });
    c.add("weft load_topology(file)", [saved] {
      return timed_us([&saved] {
        if (sched::load_topology(saved).num_contexts() < 1) throw std::runtime_error("empty topology");
      });
    });
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace

WEFT_BENCH_SUITE("startup",
                 "time until every worker has run a task (fresh process and warm), and topology load, "
                 "beside oneTBB, OpenMP, std::thread and raw hwloc",
                 startup_cases);

}  // namespace weft::bench::startup
