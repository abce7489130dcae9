#pragma once
// The per-vertex work of ordered triangle counting (internal), shared by
// weft's kernel (src/graph/triangle_count.cpp) and the baselines in
// weft-bench.

#include <cstdint>

#include "weft/apps/graph/csr_graph.hpp"

namespace weft::graph::detail {

// Triangles u > v > w found from u: for each neighbour v < u, merge-walks
// u's neighbours w < v against v's sorted neighbourhood (GAPBS's
// OrderedCount).
[[gnu::always_inline]] inline std::uint64_t ordered_count(const CSRGraph& g, NodeId u) {
  std::uint64_t total = 0;
  const auto nu = g.out_neigh(u);
  for (const NodeId v : nu) {
    if (v > u) break;
    const auto nv = g.out_neigh(v);
    auto it = nv.begin();
    for (const NodeId w : nu) {
      if (w > v) break;
      while (*it < w) ++it;
      if (w == *it) ++total;
    }
  }
  return total;
}

}  // namespace weft::graph::detail
