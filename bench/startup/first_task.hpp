#pragma once
// The start-up runs of `weft-bench startup`, shared by the fresh-process probe
// (probe.cpp, `t0` = main()'s first timestamp) and the warm cases in
// suite.cpp (`t0` = just before the call): start <impl> with n threads, run
// one task on each, shut it down. Each returns {start, teardown} in ns:
// t0 until every thread has run its task, then the shutdown; weft's also
// where its start went (Stats::startup, since its constructor began). A
// wrong result throws std::runtime_error.
#include <omp.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <weft/runtime.hpp>

namespace weft::bench::startup {

inline double steady_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Times {
  double start = 0, teardown = 0;
  double workers_built = -1, last_worker_running = -1;  // weft only
};

inline Times run_weft(int n, double t0) {
  Times t;
  {
    weft::Config c;
    c.workers = n;
    weft::Runtime rt(c);
    std::vector<weft::Ult<int>> tasks;
    for (int w = 0; w < n; ++w) tasks.push_back(rt.spawn_on(w, [] { return weft::this_ult::worker_index(); }));
    for (int w = 0; w < n; ++w)
      if (tasks[static_cast<std::size_t>(w)].join() != w) throw std::runtime_error("weft: a task ran on the wrong worker");
    t.start = steady_ns() - t0;
    const weft::Stats s = rt.stats();  // outside both timings
    t.workers_built = static_cast<double>(s.startup.workers_built_ns);
    t.last_worker_running = static_cast<double>(s.last_worker_started_ns());
    t0 = steady_ns();
  }
  t.teardown = steady_ns() - t0;
  return t;
}

// n tasks that wait for each other, so n threads of the arena must have run one.
inline Times run_tbb(int n, double t0) {
  Times t;
  {
    tbb::task_arena arena(n);
    std::atomic<int> arrived{0};
    arena.execute([&] {
      tbb::parallel_for(0, n, 1, [&](int) {
        arrived.fetch_add(1);
        while (arrived.load() < n) std::this_thread::yield();
      }, tbb::simple_partitioner());
    });
    t.start = steady_ns() - t0;
    t0 = steady_ns();
    arena.terminate();
  }
  t.teardown = steady_ns() - t0;  // TBB's workers outlive the arena: this is the arena only
  return t;
}

inline Times run_openmp(int n, double t0) {
  Times t;
  std::atomic<int> ran{0};
#pragma omp parallel num_threads(n)
  ran.fetch_add(1);
  if (ran.load() != n) throw std::runtime_error("openmp: the team ran " + std::to_string(ran.load()) + " of " + std::to_string(n) + " tasks");
  t.start = steady_ns() - t0;
  t.teardown = 0;  // libgomp keeps its team until exit
  return t;
}

inline Times run_threads(int n, double t0) {
  Times t;
  std::atomic<int> ran{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < n; ++i) ts.emplace_back([&] { ran.fetch_add(1); });
  while (ran.load() < n) std::this_thread::yield();
  t.start = steady_ns() - t0;
  t0 = steady_ns();
  for (auto& th : ts) th.join();
  t.teardown = steady_ns() - t0;
  return t;
}

}  // namespace weft::bench::startup
