#pragma once
// Single-source shortest paths by delta-stepping: Meyer and Sanders,
// "Δ-stepping: a parallelizable shortest path algorithm", J. Algorithms
// 49(1), 2003, §2 (the GAP benchmark's SSSP kernel).
//
// Tentative distances sort vertices into buckets of width delta; buckets are
// emptied in order. The paper's algorithm, per bucket i: repeatedly take the
// vertices in bucket i and relax their *light* edges (weight <= delta), which
// may put vertices back into bucket i, until it stays empty (each round is a
// "phase"); then relax the *heavy* edges (weight > delta) of every vertex
// removed from bucket i, once. Heavy edges can only reach later buckets, so
// they are relaxed once per settled vertex instead of once per phase.
// Relaxations are parallel (a CAS lowers a distance); each worker keeps its
// own buckets, shared at the end of each phase as GAPBS does, and a worker
// whose own share of the current bucket is small empties it at once without
// waiting for the others (GAPBS's "bucket fusion", Zhang et al., CGO'20).
//
// delta = 1 with integer weights >= 1 makes every bucket one distance and
// one phase (label-setting, like Dijkstra); a delta larger than every distance
// makes one bucket (label-correcting, like Bellman-Ford). The tests check
// both ends of that claim.
//
//   auto r = weft::graph::sssp(g, source, {.delta = 2});   // r.distance[v], kInfiniteDistance if unreached

#include <cstdint>
#include <limits>
#include <span>

#include "weft/apps/graph/array.hpp"
#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/types.hpp"
#include "weft/apps/graph/verification.hpp"

namespace weft::graph {

// The distance of an unreached vertex (GAPBS's kDistInf).
inline constexpr Weight kInfiniteDistance = std::numeric_limits<Weight>::max() / 2;

struct SsspOptions {
  Weight delta = 1;  // bucket width (-d), >= 1
};

struct SsspResult {
  Array<Weight> distance;
  std::int64_t buckets = 0;  // non-empty buckets emptied
  std::int64_t phases = 0;   // light-edge rounds over all buckets (>= buckets)
};

// Throws std::invalid_argument for a source that is not a vertex, delta < 1,
// or a graph with a negative weight; std::overflow_error when a distance
// would reach kInfiniteDistance.
SsspResult sssp(const WeightedCSRGraph& g, NodeId source, const SsspOptions& options = {});

// Compares every distance with a serial Dijkstra's (GAPBS's check).
Verification verify_sssp(const WeightedCSRGraph& g, NodeId source, std::span<const Weight> distance);

}  // namespace weft::graph
