#pragma once
// parallel_invoke(f, g, ...): runs the callables in parallel (OpenMP's
// `sections`, oneTBB's parallel_invoke) and returns when all are done.
//
//   weft::parallel_invoke([&] { sort(left); }, [&] { sort(right); });
//
// Every callable but the last runs on a new stealable ULT, the last on the
// caller; a ULT no other worker has taken when the caller gets to it runs
// right there (join). They really are concurrent ULTs, even on one worker,
// so callables may wait for each other (a channel, a latch). The first
// exception thrown is rethrown after all have finished. From a plain thread
// they run on the runtime parallel_for would use (default_runtime.hpp).

#include <exception>
#include <tuple>
#include <utility>

#include "weft/apps/default_runtime.hpp"
#include "weft/apps/detail/crew.hpp"
#include "weft/runtime/ult.hpp"

namespace weft {

template <class... F>
  requires(sizeof...(F) >= 1 && (std::invocable<F&> && ...))
void parallel_invoke(F&&... fs) {
  detail::run_on_ult([&] {
    detail::ErrorSlot error;
    auto guarded = [&error](auto& f) {
      try {
        f();
      } catch (...) {
        error.record(std::current_exception());
      }
    };
    constexpr std::size_t n = sizeof...(F);
    Ult<void> ults[n];
    std::size_t k = 0;
    // All but the last on ULTs, in argument order; the last on the caller.
    ((k + 1 < n ? void(ults[k] = spawn([&guarded, &fs] { guarded(fs); })) : guarded(fs), ++k), ...);
    for (std::size_t j = n - 1; j-- > 0;) ults[j].join();  // latest first: the bottom of this deque
    error.rethrow_if_failed();
  });
}

}  // namespace weft
