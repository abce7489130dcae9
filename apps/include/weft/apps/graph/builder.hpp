#pragma once
// Building a CSRGraph from an edge list, in parallel, the way GAPBS's
// builder does (builder.h: MakeCSR, SquishGraph):
//
//   1. count each vertex's degree (atomic increments, one pass over the edges);
//   2. prefix-sum the degrees into offsets;
//   3. place each edge at its vertex's next free slot;
//   4. sort each neighbourhood, drop duplicates and self-loops, and copy the
//      survivors into arrays of exactly the right size, written by a static
//      loop over the vertices (NUMA first touch: the pages of vertex block k
//      are on worker k's node).
//
// A directed graph gets its in-edges the same way; a symmetrized one (the
// option, or an edge list marked symmetric) stores every edge both ways and is
// undirected. Duplicate weighted edges keep the smallest weight. The edge list
// is consumed (its memory is freed before step 4, so the peak is the edge
// list plus one unsquished CSR, then two CSRs).
//
//   weft::graph::CSRGraph g = weft::graph::build_graph(weft::graph::generate_edges({.scale = 20}));
//
// Errors (std::invalid_argument): a negative vertex id, an id at or past the
// declared vertex count, more than 2^31 - 1 vertices.

#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/edge_list.hpp"
#include "weft/apps/graph/progress.hpp"

namespace weft::graph {

struct BuildOptions {
  // Store every edge in both directions: the graph is undirected (-s).
  bool symmetrize = false;
  // Reports the "build" step (progress.hpp).
  ProgressFn progress = {};
};

CSRGraph build_graph(EdgeList edges, const BuildOptions& options = {});
WeightedCSRGraph build_graph(WEdgeList edges, const BuildOptions& options = {});

// The same graph with vertices renumbered by decreasing degree (ties by old
// id), neighbourhoods sorted: GAPBS's RelabelByDegree, which triangle counting
// uses on skewed graphs. Undirected graphs only (std::invalid_argument
// otherwise). `new_id`, when given, receives old id -> new id.
CSRGraph relabel_by_degree(const CSRGraph& g, Array<NodeId>* new_id = nullptr);

}  // namespace weft::graph
