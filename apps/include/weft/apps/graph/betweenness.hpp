#pragma once
// Betweenness centrality by Brandes's algorithm (Brandes, "A faster algorithm
// for betweenness centrality", J. Math. Sociology 25(2), 2001), from a sample
// of sources (the GAP benchmark's BC kernel: -i sources, default 1).
//
// Per source s: a parallel level-synchronous BFS counts the shortest paths
// sigma(v) to each vertex (CAS to claim a vertex's depth, an atomic add of
// sigma(u) into sigma(v) for each edge u -> v between consecutive levels, and
// a bit per edge marking it as a shortest-path edge, GAPBS's successor
// bitmap); then the dependencies are accumulated backwards, one level at a
// time from the deepest, by Brandes's recursion (his Theorem 6)
//
//   delta(u) = sum over successors w of sigma(u) / sigma(w) * (1 + delta(w)),
//
// each vertex of a level computing its own delta (no atomics), and added to
// its score. Finally, as GAPBS, scores are divided by the largest (unless
// normalize is false), so they lie in [0, 1].
//
//   weft::graph::SourcePicker pick(g);
//   std::vector<NodeId> sources = {pick.next(), pick.next(), pick.next(), pick.next()};
//   auto bc = weft::graph::betweenness_centrality(g, sources);

#include <span>

#include "weft/apps/graph/array.hpp"
#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/types.hpp"
#include "weft/apps/graph/verification.hpp"

namespace weft::graph {

struct BcOptions {
  bool normalize = true;  // divide by the largest score (GAPBS); false: the raw sums of dependencies
};

struct BcResult {
  Array<float> scores;
};

// Throws std::invalid_argument when a source is not a vertex or there are none.
BcResult betweenness_centrality(const CSRGraph& g, std::span<const NodeId> sources, const BcOptions& options = {});

// A serial Brandes from the same sources (depths and successors recomputed,
// GAPBS's check); every score must agree to within 1e-5 of the largest.
Verification verify_bc(const CSRGraph& g, std::span<const NodeId> sources, std::span<const float> scores,
                       const BcOptions& options = {});

}  // namespace weft::graph
