#pragma once
// GAPBS's RelabelByDegree (builder.h) with the parallel loop and sort passed
// in (internal): weft's relabel_by_degree and the baselines in weft-bench
// run the same steps on their own runtimes.

#include <algorithm>
#include <cstddef>

#include "weft/apps/graph/array.hpp"
#include "weft/apps/graph/csr_graph.hpp"

namespace weft::graph::detail {

// parallel_for(n, body) calls body(u) for every u in [0, n) in parallel;
// sort(first, last, less) sorts in parallel. `new_id_out`, when given,
// receives old id -> new id.
template <class ParallelFor, class Sort>
CSRGraph relabel_by_degree_with(const CSRGraph& g, ParallelFor&& parallel_for, Sort&& sort,
                                Array<NodeId>* new_id_out = nullptr) {
  const NodeId n = g.num_nodes();
  // (degree, id) in decreasing degree, ties by id: a vertex's new id is its rank.
  struct DegreeId {
    EdgeOffset degree;
    NodeId id;
  };
  Array<DegreeId> order(static_cast<std::size_t>(n));
  parallel_for(n, [&](NodeId u) { order[u] = {g.out_degree(u), u}; });
  sort(order.begin(), order.end(), [](const DegreeId& a, const DegreeId& b) {
    return a.degree != b.degree ? a.degree > b.degree : a.id < b.id;
  });
  Array<NodeId> new_id(static_cast<std::size_t>(n));
  parallel_for(n, [&](NodeId rank) { new_id[order[rank].id] = rank; });
  Array<EdgeOffset> offsets(static_cast<std::size_t>(n) + 1);
  offsets[0] = 0;
  for (NodeId rank = 0; rank < n; ++rank) offsets[rank + 1] = offsets[rank] + order[rank].degree;
  Array<NodeId> neighbors(static_cast<std::size_t>(g.num_edges_directed()));
  parallel_for(n, [&](NodeId rank) {
    NodeId* const out = neighbors.data() + offsets[rank];
    NodeId* o = out;
    for (const NodeId v : g.out_neigh(order[rank].id)) *o++ = new_id[v];
    std::sort(out, o);
  });
  if (new_id_out) *new_id_out = std::move(new_id);
  return CSRGraph(n, std::move(offsets), std::move(neighbors));
}

}  // namespace weft::graph::detail
