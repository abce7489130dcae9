// weft-startup-probe: one cold start in a fresh process, for
// `weft-bench startup` (bench/startup/suite.cpp).
//
//   weft-startup-probe <impl> <workers>
//
// Starts <impl> with <workers> threads and runs one task on each, then shuts
// it down. Prints "<start_ns> <teardown_ns>": from the first line of main()
// to the moment every worker has run its task (the latency a program pays
// before its parallel work can begin; library loading is before main() and
// counted only in the parent's process wall time), then the shutdown.
// <impl> is one of weft, tbb, openmp, std-thread.
#include <omp.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <weft/runtime.hpp>

namespace {

double now_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int fail(const std::string& why) {
  std::fprintf(stderr, "weft-startup-probe: %s\n", why.c_str());
  return 2;
}

// Each returns {start, teardown} in ns; `t0` is main()'s first timestamp.
struct Times {
  double start = 0, teardown = 0;
};

Times run_weft(int n, double t0) {
  Times t;
  {
    weft::Config c;
    c.workers = n;
    weft::Runtime rt(c);
    std::vector<weft::Ult<int>> tasks;
    for (int w = 0; w < n; ++w) tasks.push_back(rt.spawn_on(w, [] { return weft::this_ult::worker_index(); }));
    for (int w = 0; w < n; ++w)
      if (tasks[static_cast<std::size_t>(w)].join() != w) std::abort();
    t.start = now_ns() - t0;
    t0 = now_ns();
  }
  t.teardown = now_ns() - t0;
  return t;
}

// n tasks that wait for each other, so n threads of the arena must have run one.
Times run_tbb(int n, double t0) {
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
    t.start = now_ns() - t0;
    t0 = now_ns();
    arena.terminate();
  }
  t.teardown = now_ns() - t0;  // TBB's workers outlive the arena: this is the arena only
  return t;
}

Times run_openmp(int n, double t0) {
  Times t;
  std::atomic<int> ran{0};
#pragma omp parallel num_threads(n)
  ran.fetch_add(1);
  if (ran.load() != n) std::abort();
  t.start = now_ns() - t0;
  t.teardown = 0;  // libgomp keeps its team until exit
  return t;
}

Times run_threads(int n, double t0) {
  Times t;
  std::atomic<int> ran{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < n; ++i) ts.emplace_back([&] { ran.fetch_add(1); });
  while (ran.load() < n) std::this_thread::yield();
  t.start = now_ns() - t0;
  t0 = now_ns();
  for (auto& th : ts) th.join();
  t.teardown = now_ns() - t0;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const double t0 = now_ns();
  if (argc != 3) return fail("usage: weft-startup-probe <weft|tbb|openmp|std-thread> <workers>");
  const std::string impl = argv[1];
  char* end = nullptr;
  const long n = std::strtol(argv[2], &end, 10);
  if (*end != '\0' || n < 1 || n > 4096) return fail("workers must be an integer in 1..4096, got '" + std::string(argv[2]) + "'");
  Times t;
  if (impl == "weft") t = run_weft(static_cast<int>(n), t0);
  else if (impl == "tbb") t = run_tbb(static_cast<int>(n), t0);
  else if (impl == "openmp") t = run_openmp(static_cast<int>(n), t0);
  else if (impl == "std-thread") t = run_threads(static_cast<int>(n), t0);
  else return fail("unknown implementation '" + impl + "' (weft, tbb, openmp, std-thread)");
  std::printf("%.0f %.0f\n", t.start, t.teardown);
  return 0;
}
