#pragma once
// parallel_for: OpenMP's `#pragma omp parallel for`, as a function.
//
//   weft::parallel_for(0, n, [&](int i) { y[i] = a * x[i] + y[i]; });
//   weft::parallel_for(0, rows, row_body, weft::schedule_dynamic(16));
//
// body(i) is called exactly once for every i in [begin, end), any integral
// index type (mixed begin/end types use their common type; a negative bound
// beside an unsigned one is a std::invalid_argument). begin >= end runs
// nothing. Without a schedule the loop is adaptive (schedule.hpp), and short
// loops run serially (docs/parallel.md, "The serial cutoff"). On a runtime
// with one worker the loop runs serially on the caller.
//
// Runs on the caller's runtime when called from a ULT (nesting works), else on
// the most recent live weft::Runtime, else on the default runtime
// (default_runtime.hpp). The first exception a body throws is rethrown here,
// after every member has stopped; chunks not started by then are skipped.

#include <concepts>
#include <cstdint>

#include "weft/apps/detail/index_space.hpp"
#include "weft/apps/detail/loop_driver.hpp"
#include "weft/apps/schedule.hpp"

namespace weft {

template <detail::loop_index B, detail::loop_index E, class Body>
  requires std::invocable<Body&, detail::common_index_t<B, E>>
void parallel_for(B begin, E end, Body&& body, const Schedule& schedule = schedule_adaptive()) {
  const auto space = detail::make_index_space(begin, end, "parallel_for");
  auto chunk = [space, &body](int, std::uint64_t lo, std::uint64_t hi) { detail::run_chunk(space, lo, hi, body); };
  detail::run_loop(space.count, schedule, chunk);
}

}  // namespace weft
