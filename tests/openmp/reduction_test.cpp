// Reductions: every built-in operator on a `parallel for`, a user-defined
// reduction, an array section, and the task reductions of OpenMP 5.0
// (parallel reduction(task, ...), taskgroup task_reduction with
// in_reduction tasks, taskloop reduction, for reduction(task, ...)),
// which go through GOMP_parallel_reductions, GOMP_taskgroup_reduction_*,
// GOMP_task_reduction_remap and GOMP_loop_start.
#include <climits>

#include "check.hpp"

namespace {

struct MinMax {
  long lo = LONG_MAX, hi = LONG_MIN;
};
#pragma omp declare reduction(minmax:MinMax : omp_out.lo = omp_in.lo < omp_out.lo ? omp_in.lo : omp_out.lo, \
                              omp_out.hi = omp_in.hi > omp_out.hi ? omp_in.hi : omp_out.hi) initializer(omp_priv = MinMax{})

}  // namespace

int main() {
  omptest::start("reduction_test");
  const long n = 10000;
  long sum = 0, prod = 1, mx = LONG_MIN, mn = LONG_MAX;
  unsigned long band = ~0ul, bor = 0, bxor = 0;
  bool all = true, any = false;
  double dsum = 0;
#pragma omp parallel for reduction(+ : sum, dsum) reduction(* : prod) reduction(max : mx) reduction(min : mn) \
    reduction(& : band) reduction(| : bor) reduction(^ : bxor) reduction(&& : all) reduction(|| : any) schedule(dynamic, 17)
  for (long i = 1; i <= n; ++i) {
    sum += i;
    dsum += static_cast<double>(i);
    if (i % 1000 == 0) prod *= 2;
    mx = i * 7 % 9973 > mx ? i * 7 % 9973 : mx;
    mn = i * 7 % 9973 < mn ? i * 7 % 9973 : mn;
    band &= ~(1ul << (i % 64)) | (i == 5 ? 0ul : ~0ul);
    bor |= 1ul << (i % 40);
    bxor ^= static_cast<unsigned long>(i);
    all = all && i > 0;
    any = any || i == 5000;
  }
  unsigned long want_xor = 0;
  for (long i = 1; i <= n; ++i) want_xor ^= static_cast<unsigned long>(i);
  CHECK(sum == n * (n + 1) / 2, "sum %ld", sum);
  CHECK(dsum == static_cast<double>(n * (n + 1) / 2), "double sum %f", dsum);
  CHECK(prod == 1024, "product %ld", prod);
  CHECK(mx == 9972 && mn == 0, "max %ld min %ld", mx, mn);
  CHECK(band == ~(1ul << 5), "bitand %lx", band);
  CHECK(bor == (1ul << 40) - 1, "bitor %lx", bor);
  CHECK(bxor == want_xor, "bitxor %lx", bxor);
  CHECK(all && any, "logical and/or");

  MinMax m;
#pragma omp parallel for reduction(minmax : m)
  for (long i = 0; i < n; ++i) {
    const long v = (i * 31) % 1237 - 600;
    if (v < m.lo) m.lo = v;
    if (v > m.hi) m.hi = v;
  }
  CHECK(m.lo == -600 && m.hi == 636, "declare reduction: %ld %ld", m.lo, m.hi);

  long hist[4] = {0, 0, 0, 0};
#pragma omp parallel for reduction(+ : hist[:4])
  for (long i = 0; i < n; ++i) hist[i % 4] += 1;
  CHECK(hist[0] == n / 4 && hist[3] == n / 4, "array section reduction %ld %ld", hist[0], hist[3]);

  // parallel reduction(task, +): the members and their tasks add to it.
  long t = 0;
#pragma omp parallel reduction(task, + : t) num_threads(3)
  {
    t += 1;
    for (int k = 0; k < 20; ++k) {
#pragma omp task in_reduction(+ : t)
      t += 10;
    }
  }
  CHECK(t == 3 + 3 * 20 * 10, "parallel reduction(task): %ld", t);

  // taskgroup task_reduction, from one member, tasks on every worker.
  long g = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup task_reduction(+ : g)
    {
      for (int k = 1; k <= 100; ++k) {
#pragma omp task in_reduction(+ : g)
        g += k;
      }
    }
  }
  CHECK(g == 5050, "taskgroup task_reduction: %ld", g);

  // taskloop reduction.
  long tl = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop reduction(+ : tl) grainsize(10)
  for (long i = 0; i < 1000; ++i) tl += i;
  CHECK(tl == 499500, "taskloop reduction: %ld", tl);

  // for reduction(task, +): the loop's tasks join the reduction.
  long f = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp for reduction(task, + : f)
    for (int i = 0; i < 40; ++i) {
#pragma omp task in_reduction(+ : f)
      f += i;
    }
  }
  CHECK(f == 780, "for reduction(task): %ld", f);
  return omptest::finish("reduction_test");
}
