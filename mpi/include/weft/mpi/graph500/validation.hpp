#pragma once
// The Graph500 specification's validation of a BFS result (its five checks),
// across ranks, and its choice of search keys.
//
// Levels are the depths in the parent tree (found by a level-synchronous walk
// down the tree from the root, the children lists sent to their parents'
// owners); then, with the graph's edges:
//  1. the parents form a tree rooted at the root: the root is its own parent,
//     every parent is a vertex, and every vertex with a parent is reached by
//     the walk (no cycle, no chain that misses the root);
//  2. tree edges join vertices whose levels differ by exactly one;
//  3. every edge joins vertices whose levels differ by at most one, or that
//     are both outside the tree;
//  4. the tree spans the root's component: no edge has one end in the tree
//     and the other outside;
//  5. a vertex and its parent are joined by an edge of the graph.
// Edges with a remote end are checked by that end's owner, which receives the
// near end's level (one exchange of the cut edges). With levels defined as
// tree depths, check 2 holds by construction for every vertex the walk
// reaches; it is kept as a cross-check of the walk, and a broken tree shows
// in checks 1, 3, 4 or 5 instead.
//
// Collective; from a ULT, or from main() (then on the current weft::Runtime).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "weft/mpi/graph500/distributed_graph.hpp"

namespace weft::mpi::graph500 {

struct Validation {
  std::string problem;                 // empty when all five checks hold (the same on every rank)
  std::int64_t edges_traversed = 0;    // input edges in the searched component (Graph500's TEPS count)
  std::int64_t vertices_reached = 0;
  explicit operator bool() const noexcept { return problem.empty(); }
};

// `parent`: this rank's part of a BFS result (per local vertex, global ids, -1 unreached).
Validation validate_bfs(const DistributedGraph& g, NodeId root, std::span<const NodeId> parent);

// `count` distinct search keys with at least one neighbour other than
// themselves, drawn uniformly at random from `seed` (the specification's
// sampling; the same keys on every rank and for every rank count).
// std::invalid_argument when fewer than `count` vertices have an edge.
std::vector<NodeId> pick_search_keys(const DistributedGraph& g, int count, std::uint64_t seed);

}  // namespace weft::mpi::graph500
