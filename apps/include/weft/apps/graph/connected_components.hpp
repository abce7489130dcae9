#pragma once
// Connected components (the GAP benchmark's CC kernel), two algorithms. Both
// label each vertex with the smallest vertex id of its component (a tree
// node is only ever hooked under a smaller id), so the labels are the same
// whatever the schedule; on a directed graph the components are the weakly
// connected ones.
//
// * Afforest (Sutton, Ben-Nun, Barak, "Optimizing Parallel Graph
//   Connectivity Computation via Subgraph Sampling", IPDPS'18): a forest of
//   trees joined by a lock-free link (CAS on a root) and flattened by
//   compression. "Vertex neighbor sampling": first link only each vertex's
//   first `neighbor_rounds` edges, one round at a time, compressing after
//   each, which already merges most of a skewed graph into one large tree.
//   "Large component skipping": the most frequent label among 1024 random
//   vertices is (almost surely) that tree; the vertices already in it skip
//   their remaining edges, every other vertex links the rest of its own
//   (and, on a directed graph, all its in-edges), and a final compression
//   finishes. GAPBS's default CC.
// * Shiloach-Vishkin (Shiloach, Vishkin, "An O(log n) parallel connectivity
//   algorithm", J. Algorithms 3(1), 1982), as GAPBS writes it with Bader et
//   al.'s optimisations: rounds of hooking (a root is pointed at a smaller
//   label across an edge, either direction) then shortcutting (pointer
//   jumping until every vertex points at a root), until a round hooks
//   nothing.
//
//   auto cc = weft::graph::connected_components(g);   // cc.component[v]

#include <cstdint>
#include <span>

#include "weft/apps/graph/array.hpp"
#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/types.hpp"
#include "weft/apps/graph/verification.hpp"

namespace weft::graph {

struct AfforestOptions {
  int neighbor_rounds = 2;          // edges per vertex linked in the sampling phase (>= 0)
  bool skip_largest_component = true;
};

struct CcResult {
  Array<NodeId> component;  // the smallest vertex id of v's component
  int iterations = 0;       // Shiloach-Vishkin: hook-and-shortcut rounds; Afforest: sampling rounds
};

// Afforest. Throws std::invalid_argument for neighbor_rounds < 0.
CcResult connected_components(const CSRGraph& g, const AfforestOptions& options = {});
// Shiloach-Vishkin.
CcResult connected_components_sv(const CSRGraph& g);

// Serially, against a union-find over every edge: two vertices share a label
// exactly when they are connected (GAP's check), and each label is its
// component's smallest vertex id.
Verification verify_cc(const CSRGraph& g, std::span<const NodeId> component);

// The number of distinct labels.
std::int64_t count_components(std::span<const NodeId> component);

}  // namespace weft::graph
