// OpenMP (g++'s libgomp) baseline: fib with `#pragma omp task` per call and
// a taskwait, no cutoff, inside one parallel region of `workers` threads
// (omp_set_num_threads). libgomp's wait policy is left at its default
// (OMP_WAIT_POLICY unset), as a user would run it.
#include <omp.h>

#include <stdexcept>
#include <string>

#include "baselines.hpp"

namespace weft::bench::ult {
namespace {

long omp_fib_rec(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
#pragma omp task shared(a) firstprivate(n)
  a = omp_fib_rec(n - 1);
  b = omp_fib_rec(n - 2);
#pragma omp taskwait
  return a + b;
}

}  // namespace

Measurement openmp_fib(int n, int workers) {
  omp_set_num_threads(workers);
  long r = 0;
  int team = 0;
  double t0 = 0, t1 = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      team = omp_get_num_threads();
      t0 = now_ns();
      r = omp_fib_rec(n);
      t1 = now_ns();
    }
  }
  benchmark::DoNotOptimize(r);
  if (team != workers)
    throw std::runtime_error("openmp fib: team of " + std::to_string(team) + ", asked " +
                             std::to_string(workers));
  if (r != fib_value(n))
    throw std::runtime_error("openmp fib: got " + std::to_string(r) + ", expected " +
                             std::to_string(fib_value(n)));
  return {t1 - t0, static_cast<double>(fib_tasks(n))};
}

}  // namespace weft::bench::ult
