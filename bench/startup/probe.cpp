// weft-startup-probe: one cold start in a fresh process, for
// `weft-bench startup` (bench/startup/suite.cpp).
//
//   weft-startup-probe <impl> <workers>
//
// Starts <impl> with <workers> threads and runs one task on each, then shuts
// it down. Prints "<start_ns> <teardown_ns>": from the first line of main()
// to the moment every worker has run its task (the latency a program pays
// before its parallel work can begin; library loading is before main() and
// counted only in the parent's process wall time), then the shutdown; for
// weft also "<workers_built_ns> <last_worker_running_ns>" (Stats::startup,
// since its constructor began). A second line, "main <began_ns> <ends_ns>",
// gives main()'s first and last moments on the steady clock, which every
// process of the machine shares.
// <impl> is one of weft, tbb, openmp, std-thread.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "first_task.hpp"

using namespace weft::bench::startup;

namespace {

int fail(const std::string& why) {
  std::fprintf(stderr, "weft-startup-probe: %s\n", why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const double t0 = steady_ns();
  if (argc != 3) return fail("usage: weft-startup-probe <weft|tbb|openmp|std-thread> <workers>");
  const std::string impl = argv[1];
  char* end = nullptr;
  const long n = std::strtol(argv[2], &end, 10);
  if (*end != '\0' || n < 1 || n > 4096) return fail("workers must be an integer in 1..4096, got '" + std::string(argv[2]) + "'");
  Times t;
  try {
    if (impl == "weft") t = run_weft(static_cast<int>(n), t0);
    else if (impl == "tbb") t = run_tbb(static_cast<int>(n), t0);
    else if (impl == "openmp") t = run_openmp(static_cast<int>(n), t0);
    else if (impl == "std-thread") t = run_threads(static_cast<int>(n), t0);
    else return fail("unknown implementation '" + impl + "' (weft, tbb, openmp, std-thread)");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  if (t.workers_built >= 0)
    std::printf("%.0f %.0f %.0f %.0f\n", t.start, t.teardown, t.workers_built, t.last_worker_running);
  else
    std::printf("%.0f %.0f\n", t.start, t.teardown);
  // When main() began and when it returns, on the parent's clock, so that it
  // can split the process's wall time into before, in and after main().
  std::printf("main %.0f %.0f\n", t0, steady_ns());
  return 0;
}
