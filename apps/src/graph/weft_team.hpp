#pragma once
// The team the shared kernel loops (detail/sssp_steps.hpp, bc_steps.hpp)
// run on, over a weft region's Team (private to src/graph).

#include <cstddef>
#include <utility>

#include "weft/apps/parallel_region.hpp"

namespace weft::graph::detail {

struct WeftTeam {
  Team& team;
  int thread_num() const { return team.thread_num(); }
  void barrier() { team.barrier(); }
  // [lo, hi) shared among the members, 64 at a time, no barrier after.
  template <class Body>
  void for_each(std::size_t lo, std::size_t hi, Body&& body) {
    team.for_each(lo, hi, body, schedule_dynamic(64), nowait);
  }
  template <class F>
  void single(F&& f) {
    team.single(std::forward<F>(f));
  }
};

}  // namespace weft::graph::detail
