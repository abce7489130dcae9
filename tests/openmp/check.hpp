// Shared by the OpenMP test programs (tests/openmp/): CHECK(cond, ...) counts
// a failure and prints it; finish() prints the summary and the exit status.
// The programs are plain `g++ -fopenmp` programs: the suite runs each under
// weft's runtime (LD_PRELOAD=libweft-omp.so, or linked in its place in the
// sanitizer builds) and, in the optimized build, under libgomp too, to show
// that the expectations are OpenMP's and not weft's. With
// WEFT_OMP_EXPECT=weft in the environment a program first checks that it
// really runs on weft's runtime (a preload that did not happen would
// otherwise pass quietly on libgomp).
#pragma once

#include <dlfcn.h>
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace omptest {

inline int failures = 0;
inline int checks = 0;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    ++omptest::checks;                                                     \
    if (!(cond)) {                                                         \
      ++omptest::failures;                                                 \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);          \
      std::printf(__VA_ARGS__);                                            \
      std::printf("\n");                                                   \
      std::fflush(stdout);                                                 \
    }                                                                      \
  } while (0)

inline const char* runtime_name() {
  return dlsym(RTLD_DEFAULT, "omp_get_binding_policy") ? "weft" : "libgomp";
}

inline void start(const char* name) {
  const char* expect = std::getenv("WEFT_OMP_EXPECT");
  if (expect && std::strcmp(expect, runtime_name()) != 0) {
    std::printf("FAIL %s: expected to run on %s, runs on %s\n", name, expect, runtime_name());
    std::exit(2);
  }
}

inline int finish(const char* name) {
  if (failures == 0) std::printf("%s: all %d checks passed\n", name, checks);
  else std::printf("%s: %d of %d checks FAILED\n", name, failures, checks);
  return failures == 0 ? 0 : 1;
}

// A region of `n` members passing 2 * `rounds` barriers: before the first of
// each pair every member writes the round into its slot (after a busy wait
// that varies with member and round, so the last arrival comes from
// anywhere), after it every member reads all slots. Returns how often a
// member saw a slot behind the round, i.e. passed a barrier early (0 when
// the barrier is one).
inline int early_barrier_passes(int n, int rounds) {
  std::vector<std::atomic<int>> phase(static_cast<std::size_t>(n));
  std::atomic<int> early{0};
#pragma omp parallel num_threads(n)
  {
    const int me = omp_get_thread_num();
    volatile unsigned sink = 0;
    for (int p = 1; p <= rounds; ++p) {
      for (unsigned spin = (me * 7919u + p * 104729u) % 64; spin > 0; --spin) sink = sink + spin;
      phase[static_cast<std::size_t>(me)] = p;
#pragma omp barrier
      for (int k = 0; k < n; ++k)
        if (phase[static_cast<std::size_t>(k)] < p) early++;
#pragma omp barrier
    }
  }
  return early.load();
}

// Sizes a test down where the sanitizers make every operation slow.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline constexpr int kScale = 8;
#else
inline constexpr int kScale = 1;
#endif

}  // namespace omptest
