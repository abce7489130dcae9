#pragma once
// `weft-bench parallel`: the parallel layer (weft/apps) beside libgomp and
// oneTBB in the same run. One function per group of cases.

#include <vector>

#include "harness.hpp"

namespace weft::bench::parallel {

// EPCC-style overheads: empty region, barrier, parallel_for per schedule, reduction.
std::vector<Case> overhead_cases(const Options& options);
// Real loops: STREAM triad, an imbalanced loop, sparse matrix-vector product.
std::vector<Case> loop_cases(const Options& options);
// parallel_sort / parallel_stable_sort beside std::sort, tbb::parallel_sort,
// __gnu_parallel::sort, std::sort(par), std::stable_sort.
std::vector<Case> sort_cases(const Options& options);

}  // namespace weft::bench::parallel
