#pragma once
// The per-vertex work of Afforest and Shiloach-Vishkin (internal), shared by
// weft's kernels (src/graph/cc.cpp) and the OpenMP baselines in weft-bench.
// comp[] is a forest; comp[x] <= x always (only roots are hooked, and only
// under a smaller id), so there are no cycles and a root is its tree's
// smallest id.
//
// The per-vertex steps here and in the other *_steps.hpp are always inlined:
// GCC kept afforest_link and compress out of line under weft's loop bodies
// (inlined into OpenMP's outlined functions), 40 % more instructions.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/detail/atomics.hpp"
#include "weft/apps/graph/detail/random.hpp"

namespace weft::graph::detail {

// Afforest's link (Sutton et al., IPDPS'18): joins the trees of u and v by
// hooking the larger root under the smaller with a CAS, retrying up the
// trees when another worker moved a root first.
[[gnu::always_inline]] inline void afforest_link(NodeId u, NodeId v, NodeId* comp) {
  NodeId p1 = load(comp[u]);
  NodeId p2 = load(comp[v]);
  while (p1 != p2) {
    const NodeId high = std::max(p1, p2);
    const NodeId low = std::min(p1, p2);
    const NodeId p_high = load(comp[high]);
    if (p_high == low || (p_high == high && compare_and_swap(comp[high], high, low))) break;
    p1 = load(comp[load(comp[high])]);
    p2 = load(comp[low]);
  }
}

// Pointer jumping: points n straight at its root.
[[gnu::always_inline]] inline void compress(NodeId n, NodeId* comp) {
  NodeId c = load(comp[n]);
  for (NodeId cc = load(comp[c]); c != cc; cc = load(comp[c])) {
    store(comp[n], cc);
    c = cc;
  }
}

// The most frequent label among `samples` random vertices (the largest
// intermediate component, almost surely, after the sampling rounds).
inline NodeId sample_frequent_label(const NodeId* comp, NodeId n, int samples, std::uint64_t seed) {
  SplitMix64 rng(seed, 0xAFF0, 0);
  std::vector<NodeId> seen(static_cast<std::size_t>(samples));
  for (auto& s : seen) s = load(comp[rng.below(static_cast<std::uint64_t>(n))]);
  std::sort(seen.begin(), seen.end());
  NodeId best = seen[0];
  std::size_t best_run = 0;
  for (std::size_t i = 0; i < seen.size();) {
    std::size_t j = i;
    while (j < seen.size() && seen[j] == seen[i]) ++j;
    if (j - i > best_run) best = seen[i], best_run = j - i;
    i = j;
  }
  return best;
}

// One Shiloach-Vishkin hooking pass over u's out-edges (GAPBS's cc_sv.cc,
// with the min-max swap that makes it work on directed graphs): for an edge
// whose ends have different labels, the larger label, if it is a root, is
// pointed at the smaller. Returns whether it hooked anything.
[[gnu::always_inline]] inline bool sv_hook(const CSRGraph& g, NodeId u, NodeId* comp) {
  bool changed = false;
  for (const NodeId v : g.out_neigh(u)) {
    const NodeId comp_u = load(comp[u]);
    const NodeId comp_v = load(comp[v]);
    if (comp_u == comp_v) continue;
    const NodeId high = std::max(comp_u, comp_v);
    const NodeId low = std::min(comp_u, comp_v);
    if (load(comp[high]) == high) {
      store(comp[high], low);
      changed = true;
    }
  }
  return changed;
}

}  // namespace weft::graph::detail
