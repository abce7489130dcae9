#pragma once
// PageRank, pull direction (the GAP benchmark's PR kernel,
// arXiv:1508.03619): every iteration, each vertex sums the contributions
// score/out_degree of its in-neighbours from the previous iteration:
//
//   score'(u) = (1 - d) / n + d * sum over in-neighbours v of score(v) / out_degree(v)
//
// with damping d = 0.85, starting from 1/n, until the L1 change of an
// iteration is below `tolerance` or after `max_iterations`. Pulling writes
// only the vertex's own score (no atomics); the contributions are double
// buffered, so an iteration reads only the previous one (Jacobi) and the
// scores are the same bits on any number of workers.
//
//   auto r = weft::graph::pagerank(g, {.max_iterations = 20, .tolerance = 1e-4});

#include <span>

#include "weft/apps/graph/array.hpp"
#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/verification.hpp"

namespace weft::graph {

inline constexpr float kDamping = 0.85f;

struct PageRankOptions {
  int max_iterations = 20;  // -i, >= 1
  double tolerance = 1e-4;  // -t, >= 0: stop when the L1 change is below it
};

struct PageRankResult {
  Array<float> scores;
  int iterations = 0;  // iterations run
  double change = 0;   // L1 change of the last one
};

// Throws std::invalid_argument for max_iterations < 1 or a negative tolerance.
PageRankResult pagerank(const CSRGraph& g, const PageRankOptions& options = {});

// Serially: the scores are within `tolerance` (L1) of a serial run with the
// same options, and, when they converged, one more serial (push-direction)
// iteration changes them by less than `tolerance` (GAPBS's check).
Verification verify_pagerank(const CSRGraph& g, std::span<const float> scores, const PageRankOptions& options = {});

}  // namespace weft::graph
