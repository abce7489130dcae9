#pragma once
// SourcePicker: the start vertices of BFS, SSSP and BC trials, as GAPBS picks
// them (benchmark.h): a given vertex every time, or a random vertex with at
// least one out-edge, from a fixed seed, so that a run and its verification
// see the same sequence.
//
//   weft::graph::SourcePicker pick(g);          // random, kDefaultSeed
//   auto parent = weft::graph::bfs(g, pick.next()).parent;

#include <cstdint>
#include <stdexcept>
#include <string>

#include "weft/apps/graph/detail/random.hpp"
#include "weft/apps/graph/types.hpp"

namespace weft::graph {

template <class Graph>
class SourcePicker {
 public:
  // given >= 0: always that vertex (std::invalid_argument when g has no such
  // vertex); given < 0: random vertices with an out-edge (std::invalid_argument
  // when g has no edge at all). g must outlive the picker.
  explicit SourcePicker(const Graph& g, std::int64_t given = -1, std::uint64_t seed = kDefaultSeed)
      : g_(&g), given_(given), rng_(seed, 0x5052, 0) {
    if (given >= 0 && given >= g.num_nodes())
      throw std::invalid_argument("source vertex " + std::to_string(given) + " is not a vertex (the graph has " +
                                  std::to_string(g.num_nodes()) + " vertices)");
    if (given < 0 && g.num_edges_directed() == 0)
      throw std::invalid_argument("cannot pick a source vertex: the graph has no edges");
  }

  NodeId next() {
    if (given_ >= 0) return static_cast<NodeId>(given_);
    NodeId u;
    do {
      u = static_cast<NodeId>(rng_.below(static_cast<std::uint64_t>(g_->num_nodes())));
    } while (g_->out_degree(u) == 0);
    return u;
  }

 private:
  const Graph* g_;
  std::int64_t given_;
  detail::SplitMix64 rng_;
};

}  // namespace weft::graph
