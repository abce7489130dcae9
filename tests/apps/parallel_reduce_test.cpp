// parallel_reduce: exact integer folds for every schedule; the documented fold
// order under static (bit-identical floating-point sums run to run, an
// associative but non-commutative combine folded in index order); identity,
// value types, nesting and exceptions; on 1 and 2 workers.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "parallel_test_support.hpp"

namespace {

using weft::test::all_schedules;
using weft::test::scaled;

class ParallelReduce : public weft::test::WorkersTest {};
INSTANTIATE_TEST_SUITE_P(Workers, ParallelReduce, ::testing::Values(1, 2), weft::test::workers_name);

TEST_P(ParallelReduce, IntegerSumsAreExactForEveryScheduleAndSize) {
  on_runtime([&] {
    for (const auto& [name, s] : all_schedules())
      for (long n : {0L, 1L, 2L, 3L, 1000L, scaled(1'000'000, 20)}) {
        const long sum = weft::parallel_reduce(0L, n, 0L, [](long i) { return 3 * i + 1; }, std::plus<>{}, s);
        EXPECT_EQ(sum, 3 * (n * (n - 1) / 2) + n) << name << ", n = " << n;
      }
  });
}

TEST_P(ParallelReduce, AnEmptyRangeGivesTheIdentity) {
  on_runtime([&] {
    EXPECT_EQ(weft::parallel_reduce(7, 7, 42L, [](int) { return 1L; }, std::plus<>{}), 42);
    EXPECT_EQ(weft::parallel_reduce(9, 2, -1.5, [](int) { return 1.0; }, std::plus<>{}), -1.5);
  });
}

double term(long i) { return std::sin(static_cast<double>(i)) / (1.0 + static_cast<double>(i % 1000)); }

// The fold static(0) documents: block k of P = min(workers, n) folded from the
// identity in index order, the blocks' partials combined in order.
double expected_static_sum(long n, int workers) {
  const long p = std::min<long>(workers, n);
  double result = 0;
  for (long k = 0; k < p; ++k) {
    const long q = n / p, r = n % p;
    const long lo = k * q + std::min(k, r), hi = lo + q + (k < r ? 1 : 0);
    double partial = 0.0;
    for (long i = lo; i < hi; ++i) partial = partial + term(i);
    result = k == 0 ? partial : result + partial;
  }
  return result;
}

TEST_P(ParallelReduce, AFloatSumUnderStaticIsTheSameBitsEveryRun) {
  const long n = scaled(200'000, 10);
  const int runs = weft::test::kSanitized ? 5 : 20;
  on_runtime([&] {
    for (const auto& s : {weft::schedule_static(), weft::schedule_static(64), weft::schedule_static(1)}) {
      const double first = weft::parallel_reduce(0L, n, 0.0, term, std::plus<>{}, s);
      for (int r = 1; r < runs; ++r) {
        const double again = weft::parallel_reduce(0L, n, 0.0, term, std::plus<>{}, s);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(again), std::bit_cast<std::uint64_t>(first))
            << weft::to_string(s) << ", run " << r;
      }
      if (s.chunk == 0) {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(first), std::bit_cast<std::uint64_t>(expected_static_sum(n, workers())))
            << "static(0) folds each block in order, then the blocks in order";
      }
    }
  });
}

TEST_P(ParallelReduce, UnderStaticAnAssociativeCombineNeedNotCommute) {
  on_runtime([&] {
    std::string serial;
    for (int i = 0; i < 500; ++i) serial += std::to_string(i) + ",";
    const std::string folded = weft::parallel_reduce(
        0, 500, std::string(), [](int i) { return std::to_string(i) + ","; },
        [](std::string a, const std::string& b) { return a + b; }, weft::schedule_static());
    EXPECT_EQ(folded, serial);
  });
}

struct MinMax {
  long lo, hi;
  explicit MinMax(long v) : lo(v), hi(v) {}  // no default constructor
  MinMax(long l, long h) : lo(l), hi(h) {}
};

TEST_P(ParallelReduce, ValueTypesNeedNoDefaultConstructor) {
  on_runtime([&] {
    for (const auto& [name, s] : all_schedules()) {
      const MinMax r = weft::parallel_reduce(
          0, 10'000, MinMax(1'000'000, -1'000'000), [](int i) { return MinMax((i * 7919) % 10'007); },
          [](const MinMax& a, const MinMax& b) { return MinMax(std::min(a.lo, b.lo), std::max(a.hi, b.hi)); }, s);
      long lo = 1'000'000, hi = -1'000'000;
      for (int i = 0; i < 10'000; ++i) {
        lo = std::min<long>(lo, (i * 7919) % 10'007);
        hi = std::max<long>(hi, (i * 7919) % 10'007);
      }
      EXPECT_EQ(r.lo, lo) << name;
      EXPECT_EQ(r.hi, hi) << name;
    }
  });
}

TEST_P(ParallelReduce, ReductionsNestInsideLoops) {
  on_runtime([&] {
    std::vector<long> row_sums(64);
    weft::parallel_for(0, 64, [&](int r) {
      row_sums[static_cast<std::size_t>(r)] =
          weft::parallel_reduce(0, 1000, 0L, [r](int c) { return static_cast<long>(r) * c; }, std::plus<>{});
    });
    for (int r = 0; r < 64; ++r) EXPECT_EQ(row_sums[static_cast<std::size_t>(r)], r * 499'500L);
  });
}

TEST_P(ParallelReduce, AnExceptionFromMapReachesTheCaller) {
  on_runtime([&] {
    for (const auto& [name, s] : all_schedules()) {
      EXPECT_THROW(weft::parallel_reduce(0, 10'000, 0L, [](int i) -> long {
        if (i == 4321) throw std::out_of_range("map");
        return i;
      }, std::plus<>{}, s), std::out_of_range) << name;
    }
  });
}

TEST(ParallelReduceRuntime, WorksFromAPlainThread) {
  EXPECT_EQ(weft::parallel_reduce(0L, 100'000L, 0L, [](long i) { return i; }, std::plus<>{}),
            100'000L * 99'999L / 2);
}

}  // namespace
