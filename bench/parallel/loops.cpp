// weft-bench parallel: real loops, weft beside libgomp and oneTBB in the same
// run, on 1 and 2 workers.
//
//   stream-triad   a[i] = b[i] + s * c[i] over three arrays of doubles (the
//                  STREAM triad; 24 bytes per element counted, as STREAM
//                  does). Every row first-touches its arrays with the same
//                  loop shape it then measures, so each thread's pages are
//                  where it touched them (a static schedule keeps that true
//                  from loop to loop). GB/s is the extra column.
//   mandelbrot     escape iterations of a 2-D grid, one loop iteration per
//                  row; rows through the set cost up to max_iter times more
//                  than rows outside it: the imbalanced loop where dynamic,
//                  guided and adaptive schedules matter.
//   spmv           y = A x for a CSR matrix whose row lengths follow a
//                  power law (1 to 2000 non-zeros), one iteration per row.
//
// Every run checks its result against a serial computation (bit for bit:
// each element is computed by the same expression in the same order).
#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "parallel/cases.hpp"
#include <weft/weft.hpp>

namespace weft::bench::parallel {
namespace {

constexpr const char* kWeft = kReference;

std::string workers_label(int w) { return std::to_string(w) + (w == 1 ? "-worker" : "-workers"); }

Config workers_config(int workers) {
  Config c;
  c.workers = workers;
  return c;
}

// The implementations of one loop shape: weft with a schedule, OpenMP with a
// schedule clause, oneTBB with a partitioner.
enum class Impl {
  weft_adaptive, weft_static, weft_dynamic, weft_guided,
  omp_static, omp_dynamic, omp_guided,
  tbb_auto, tbb_simple, tbb_static,
};

// Runs body(i) for i in [0, n) with `impl` (inside the caller's runtime,
// OpenMP team or TBB arena, which the caller sets up). `chunk` for the
// dynamic and guided rows, and TBB's simple_partitioner grain.
template <class Body>
void run_loop(Impl impl, long n, long chunk, const Body& body) {
  switch (impl) {
    case Impl::weft_adaptive: weft::parallel_for(0L, n, body); break;
    case Impl::weft_static: weft::parallel_for(0L, n, body, schedule_static()); break;
    case Impl::weft_dynamic: weft::parallel_for(0L, n, body, schedule_dynamic(chunk)); break;
    case Impl::weft_guided: weft::parallel_for(0L, n, body, schedule_guided(chunk)); break;
    case Impl::omp_static: {
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; ++i) body(i);
      break;
    }
    case Impl::omp_dynamic: {
#pragma omp parallel for schedule(dynamic, chunk)
      for (long i = 0; i < n; ++i) body(i);
      break;
    }
    case Impl::omp_guided: {
#pragma omp parallel for schedule(guided, chunk)
      for (long i = 0; i < n; ++i) body(i);
      break;
    }
    case Impl::tbb_auto:
      tbb::parallel_for(tbb::blocked_range<long>(0, n), [&](const tbb::blocked_range<long>& r) {
        for (long i = r.begin(); i != r.end(); ++i) body(i);
      });
      break;
    case Impl::tbb_simple:
      tbb::parallel_for(tbb::blocked_range<long>(0, n, static_cast<std::size_t>(chunk)),
                        [&](const tbb::blocked_range<long>& r) {
                          for (long i = r.begin(); i != r.end(); ++i) body(i);
                        },
                        tbb::simple_partitioner());
      break;
    case Impl::tbb_static:
      tbb::parallel_for(tbb::blocked_range<long>(0, n), [&](const tbb::blocked_range<long>& r) {
        for (long i = r.begin(); i != r.end(); ++i) body(i);
      }, tbb::static_partitioner());
      break;
  }
}

bool is_weft(Impl impl) { return impl <= Impl::weft_guided; }
bool is_omp(Impl impl) { return impl >= Impl::omp_static && impl <= Impl::omp_guided; }

// fn() in the execution context `impl` needs, with `workers` threads.
template <class F>
Measurement in_context(Impl impl, int workers, F fn) {
  if (is_weft(impl)) {
    Runtime rt(workers_config(workers));
    return rt.spawn_on(0, fn).join();
  }
  if (is_omp(impl)) {
    omp_set_num_threads(workers);
    return fn();
  }
  tbb::task_arena arena(workers);
  Measurement m;
  arena.execute([&] { m = fn(); });
  return m;
}

// ---------------------------------------------------------------- STREAM triad

Measurement stream_triad(Impl impl, int workers, long n, int reps) {
  return in_context(impl, workers, [=] {
    // Uninitialised arrays: the first touch is the parallel init below.
    std::unique_ptr<double[]> a(new double[static_cast<std::size_t>(n)]);
    std::unique_ptr<double[]> b(new double[static_cast<std::size_t>(n)]);
    std::unique_ptr<double[]> c(new double[static_cast<std::size_t>(n)]);
    double* pa = a.get();
    double* pb = b.get();
    double* pc = c.get();
    run_loop(impl, n, 4096, [=](long i) {
      pa[i] = 0.0;
      pb[i] = 1.0 + static_cast<double>(i % 7);
      pc[i] = 2.0 - static_cast<double>(i % 5);
    });
    const double s = 3.0;
    auto triad = [=](long i) { pa[i] = pb[i] + s * pc[i]; };
    run_loop(impl, n, 4096, triad);  // warm
    const double t0 = now_ns();
    for (int r = 0; r < reps; ++r) run_loop(impl, n, 4096, triad);
    const double t1 = now_ns();
    for (long i = 0; i < n; i += n / 1024 + 1)
      if (pa[i] != pb[i] + s * pc[i]) throw std::runtime_error("stream triad: wrong a[" + std::to_string(i) + "]");
    const double elements = static_cast<double>(n) * reps;
    return Measurement{t1 - t0, elements, {{"GB/s", "GB/s", 24.0 * elements / (t1 - t0), true}}};
  });
}

// ---------------------------------------------------------------- Mandelbrot

struct Grid {
  int width, height, max_iter;
};

// Escape iterations of the points of row y.
long mandelbrot_row(const Grid& g, long y) {
  long total = 0;
  const double ci = -1.5 + 3.0 * static_cast<double>(y) / g.height;
  for (int x = 0; x < g.width; ++x) {
    const double cr = -2.0 + 3.0 * static_cast<double>(x) / g.width;
    double zr = 0, zi = 0;
    int it = 0;
    while (it < g.max_iter && zr * zr + zi * zi <= 4.0) {
      const double t = zr * zr - zi * zi + cr;
      zi = 2.0 * zr * zi + ci;
      zr = t;
      ++it;
    }
    total += it;
  }
  return total;
}

Measurement mandelbrot(Impl impl, int workers, const Grid& g, const std::vector<long>& expected) {
  return in_context(impl, workers, [&] {
    std::vector<long> rows(static_cast<std::size_t>(g.height));
    long* out = rows.data();
    const double t0 = now_ns();
    run_loop(impl, g.height, 1, [&g, out](long y) { out[y] = mandelbrot_row(g, y); });
    const double t1 = now_ns();
    if (rows != expected) throw std::runtime_error("mandelbrot: a row's iteration count differs from the serial run");
    return Measurement{t1 - t0, static_cast<double>(g.height)};
  });
}

// ---------------------------------------------------------------- SpMV

struct Csr {
  long rows = 0;
  std::vector<long> start;  // rows + 1
  std::vector<int> column;
  std::vector<double> value;
};

// Row lengths from a power law: P(len >= k) ~ 1/k, capped at 2000.
Csr power_law_matrix(long rows, std::uint64_t seed) {
  Csr m;
  m.rows = rows;
  m.start.push_back(0);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> col(0, static_cast<int>(rows - 1));
  for (long r = 0; r < rows; ++r) {
    const long len = std::min<long>(2000, static_cast<long>(1.0 / std::max(u(rng), 1e-9)));
    for (long k = 0; k < len; ++k) {
      m.column.push_back(col(rng));
      m.value.push_back(u(rng) - 0.5);
    }
    m.start.push_back(static_cast<long>(m.column.size()));
  }
  return m;
}

double spmv_row(const Csr& m, const double* x, long r) {
  double sum = 0;
  for (long k = m.start[static_cast<std::size_t>(r)]; k < m.start[static_cast<std::size_t>(r) + 1]; ++k)
    sum += m.value[static_cast<std::size_t>(k)] * x[m.column[static_cast<std::size_t>(k)]];
  return sum;
}

Measurement spmv(Impl impl, int workers, const Csr& m, const std::vector<double>& x,
                 const std::vector<double>& expected, int reps) {
  return in_context(impl, workers, [&] {
    std::vector<double> y(static_cast<std::size_t>(m.rows));
    double* out = y.data();
    const double* in = x.data();
    auto row = [&m, in, out](long r) { out[r] = spmv_row(m, in, r); };
    for (int r = 0; r < 3; ++r) run_loop(impl, m.rows, 64, row);  // warm (fresh runtime: stacks, pools)
    const double t0 = now_ns();
    for (int r = 0; r < reps; ++r) run_loop(impl, m.rows, 64, row);
    const double t1 = now_ns();
    if (y != expected) throw std::runtime_error("spmv: y differs from the serial product");
    const double nnz = static_cast<double>(m.column.size()) * reps;
    return Measurement{t1 - t0, nnz};
  });
}

struct Row {
  const char* name;
  Impl impl;
};

}  // namespace

