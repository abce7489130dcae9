#pragma once
// Brandes's betweenness centrality (internal): the per-vertex work and the
// per-source state and steps, shared by weft's kernel
// (src/graph/betweenness.cpp) and the OpenMP baseline in weft-bench.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/detail/atomics.hpp"
#include "weft/apps/graph/detail/bitmap.hpp"
#include "weft/apps/graph/detail/frontier.hpp"

namespace weft::graph::detail {

// Forward BFS from u at depth d - 1: claims unvisited out-neighbours for
// depth d (push(v) for each), and for every edge u -> v into depth d marks
// the edge as a shortest-path edge (succ, by edge index) and adds u's path
// count to v's.
template <class Push>
[[gnu::always_inline]] inline void bc_expand(const CSRGraph& g, NodeId u, NodeId d, NodeId* depth, double* sigma, Bitmap& succ,
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
[[gnu::always_inline]] inline float bc_dependency(const CSRGraph& g, NodeId u, const double* sigma, const float* delta, const Bitmap& succ) {
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

// The state of Brandes's algorithm for one source at a time, and its
// parallel parts with the team supplied by the runtime (weft's kernel, the
// OpenMP baseline). Per source: clear sigma (0), depth (-1) and succ (the
// runtime's own loops), start(), forward_member() on every member of a
// team, then backward() for every vertex of each level, deepest first
// (levels()).
struct Brandes {
  explicit Brandes(const CSRGraph& graph)
      : g(graph),
        sigma(static_cast<std::size_t>(graph.num_nodes())),
        depth(static_cast<std::size_t>(graph.num_nodes())),
        delta(static_cast<std::size_t>(graph.num_nodes())),
        succ(static_cast<std::size_t>(graph.num_edges_directed())),
        queue(static_cast<std::size_t>(graph.num_nodes())) {}

  void start(NodeId s) {
    source = s;
    queue.reset();
    level_start.assign(1, 0);
    depth[s] = 0;
    sigma[s] = 1;
    queue.push_back(s);
    queue.slide_window();
  }

  // One member's part of the level-synchronous forward BFS. Team:
  // for_each(lo, hi, body) (dynamic, 64 at a time, no barrier after),
  // barrier(), single(f) (f on one member, then a barrier).
  template <class Team>
  void forward_member(Team& team) {
    QueueBuffer<NodeId> next(queue);
    for (NodeId d = 1; !queue.empty(); ++d) {
      team.for_each(queue.window_begin(), queue.window_end(), [&](std::size_t i) {
        bc_expand(g, queue[i], d, depth.data(), sigma.data(), succ, [&](NodeId v) { next.push_back(v); });
      });
      next.flush();
      team.barrier();
      team.single([&] {
        level_start.push_back(queue.window_end());
        queue.slide_window();
      });
    }
  }

  // Levels with vertices, deepest first: [begin, end) of queue indices.
  std::size_t num_levels() const { return level_start.size() - 1; }
  std::size_t level_begin(std::size_t l) const { return level_start[l]; }
  std::size_t level_end(std::size_t l) const { return level_start[l + 1]; }

  // The dependency of the vertex at queue index i, added to its score unless
  // it is the source (Brandes's C_B(v) sums over sources s != v).
  void backward(std::size_t i, float* scores) {
    const NodeId u = queue[i];
    const float du = bc_dependency(g, u, sigma.data(), delta.data(), succ);
    delta[u] = du;
    if (u != source) scores[u] += du;
  }

  const CSRGraph& g;
  Array<double> sigma;  // shortest paths from the source
  Array<NodeId> depth;
  Array<float> delta;   // dependencies
  Bitmap succ;          // shortest-path edges, by edge index
  SlidingQueue<NodeId> queue;
  std::vector<std::size_t> level_start;
  NodeId source = -1;
};

}  // namespace weft::graph::detail
