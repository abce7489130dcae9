#pragma once
// An edge list: what generators and file readers produce and the builder
// turns into a CSRGraph. Edges may repeat and may be self-loops (the builder
// drops both).

#include "weft/apps/graph/array.hpp"
#include "weft/apps/graph/types.hpp"

namespace weft::graph {

template <class E>
struct BasicEdgeList {
  Array<E> edges;
  // The number of vertices the source declared (a file's header), or -1:
  // one more than the largest id seen.
  NodeId num_nodes = -1;
  // The source says each edge stands for both directions (a generated graph,
  // a symmetric Matrix Market file): the builder symmetrizes it.
  bool symmetric = false;
};

using EdgeList = BasicEdgeList<Edge>;
using WEdgeList = BasicEdgeList<WEdge>;

}  // namespace weft::graph
