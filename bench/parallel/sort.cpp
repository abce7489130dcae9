// weft-bench parallel: sort_cases. weft::parallel_sort and
// parallel_stable_sort (thesis §7.7.2, mctop_sort) beside std::sort,
// tbb::parallel_sort, __gnu_parallel::sort (libstdc++'s parallel mode,
// OpenMP), std::sort(std::execution::par) (libstdc++'s PSTL on oneTBB) and
// std::stable_sort, all in one run.
//
// Each case sorts 2^28 32-bit keys (1 GiB; 2^26 with --quick), or as many
// 64-bit keys in the same bytes. Every repetition regenerates the input from
// the same seed (outside the timed region) and verifies the output: sorted,
// and the same sum of keys (nothing lost or duplicated).
//
// Besides the time, each row reports the peak memory the sort added to the
// process: the peak resident set is reset before the sort (writing 5 to
// /proc/self/clear_refs) and read after it (VmHWM in /proc/self/status),
// minus the resident set before it. Freed memory is handed back to the
// kernel first (malloc_trim), so that a row cannot reuse memory a previous
// row left resident. "extra/input" is that figure over the input's bytes.
//
// Rows: "weft" is weft::parallel_sort; "weft scalar kernel" forces the
// scalar key kernels (std::sort chunks, branch-free scalar merges), which
// shows what the SIMD kernels add and what the algorithm alone does.
//
// The uniform 32-bit case also runs on 1, 2, 4, ... workers
// ("sort/uniform-i32/N-workers": weft on a runtime of N workers, oneTBB in
// an arena of N, libstdc++'s parallel mode with N OpenMP threads), the
// speed-up curve `scripts/plot.py scaling` draws.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <execution>
#include <functional>
#include <parallel/algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <weft/apps/sort.hpp>
#include <weft/weft.hpp>

#include "parallel/cases.hpp"

