#pragma once
// The per-vertex work of direction-optimizing BFS (internal), shared by
// weft's kernel (src/graph/bfs.cpp) and the OpenMP baseline in weft-bench,
// which differ only in how they run it in parallel. parent[] encodes, as in
// GAPBS: >= 0 visited (the parent), < 0 unvisited (minus the out-degree, or
// -1 for a vertex without out-edges).

#include <cstddef>
#include <cstdint>

#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/detail/atomics.hpp"
#include "weft/apps/graph/detail/bitmap.hpp"

namespace weft::graph::detail {

// The unvisited encoding of u.
inline NodeId unvisited_parent(const CSRGraph& g, NodeId u) noexcept {
  const EdgeOffset d = g.out_degree(u);
  return d != 0 ? static_cast<NodeId>(-d) : -1;
}

// Top-down from frontier vertex u: claims each unvisited out-neighbour v
// (CAS parent[v]: -degree -> u), calls push(v) for it, and returns the sum
// of the claimed vertices' out-degrees (their part of m_f).
template <class Push>
[[gnu::always_inline]] inline EdgeOffset claim_neighbors(const CSRGraph& g, NodeId* parent, NodeId u, Push&& push) {
  EdgeOffset scout = 0;
  for (const NodeId v : g.out_neigh(u)) {
    const NodeId curr = load(parent[v]);
    if (curr < 0 && compare_and_swap(parent[v], curr, u)) {
      push(v);
      scout -= curr;
    }
  }
  return scout;
}

// Bottom-up for the 64 vertices of word w of the frontier bitmaps: each
// unvisited vertex looks through its in-neighbours for one in `front`,
// stops at the first, takes it as parent and joins `next`. Writes the whole
// word of `next`; returns how many vertices woke.
[[gnu::always_inline]] inline std::int64_t bottom_up_word(const CSRGraph& g, NodeId* parent, const Bitmap& front, Bitmap& next,
                                   std::size_t w) {
  const NodeId lo = static_cast<NodeId>(w * 64);
  const NodeId hi = static_cast<NodeId>(std::min<std::int64_t>(g.num_nodes(), static_cast<std::int64_t>(lo) + 64));
  std::uint64_t bits = 0;
  std::int64_t awake = 0;
  for (NodeId u = lo; u < hi; ++u) {
    if (load(parent[u]) >= 0) continue;
    for (const NodeId v : g.in_neigh(u)) {
      if (front.get(static_cast<std::size_t>(v))) {
        store(parent[u], v);
        bits |= std::uint64_t{1} << (u - lo);
        ++awake;
        break;
      }
    }
  }
  next.set_word(w, bits);
  return awake;
}

// Appends the vertices of word w of `bm` with push(v).
template <class Push>
[[gnu::always_inline]] inline void push_word_vertices(const Bitmap& bm, std::size_t w, Push&& push) {
  for (std::uint64_t bits = bm.word(w); bits != 0; bits &= bits - 1)
    push(static_cast<NodeId>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))));
}

}  // namespace weft::graph::detail
