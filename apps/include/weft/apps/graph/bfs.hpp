#pragma once
// Breadth-first search, direction-optimizing: Beamer, Asanović, Patterson,
// "Direction-Optimizing Breadth-First Search", SC'12 (the GAP benchmark's BFS
// kernel, arXiv:1508.03619).
//
// Each level is expanded top-down (every frontier vertex claims its unvisited
// neighbours with a CAS; the frontier is a queue) or bottom-up (every
// unvisited vertex looks through its in-neighbours for one in the frontier
// and stops at the first; the frontier is a bitmap). The paper's hybrid
// heuristic picks the direction: switch to bottom-up when the edges out of
// the frontier, m_f, exceed the edges still unexplored, m_u, divided by
// alpha; switch back to top-down once the frontier shrinks (fewer vertices
// woke than the level before) and holds fewer than n / beta vertices. The
// paper tuned alpha = 14, beta = 24; GAPBS (and the default here) uses 15 and
// 18. Like GAPBS, the parent array doubles as the visited set and, before a
// vertex is visited, holds minus its degree, so m_f is summed as vertices are
// claimed.
//
//   auto r = weft::graph::bfs(g, source);   // r.parent[v]: v's parent, -1 unreached, source's is itself

#include <span>

#include "weft/apps/graph/array.hpp"
#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/types.hpp"
#include "weft/apps/graph/verification.hpp"

namespace weft::graph {

enum class BfsDirection {
  optimizing,      // the hybrid (default)
  top_down_only,   // the classic level-synchronous BFS
  bottom_up_only,  // every level bottom-up
};

struct BfsOptions {
  int alpha = 15;  // switch to bottom-up when m_f > m_u / alpha (>= 1)
  int beta = 18;   // back to top-down when the frontier < n / beta vertices (>= 1)
  BfsDirection direction = BfsDirection::optimizing;
};

struct BfsResult {
  Array<NodeId> parent;  // parent[v]: the vertex v was reached from; -1 unreached; parent[source] = source
  int top_down_steps = 0;
  int bottom_up_steps = 0;
};

// Runs on the caller's runtime (or the one a parallel loop would use).
// Throws std::invalid_argument for a source that is not a vertex or alpha,
// beta < 1.
BfsResult bfs(const CSRGraph& g, NodeId source, const BfsOptions& options = {});

// GAPBS's check, serially: a BFS from `source` gives each vertex's depth;
// then parent[source] == source, every reached vertex has a parent that is
// an in-neighbour one level closer, and exactly the reachable vertices have
// parents.
Verification verify_bfs(const CSRGraph& g, NodeId source, std::span<const NodeId> parent);

// The edges a BFS traversed, Graph500's count for TEPS: the edges with an
// end in the reached component (undirected edges once, directed out-edges of
// reached vertices).
EdgeOffset bfs_edges_traversed(const CSRGraph& g, std::span<const NodeId> parent);

}  // namespace weft::graph
