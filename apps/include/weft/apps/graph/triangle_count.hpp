#pragma once
// Triangle counting, ordered (the GAP benchmark's TC kernel, GAPBS's tc.cc):
// each triangle u > v > w is counted once, by u, intersecting its sorted
// neighbourhood with v's and stopping as soon as ids pass v. On a dense
// skewed graph the vertices are first relabelled by decreasing degree
// (builder.hpp, relabel_by_degree), which makes the high-degree vertices the
// small ids that are seldom the "u" doing the work; GAPBS's heuristic decides
// when that pays: an average degree of at least 10 and a sample of degrees
// whose mean exceeds 1.3 times its median (a power law).
//
//   auto tc = weft::graph::triangle_count(g);   // tc.triangles

#include <cstdint>

#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/verification.hpp"

namespace weft::graph {

enum class Relabel { automatic, always, never };

struct TcOptions {
  Relabel relabel = Relabel::automatic;
};

struct TcResult {
  std::uint64_t triangles = 0;
  bool relabelled = false;
};

// The graph must be undirected (std::invalid_argument otherwise) and, as the
// builder leaves it, without duplicate edges or self-loops, neighbourhoods
// sorted.
TcResult triangle_count(const CSRGraph& g, const TcOptions& options = {});

// GAPBS's WorthRelabelling heuristic (above).
bool worth_relabelling(const CSRGraph& g);

// A serial count by another method (edges oriented by degree, the lowest
// corner of each triangle marks its higher neighbours and finds the third
// among theirs; O(m^1.5)).
Verification verify_tc(const CSRGraph& g, std::uint64_t triangles);

}  // namespace weft::graph
