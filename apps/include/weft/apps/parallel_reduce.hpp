#pragma once
// parallel_reduce: a loop that folds one value per index, OpenMP's
// `reduction` clause as a function.
//
//   double sum = weft::parallel_reduce(0, n, 0.0, [&](int i) { return x[i] * y[i]; },
//                                      std::plus<>{}, weft::schedule_static());
//
// Returns the fold, with `combine`, of map(i) for every i in [begin, end)
// (`identity` when the range is empty). Each member folds its chunks in index
// order into its own partial, starting from `identity`; the partials are then
// combined in member order. So:
//  * `identity` must be an identity of `combine` (it is folded in once per
//    member), and `combine` associative;
//  * under schedule_static() (contiguous blocks) that is all: the result is
//    the in-order fold, grouped by block, and the same bit for bit from run
//    to run on the same number of workers (a floating-point sum included);
//  * under any other schedule a member's chunks are not contiguous, so
//    `combine` must also be commutative, and a floating-point result may
//    differ in its last bits from run to run.
// Index types, schedules, nesting, the runtime used and exceptions are as for
// parallel_for (parallel_for.hpp).

#include <concepts>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "weft/apps/detail/index_space.hpp"
#include "weft/apps/detail/loop_driver.hpp"
#include "weft/apps/detail/member_storage.hpp"
#include "weft/apps/schedule.hpp"

namespace weft {

template <detail::loop_index B, detail::loop_index E, class T, class Map, class Combine>
  requires std::invocable<Map&, detail::common_index_t<B, E>> &&
           std::convertible_to<std::invoke_result_t<Combine&, T, T>, T>
T parallel_reduce(B begin, E end, T identity, Map&& map, Combine&& combine,
                  const Schedule& schedule = schedule_adaptive()) {
  const auto space = detail::make_index_space(begin, end, "parallel_reduce");
  if (space.count == 0) return identity;
  detail::MemberArray<detail::Padded<std::optional<T>>, 8> partials(
      static_cast<std::size_t>(detail::parallel_workers()));
  auto chunk = [&](int k, std::uint64_t lo, std::uint64_t hi) {
    std::optional<T>& partial = partials[static_cast<std::size_t>(k)].value;
    T acc = partial ? std::move(*partial) : identity;
    const auto last = space.at(hi);
    for (auto i = space.at(lo); i != last; ++i) acc = combine(std::move(acc), map(i));
    partial = std::move(acc);
  };
  detail::run_loop(space.count, schedule, chunk);
  std::optional<T> result;
  for (std::size_t k = 0; k < partials.size(); ++k) {
    std::optional<T>& p = partials[k].value;
    if (!p) continue;
    result = result ? T(combine(std::move(*result), std::move(*p))) : std::move(*p);
  }
  return result ? std::move(*result) : identity;
}

}  // namespace weft
