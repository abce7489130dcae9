#pragma once
// The orders in which a socket hands out its contexts (internal), shared by
// the MCTOP-PLACE policies (placement.cpp) and POWER's optimiser
// (power_placement.cpp).

#include <algorithm>
#include <vector>

#include "weft/sched/topology.hpp"

namespace weft::sched::detail {

// Contexts of a socket, compactly: all contexts of a core, then the next core.
inline std::vector<int> hwc_order(const Topology& t, int s) {
  std::vector<int> out;
  for (int core : t.socket_cores(s))
    for (int c : t.core_contexts(core)) out.push_back(c);
  return out;
}

// Contexts of a socket, cores first: 1st context of every core, then 2nd, ...
inline std::vector<int> core_order(const Topology& t, int s) {
  std::vector<int> out;
  for (int h = 0; h < t.max_contexts_per_core(); ++h)
    for (int core : t.socket_cores(s))
      if (h < static_cast<int>(t.core_contexts(core).size())) out.push_back(t.core_contexts(core)[h]);
  return out;
}

// Contexts of a socket, compactly, fullest cores first (so that k contexts
// touch as few cores as possible even when cores differ in context count).
inline std::vector<int> hwc_order_fewest_cores(const Topology& t, int s) {
  std::vector<int> cores = t.socket_cores(s);
  std::stable_sort(cores.begin(), cores.end(), [&](int a, int b) {
    return t.core_contexts(a).size() > t.core_contexts(b).size();
  });
  std::vector<int> out;
  for (int core : cores)
    for (int c : t.core_contexts(core)) out.push_back(c);
  return out;
}

}  // namespace weft::sched::detail
