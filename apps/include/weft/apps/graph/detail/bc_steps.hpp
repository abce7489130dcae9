#pragma once
// The per-vertex work of Brandes's betweenness centrality (internal), shared
// by weft's kernel (src/graph/betweenness.cpp) and the OpenMP baseline in
// weft-bench.

#include <cstddef>
#include <cstdint>

#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/detail/atomics.hpp"
#include "weft/apps/graph/detail/bitmap.hpp"

namespace weft::graph::detail {

// Forward BFS from u at depth d - 1: claims unvisited out-neighbours for
// depth d (push(v) for each), and for every edge u -> v into depth d marks
// the edge as a shortest-path edge (succ, by edge index) and adds u's path
// count to v's.
template <class Push>
inline void bc_expand(const CSRGraph& g, NodeId u, NodeId d, NodeId* depth, double* sigma, Bitmap& succ,
                      Push&& push) {
  const EdgeOffset first = g.out_offsets()[static_cast<std::size_t>(u)];
  const auto neigh = g.out_neigh(u);
  const double sigma_u = load(sigma[u]);
  for (std::size_t i = 0; i < neigh.size(); ++i) {
    const NodeId v = neigh[i];
    NodeId dv = load(depth[v]);
    if (dv == -1) {
      if (compare_and_swap(depth[v], NodeId{-1}, d)) {
        push(v);
        dv = d;
      } else {
        dv = load(depth[v]);  // another worker claimed it (for depth d)
      }
    }
    if (dv == d) {
      succ.set_atomic(static_cast<std::size_t>(first) + i);
      std::atomic_ref<double>(sigma[v]).fetch_add(sigma_u, std::memory_order_relaxed);
    }
  }
}

// Backward step for u (its successors' deltas are final): Brandes's
// dependency delta(u) = sum over shortest-path edges u -> v of
// sigma(u) / sigma(v) * (1 + delta(v)).
inline float bc_dependency(const CSRGraph& g, NodeId u, const double* sigma, const float* delta, const Bitmap& succ) {
  const EdgeOffset first = g.out_offsets()[static_cast<std::size_t>(u)];
  const auto neigh = g.out_neigh(u);
  float delta_u = 0;
  for (std::size_t i = 0; i < neigh.size(); ++i) {
    if (!succ.get(static_cast<std::size_t>(first) + i)) continue;
    const NodeId v = neigh[i];
    delta_u += static_cast<float>((sigma[u] / sigma[v]) * (1 + load(delta[v])));
  }
  return delta_u;
}

}  // namespace weft::graph::detail
