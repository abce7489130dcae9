// Constructs weft's runtime does not implement must stop the program with
// a message naming the entry point, never run silently: `target`
// (GOMP_target_ext). argv[1] picks the construct. `cancel`: with
// cancellation off (no OMP_CANCELLATION), a cancel construct is a no-op
// (OpenMP) and the program goes on (cancel_test.cpp tests cancellation on).
#include <cstring>

#include "check.hpp"

int main(int argc, char** argv) {
  omptest::start("unsupported_test");
  const char* what = argc > 1 ? argv[1] : "";
  int x = 0;
  if (std::strcmp(what, "target") == 0) {
#pragma omp target map(tofrom : x)
    x = 1;
  } else if (std::strcmp(what, "cancel") == 0) {
#pragma omp parallel num_threads(2)
    {
#pragma omp cancel parallel
#pragma omp atomic write
      x = 1;
    }
  }
  std::printf("ran %s: x=%d\n", what, x);
  return 0;
}
