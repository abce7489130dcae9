#pragma once
// CSRGraph: a graph in compressed sparse row form, GAPBS's layout. For each
// vertex u, its out-neighbours are neighbors[offsets[u] .. offsets[u+1]),
// sorted, without duplicates or self-loops (as the builder leaves them). A
// directed graph also holds its in-edges (the transpose) the same way, which
// pull-style kernels (bottom-up BFS, PageRank) read; an undirected graph
// stores each edge in both directions once and in_neigh() == out_neigh().
//
//   weft::graph::CSRGraph g = weft::graph::build_graph(edges);
//   for (NodeId v : g.out_neigh(u)) ...
//
// WeightedCSRGraph is the same with a WNode (vertex, weight) per entry; it
// also knows its smallest and largest weight (SSSP refuses negative ones and
// sizes its buckets by the largest).
//
// Vertex ids are 32-bit (types.hpp), edge offsets 64-bit. The graph owns its
// arrays and is move-only.

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "weft/apps/graph/array.hpp"
#include "weft/apps/graph/types.hpp"

namespace weft::graph {

template <class Dest>
class BasicCSRGraph {
  static_assert(std::is_same_v<Dest, NodeId> || std::is_same_v<Dest, WNode>);

 public:
  using neighbor_type = Dest;
  static constexpr bool kWeighted = std::is_same_v<Dest, WNode>;

  BasicCSRGraph() = default;
  // An undirected graph: each edge {u, v} appears as v in u's list and u in
  // v's. Throws std::invalid_argument when the arrays do not fit together
  // (offsets of num_nodes + 1 entries from 0 to neighbors.size()).
  BasicCSRGraph(NodeId num_nodes, Array<EdgeOffset> offsets, Array<Dest> neighbors);
  // A directed graph with its out- and in-edges.
  BasicCSRGraph(NodeId num_nodes, Array<EdgeOffset> out_offsets, Array<Dest> out_neighbors,
                Array<EdgeOffset> in_offsets, Array<Dest> in_neighbors);

  BasicCSRGraph(BasicCSRGraph&&) noexcept = default;
  BasicCSRGraph& operator=(BasicCSRGraph&&) noexcept = default;

  bool directed() const noexcept { return directed_; }
  NodeId num_nodes() const noexcept { return num_nodes_; }
  // Edges as GAPBS counts them: directed edges, or undirected edges (each
  // stored twice) for an undirected graph.
  EdgeOffset num_edges() const noexcept { return directed_ ? num_edges_directed() : num_edges_directed() / 2; }
  // Entries in the out-neighbour array.
  EdgeOffset num_edges_directed() const noexcept { return static_cast<EdgeOffset>(out_neighbors_.size()); }

  EdgeOffset out_degree(NodeId u) const noexcept { return out_offsets_[u + 1] - out_offsets_[u]; }
  EdgeOffset in_degree(NodeId u) const noexcept {
    return directed_ ? in_offsets_[u + 1] - in_offsets_[u] : out_degree(u);
  }
  // u's out-neighbours, skipping the first `start` of them (Afforest's
  // neighbour rounds); empty when start >= the degree.
  std::span<const Dest> out_neigh(NodeId u, EdgeOffset start = 0) const noexcept {
    const EdgeOffset lo = std::min(out_offsets_[u] + start, out_offsets_[u + 1]);
    return {out_neighbors_.data() + lo, static_cast<std::size_t>(out_offsets_[u + 1] - lo)};
  }
  std::span<const Dest> in_neigh(NodeId u) const noexcept {
    if (!directed_) return out_neigh(u);
    return {in_neighbors_.data() + in_offsets_[u], static_cast<std::size_t>(in_offsets_[u + 1] - in_offsets_[u])};
  }

  // The raw arrays (in_* are the out_* ones for an undirected graph).
  std::span<const EdgeOffset> out_offsets() const noexcept { return out_offsets_; }
  std::span<const Dest> out_neighbors() const noexcept { return out_neighbors_; }
  std::span<const EdgeOffset> in_offsets() const noexcept { return directed_ ? in_offsets_ : out_offsets_; }
  std::span<const Dest> in_neighbors() const noexcept { return directed_ ? in_neighbors_ : out_neighbors_; }

  // Smallest and largest edge weight (0 when there are no edges); weighted graphs only.
  Weight min_weight() const noexcept requires kWeighted { return min_weight_; }
  Weight max_weight() const noexcept requires kWeighted { return max_weight_; }

  // Bytes held by the graph's arrays.
  std::size_t memory_bytes() const noexcept {
    return out_offsets_.memory_bytes() + out_neighbors_.memory_bytes() + in_offsets_.memory_bytes() +
           in_neighbors_.memory_bytes();
  }

  // Checks what the builder guarantees, in parallel: offsets non-decreasing,
  // every neighbour id in range, each neighbourhood sorted without
  // duplicates or self-loops, and (undirected) every edge present in both
  // directions with the same weight. Throws std::invalid_argument naming the
  // first problem found, prefixed by `what` (e.g. the file it came from).
  void validate(const std::string& what) const;

 private:
  void check_shape(const Array<EdgeOffset>& offsets, const Array<Dest>& neighbors, const char* which) const;
  void find_weight_range();

  NodeId num_nodes_ = 0;
  bool directed_ = false;
  Array<EdgeOffset> out_offsets_;
  Array<Dest> out_neighbors_;
  Array<EdgeOffset> in_offsets_;
  Array<Dest> in_neighbors_;
  Weight min_weight_ = 0;
  Weight max_weight_ = 0;
};

using CSRGraph = BasicCSRGraph<NodeId>;
using WeightedCSRGraph = BasicCSRGraph<WNode>;

extern template class BasicCSRGraph<NodeId>;
extern template class BasicCSRGraph<WNode>;

}  // namespace weft::graph