std::vector<Case> loop_cases(const Options& options) {
  std::vector<Case> cases;
  const long stream_n = options.quick ? (1L << 24) : (1L << 26);
  const int stream_reps = options.quick ? 5 : 10;
  const Grid grid = options.quick ? Grid{512, 512, 500} : Grid{1024, 1024, 1000};
  const long spmv_rows = options.quick ? (1L << 17) : (1L << 20);
  const int spmv_reps = options.quick ? 10 : 20;

  // Shared inputs and serial references, built once, when the first row runs.
  auto mandel_expected = std::make_shared<std::vector<long>>();
  auto matrix = std::make_shared<Csr>();
  auto x = std::make_shared<std::vector<double>>();
  auto spmv_expected = std::make_shared<std::vector<double>>();
  auto prepare_mandel = [=] {
    if (!mandel_expected->empty()) return;
    for (long y = 0; y < grid.height; ++y) mandel_expected->push_back(mandelbrot_row(grid, y));
  };
  auto prepare_spmv = [=] {
    if (matrix->rows != 0) return;
    *matrix = power_law_matrix(spmv_rows, 42);
    for (long i = 0; i < spmv_rows; ++i) x->push_back(std::sin(static_cast<double>(i)));
    for (long r = 0; r < spmv_rows; ++r) spmv_expected->push_back(spmv_row(*matrix, x->data(), r));
  };

  for (int w : {1, 2}) {
    const std::string on = workers_label(w);
    {
      Case c("loops/stream-triad/" + on,
             "a = b + s*c over 3 x " + std::to_string(stream_n) + " doubles (" +
                 std::to_string(3 * stream_n * 8 >> 20) + " MiB), " + std::to_string(stream_reps) +
                 " triads, first touch by the same loop",
             "ns/element");
      for (Row r : {Row{kWeft, Impl::weft_static}, Row{"weft adaptive", Impl::weft_adaptive},
                    Row{"omp static", Impl::omp_static}, Row{"tbb static_partitioner", Impl::tbb_static},
                    Row{"tbb auto_partitioner", Impl::tbb_auto}})
        c.add(r.name, [=] { return stream_triad(r.impl, w, stream_n, stream_reps); });
      cases.push_back(std::move(c));
    }
    {
      Case c("loops/mandelbrot/" + on,
             std::to_string(grid.width) + "x" + std::to_string(grid.height) + " grid, max " +
                 std::to_string(grid.max_iter) + " iterations, one loop iteration per row (imbalanced)",
             "ns/row");
      for (Row r : {Row{kWeft, Impl::weft_adaptive}, Row{"weft dynamic,1", Impl::weft_dynamic},
                    Row{"weft guided,1", Impl::weft_guided}, Row{"weft static", Impl::weft_static},
                    Row{"omp static", Impl::omp_static}, Row{"omp dynamic,1", Impl::omp_dynamic},
                    Row{"omp guided,1", Impl::omp_guided}, Row{"tbb auto_partitioner", Impl::tbb_auto},
                    Row{"tbb simple_partitioner", Impl::tbb_simple}})
        c.add(r.name, [=] {
          prepare_mandel();
          return mandelbrot(r.impl, w, grid, *mandel_expected);
        });
      cases.push_back(std::move(c));
    }
    {
      Case c("loops/spmv/" + on,
             "y = A x, CSR, " + std::to_string(spmv_rows) +
                 " rows with power-law lengths (1..2000 non-zeros), " + std::to_string(spmv_reps) + " products",
             "ns/nonzero");
      for (Row r : {Row{kWeft, Impl::weft_adaptive}, Row{"weft static", Impl::weft_static},
                    Row{"weft dynamic,64", Impl::weft_dynamic}, Row{"omp static", Impl::omp_static},
                    Row{"omp dynamic,64", Impl::omp_dynamic}, Row{"tbb auto_partitioner", Impl::tbb_auto}})
        c.add(r.name, [=] {
          prepare_spmv();
          return spmv(r.impl, w, *matrix, *x, *spmv_expected, spmv_reps);
        });
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace weft::bench::parallel
