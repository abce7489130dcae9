// A program with no OpenMP of its own that calls OpenBLAS's dgemm: Debian's
// libopenblas0-openmp is compiled by GCC with -fopenmp and linked against
// libgomp, so under LD_PRELOAD=libweft-omp.so its worker threads become
// weft's region members (tests/openmp/foreign.cmake compares the output
// with libgomp's). Checks the product against a plain triple loop (every
// row up to n = 255, every (1 + n/256)-th row above) and prints a
// checksum; with a repetition count, the best time goes to stderr
// (bench/openmp/foreign.sh).
//
//   omp_blas_dgemm [n] [reps]
#include <cblas.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 384;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 1;
  if (n < 1 || reps < 1) {
    std::fprintf(stderr, "usage: omp_blas_dgemm [n >= 1] [reps >= 1]\n");
    return 2;
  }
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::vector<double> a(nn), b(nn), c(nn), want(nn, 0.0);
  for (std::size_t i = 0; i < nn; ++i) {
    a[i] = static_cast<double>(i % 7) - 3;
    b[i] = static_cast<double>(i % 5) - 2;
  }
  double best_ms = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0, c.data(), n);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ms < best_ms) best_ms = ms;
  }
  const int stride = 1 + n / 256;  // rows checked: all up to n = 255, then every stride-th
  for (int i = 0; i < n; i += stride)
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        want[static_cast<std::size_t>(i) * n + j] += a[static_cast<std::size_t>(i) * n + k] * b[static_cast<std::size_t>(k) * n + j];
  double checksum = 0;
  for (std::size_t i = 0; i < nn; ++i) {
    if ((i / static_cast<std::size_t>(n)) % static_cast<std::size_t>(stride) == 0 && c[i] != want[i]) {
      // small integers: exact in double
      std::printf("FAIL: c[%zu] = %g, the plain product says %g\n", i, c[i], want[i]);
      return 1;
    }
    checksum += c[i] * static_cast<double>(1 + i % 11);
  }
  std::printf("dgemm %dx%d matches the plain product, checksum %.1f\n", n, n, checksum);
  if (argc > 2) std::fprintf(stderr, "dgemm n=%d best of %d: %.3f ms\n", n, reps, best_ms);
  return 0;
}