namespace weft::bench::parallel {
namespace {

enum class Shape { Uniform, Sorted, Reverse, FewDistinct };

// The input: the same keys for the same seed, regenerated before every run.
template <class K>
void fill(std::vector<K>& v, Shape shape) {
  std::uint64_t s = 0x9E3779B97F4A7C15ull;  // xorshift64, fixed seed
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    switch (shape) {
      case Shape::Uniform: v[i] = static_cast<K>(s); break;
      case Shape::Sorted: v[i] = static_cast<K>(i); break;
      case Shape::Reverse: v[i] = static_cast<K>(n - i); break;
      case Shape::FewDistinct: v[i] = static_cast<K>(s % 16); break;
    }
  }
}

template <class K>
std::uint64_t key_sum(const std::vector<K>& v) {
  std::uint64_t sum = 0;
  for (K k : v) sum += static_cast<std::uint64_t>(k);
  return sum;
}

// One timed sort of a freshly generated input: time, verification and the
// peak extra memory.
template <class K, class Sort>
Measurement measure_sort(std::size_t n, Shape shape, Sort sort) {
  std::vector<K> v(n);
  fill(v, shape);
  const std::uint64_t sum = key_sum(v);
  const PeakMemory memory;
  const double t0 = now_ns();
  sort(v);
  const double t1 = now_ns();
  const double extra = memory.added_bytes();
  if (!std::is_sorted(v.begin(), v.end()) || key_sum(v) != sum)
    throw std::runtime_error("the output is not a sorted permutation of the input");
  Measurement m{t1 - t0, static_cast<double>(n)};
  const double input_bytes = static_cast<double>(n * sizeof(K));
  m.extra.push_back({"extra MiB", "MiB", extra / (1 << 20), false});
  m.extra.push_back({"extra/input", "ratio", extra / input_bytes, false});
  return m;
}

template <class K>
void add_rows(Case& c, std::size_t n, Shape shape) {
  c.add(kReference, [=] { return measure_sort<K>(n, shape, [](auto& v) { weft::parallel_sort(v.begin(), v.end()); }); });
  c.add("weft stable", [=] {
    return measure_sort<K>(n, shape, [](auto& v) { weft::parallel_stable_sort(v.begin(), v.end()); });
  });
  c.add("weft scalar kernel", [=] {
    return measure_sort<K>(n, shape, [](auto& v) {
      weft::detail::sort_simd::ScopedIsa scalar(weft::detail::sort_simd::Isa::Scalar);
      weft::parallel_sort(v.begin(), v.end());
    });
  });
  c.add("tbb::parallel_sort", [=] {
    return measure_sort<K>(n, shape, [](auto& v) { tbb::parallel_sort(v.begin(), v.end()); });
  });
  c.add("__gnu_parallel::sort", [=] {
    return measure_sort<K>(n, shape, [](auto& v) { __gnu_parallel::sort(v.begin(), v.end()); });
  });
  c.add("std::sort(par)", [=] {
    return measure_sort<K>(n, shape, [](auto& v) { std::sort(std::execution::par, v.begin(), v.end()); });
  });
  c.add("std::sort", [=] { return measure_sort<K>(n, shape, [](auto& v) { std::sort(v.begin(), v.end()); }); });
  c.add("std::stable_sort", [=] {
    return measure_sort<K>(n, shape, [](auto& v) { std::stable_sort(v.begin(), v.end()); });
  });
}

// Powers of two up to every worker the machine gives weft.
std::vector<int> worker_sweep() {
  const int all = weft::sched::default_worker_count();
  std::vector<int> counts;
  for (int w = 1; w < all; w *= 2) counts.push_back(w);
  counts.push_back(all);
  return counts;
}

// The uniform 32-bit sort with `workers` threads in each implementation.
Case sort_on_workers(std::size_t n, const std::string& size, int workers) {
  Case c("sort/uniform-i32/" + std::to_string(workers) + (workers == 1 ? "-worker" : "-workers"),
         std::to_string(n) + " 32-bit keys (" + size + "), uniformly random, on " + std::to_string(workers) +
             " worker(s) or threads",
         "ns/key");
  using K = std::int32_t;
  c.add(kReference, [=] {
    weft::Config config;
    config.workers = workers;
    weft::Runtime rt(config);
    return rt.run([&] { return measure_sort<K>(n, Shape::Uniform, [](auto& v) { weft::parallel_sort(v.begin(), v.end()); }); });
  });
  c.add("tbb::parallel_sort", [=] {
    tbb::task_arena arena(workers);
    return arena.execute(
        [&] { return measure_sort<K>(n, Shape::Uniform, [](auto& v) { tbb::parallel_sort(v.begin(), v.end()); }); });
  });
  c.add("__gnu_parallel::sort", [=] {
    const int before = omp_get_max_threads();
    omp_set_num_threads(workers);
    Measurement m = measure_sort<K>(n, Shape::Uniform, [](auto& v) { __gnu_parallel::sort(v.begin(), v.end()); });
    omp_set_num_threads(before);
    return m;
  });
  return c;
}

}  // namespace

std::vector<Case> sort_cases(const Options& options) {
  const std::size_t bytes = options.quick ? (std::size_t{256} << 20) : (std::size_t{1} << 30);
  const std::size_t n32 = bytes / sizeof(std::uint32_t), n64 = bytes / sizeof(std::uint64_t);
  const std::string size = options.quick ? "256 MiB" : "1 GiB";
  std::vector<Case> cases;
  const struct {
    const char* name;
    Shape shape;
    const char* what;
  } shapes32[] = {
      {"uniform", Shape::Uniform, "uniformly random"},
      {"sorted", Shape::Sorted, "already sorted"},
      {"reverse", Shape::Reverse, "sorted in reverse"},
      {"few-distinct", Shape::FewDistinct, "16 distinct values"},
  };
  for (const auto& s : shapes32) {
    Case c(std::string("sort/") + s.name + "-i32",
           std::to_string(n32) + " 32-bit keys (" + size + "), " + s.what + "; 'extra' = peak memory beyond the input",
           "ns/key");
    add_rows<std::int32_t>(c, n32, s.shape);
    cases.push_back(std::move(c));
  }
  Case c("sort/uniform-i64",
         std::to_string(n64) + " 64-bit keys (" + size + "), uniformly random; 'extra' = peak memory beyond the input",
         "ns/key");
  add_rows<std::int64_t>(c, n64, Shape::Uniform);
  cases.push_back(std::move(c));
  for (int w : worker_sweep()) cases.push_back(sort_on_workers(n32, size, w));
  return cases;
}

}  // namespace weft::bench::parallel
