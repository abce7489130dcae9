// weft-osci-serve-probe: how fast Osci's combiner serves other workers' nodes,
// on a machine too small to make the combiner the bottleneck by itself.
//
//   weft-osci-serve-probe <workers> <ults per worker> <work> [reps]
//
// Fetch&Multiply whose sequential apply also spins <work> iterations of an
// empty loop, so one combining round lasts long enough for the other workers'
// batches to queue behind it: the combiner serves nodes another core wrote,
// as it does on 16 cores at W=64 with the plain Fetch&Multiply. Prints the
// median ns per operation over <reps> runs (default 5; 4*10^6 operations
// each, timed from a start flag every ULT has seen) and the last run's
// combining degree. Used for A/Bs of the combiner (docs/sync-combining.md).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <weft/runtime.hpp>
#include <weft/sync/osci.hpp>
#include <weft/sync/wait.hpp>

#include "local_work.hpp"

namespace {

namespace ws = weft::sync;

// Fetch&Multiply with a critical section `work` iterations longer.
struct SlowFetchMultiply {
  using Op = std::uint64_t;
  using Result = std::uint64_t;
  std::uint64_t value = 1;
  int work = 0;
  std::uint64_t apply(std::uint64_t k) noexcept {
    // The harness's local work, out of line and at a fixed alignment: how fast
    // a volatile loop runs depends on where it lies, and inlined into the
    // combiner it would move with every change to Osci.
    weft::bench::combining::local_work(static_cast<std::uint64_t>(work));
    const std::uint64_t old = value;
    value *= k;
    return old;
  }
};

long parse(const char* text, const char* what, long lo, long hi) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < lo || v > hi) {
    std::fprintf(stderr, "weft-osci-serve-probe: %s must be an integer in %ld..%ld, got '%s'\n", what, lo, hi, text);
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: weft-osci-serve-probe <workers> <ults per worker> <work> [reps]\n");
    return 2;
  }
  const int workers = static_cast<int>(parse(argv[1], "workers", 1, 1024));
  const int per_worker = static_cast<int>(parse(argv[2], "ults per worker", 1, 1024));
  const int work = static_cast<int>(parse(argv[3], "work", 0, 1000000));
  const int reps = argc == 5 ? static_cast<int>(parse(argv[4], "reps", 1, 1000)) : 5;
  const long ops = 4'000'000;
  const int ults = workers * per_worker;

  weft::Config cfg;
  cfg.workers = workers;
  cfg.stack_size = 64 * 1024;
  weft::Runtime rt(cfg);
  std::vector<double> ns_per_op;
  double degree = 0;
  for (int rep = 0; rep < reps; ++rep) {
    ws::Osci<SlowFetchMultiply, ws::YieldWait> obj(SlowFetchMultiply{.work = work}, ws::OsciConfig{.cores = workers});
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<weft::Ult<std::uint64_t>> running;
    for (int w = 0; w < workers; ++w)
      for (int j = 0; j < per_worker; ++j)
        running.push_back(rt.spawn_on(w, [&] {
          auto h = obj.handle();
          ready.fetch_add(1);
          while (!go.load(std::memory_order_acquire)) weft::this_ult::yield();
          std::uint64_t sum = 0;
          for (long i = 0; i < ops / ults; ++i) sum += obj.apply(h, 3);
          return sum;
        }));
    while (ready.load() < ults) std::this_thread::yield();
    const auto t0 = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    for (auto& u : running) u.join();
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    ns_per_op.push_back(ns / static_cast<double>(ops / ults * ults));
    degree = obj.stats().degree();
  }
  std::sort(ns_per_op.begin(), ns_per_op.end());
  std::printf("workers %d x %d ULTs, work %d: %.2f ns/op [%.2f .. %.2f], degree %.2f\n", workers, per_worker, work,
              ns_per_op[ns_per_op.size() / 2], ns_per_op.front(), ns_per_op.back(), degree);
}
