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

#include <cstdio>
#include <cstdlib>
#include <cstring>

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

// Sizes a test down where the sanitizers make every operation slow.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline constexpr int kScale = 8;
#else
inline constexpr int kScale = 1;
#endif

}  // namespace omptest
