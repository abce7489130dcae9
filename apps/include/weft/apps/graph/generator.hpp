#pragma once
// Synthetic graphs with GAPBS's definitions (generator.h), so that the same
// -g / -u / -k make the same kind of graph:
//
//  * Kronecker (R-MAT): 2^scale vertices, degree * 2^scale edges, each edge
//    placed by descending `scale` levels of the adjacency matrix's quadrants
//    with the Graph500 probabilities A = 0.57, B = 0.19, C = 0.19
//    (D = 0.05), then the vertex ids randomly permuted (so that high degree
//    does not mean low id);
//  * uniform random: the same number of edges, both ends uniform over the
//    vertices (Erdős–Rényi-like);
//  * weights, when asked for, uniform in [1, 255].
//
// Like GAPBS, the edge list is marked symmetric (a generated graph is
// undirected) and may hold duplicates and self-loops, which the builder drops.
// Generation is parallel in blocks of 2^18 edges, each drawing from its own
// random stream (seed, block): the same seed gives the same edges on any
// number of workers, on any platform (detail/random.hpp). The streams are
// weft's own, so the graphs are GAPBS's kind of graph, not its exact edges.
//
//   auto edges = weft::graph::generate_edges({.kind = weft::graph::GraphKind::kronecker, .scale = 20});

#include <cstdint>

#include "weft/apps/graph/edge_list.hpp"
#include "weft/apps/graph/progress.hpp"
#include "weft/apps/graph/types.hpp"

namespace weft::graph {

enum class GraphKind { kronecker, uniform };

// The Graph500 R-MAT quadrant probabilities (D = 1 - A - B - C).
inline constexpr double kKroneckerA = 0.57;
inline constexpr double kKroneckerB = 0.19;
inline constexpr double kKroneckerC = 0.19;
// Weights of generated (and of unweighted files loaded for SSSP) edges.
inline constexpr Weight kMinGeneratedWeight = 1;
inline constexpr Weight kMaxGeneratedWeight = 255;

struct GeneratorOptions {
  GraphKind kind = GraphKind::kronecker;
  int scale = 10;       // 2^scale vertices, 1 .. 30
  int degree = 16;      // average degree: degree * 2^scale edges, >= 1
  std::uint64_t seed = kDefaultSeed;
  ProgressFn progress = {};  // reports the "generate" step
};

// Throws std::invalid_argument for a scale outside 1..30 or a degree < 1.
EdgeList generate_edges(const GeneratorOptions& options);
// The same edges (same seed: same endpoints), each with a weight in [1, 255].
WEdgeList generate_weighted_edges(const GeneratorOptions& options);
// Gives every edge a weight uniform in [1, 255] from `seed` (GAPBS's
// InsertWeights: what an unweighted file gets when SSSP needs weights).
WEdgeList add_random_weights(EdgeList edges, std::uint64_t seed = kDefaultSeed);

}  // namespace weft::graph
