// `weft-bench parallel`: registers the suite; the cases live beside it.

#include "parallel/cases.hpp"

namespace weft::bench::parallel {
namespace {

std::vector<Case> all_cases(const Options& options) {
  std::vector<Case> cases;
  for (auto* group : {&overhead_cases, &loop_cases, &sort_cases})
    for (Case& c : group(options)) cases.push_back(std::move(c));
  return cases;
}

}  // namespace
}  // namespace weft::bench::parallel

WEFT_BENCH_SUITE("parallel",
                 "the parallel layer (parallel_for, reductions, regions, sorts) beside libgomp and oneTBB",
                 weft::bench::parallel::all_cases);
