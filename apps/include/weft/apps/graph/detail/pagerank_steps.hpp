#pragma once
// The per-vertex work of pull PageRank (internal), shared by weft's kernel
// (src/graph/pagerank.cpp) and the baselines in weft-bench.

#include <cmath>

#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/pagerank.hpp"

namespace weft::graph::detail {

// A vertex's contribution to its out-neighbours (0 without out-edges).
inline float contribution(const CSRGraph& g, NodeId u, float score) noexcept {
  const EdgeOffset d = g.out_degree(u);
  return d != 0 ? score / static_cast<float>(d) : 0.0f;
}

// u's new score from the previous iteration's contributions; stores it and
// u's next contribution, returns |new - old|.
[[gnu::always_inline]] inline double pull_score(const CSRGraph& g, NodeId u, float base, const float* contrib, float* scores,
                         float* next_contrib) {
  float incoming = 0;
  for (const NodeId v : g.in_neigh(u)) incoming += contrib[v];
  const float old = scores[u];
  const float now = base + kDamping * incoming;
  scores[u] = now;
  next_contrib[u] = contribution(g, u, now);
  return std::fabs(static_cast<double>(now) - static_cast<double>(old));
}

}  // namespace weft::graph::detail
