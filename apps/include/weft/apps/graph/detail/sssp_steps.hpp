#pragma once
// The per-vertex work of delta-stepping (internal), shared by weft's kernel
// (src/graph/sssp.cpp) and the OpenMP baseline in weft-bench: a worker's own
// buckets and the relaxation of a vertex's light, heavy or all edges.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/detail/atomics.hpp"
#include "weft/apps/graph/sssp.hpp"

namespace weft::graph::detail {

// One worker's buckets. While bucket i is being emptied every vertex waiting
// anywhere is in a bucket of [i, i + max_weight / delta + 1] (a relaxation
// from bucket i adds at most max_weight), so a ring of that many slots (a
// power of two, at most kMaxSlots) indexed by bucket mod slots holds them
// all; a bitmap of the non-empty slots finds the next one. When weights are
// so much larger than delta that the ring would be too big, a vertex whose
// bucket lies past the ring's window waits in a "far" list and moves into the
// ring once the window reaches it (the buckets at or past the window are only
// asked for through first_nonempty, which moves them first).
class LocalBuckets {
 public:
  static constexpr std::int64_t kNone = INT64_MAX;
  static constexpr std::size_t kMaxSlots = std::size_t{1} << 14;

  LocalBuckets(Weight max_weight, Weight delta)
      : slots_(std::bit_ceil(static_cast<std::size_t>(
            std::min<std::int64_t>(std::max<std::int64_t>(max_weight, 0) / delta + 2, kMaxSlots)))),
        mask_(slots_.size() - 1),
        nonempty_((slots_.size() + 63) / 64, 0) {}

  void push(std::int64_t bucket, NodeId v) {
    if (bucket - floor_ >= static_cast<std::int64_t>(slots_.size())) {
      far_.push_back({bucket, v});
      far_min_ = std::min(far_min_, bucket);
      return;
    }
    put(bucket, v);
  }
  std::size_t size_of(std::int64_t bucket) const { return slots_[static_cast<std::size_t>(bucket) & mask_].size(); }
  // Takes bucket's vertices out (the bucket is then empty). The bucket is
  // one first_nonempty returned, or the current one.
  std::vector<NodeId> take(std::int64_t bucket) {
    const std::size_t s = static_cast<std::size_t>(bucket) & mask_;
    nonempty_[s / 64] &= ~(std::uint64_t{1} << (s % 64));
    return std::exchange(slots_[s], {});
  }
  // The smallest non-empty bucket >= from, or kNone; no bucket below `from`
  // may hold vertices. The ring's window starts at `from` from now on.
  std::int64_t first_nonempty(std::int64_t from) {
    floor_ = from;
    const auto ring = static_cast<std::int64_t>(slots_.size());
    migrate(from + ring);
    const std::size_t start = static_cast<std::size_t>(from) & mask_;
    for (std::size_t scanned = 0; scanned < slots_.size();) {
      const std::size_t s = (start + scanned) & mask_;
      const std::uint64_t word = nonempty_[s / 64] >> (s % 64);
      if (word != 0) {
        const std::size_t ahead = scanned + static_cast<std::size_t>(__builtin_ctzll(word));
        if (ahead < slots_.size()) return from + static_cast<std::int64_t>(ahead);
        break;
      }
      scanned += 64 - s % 64;
    }
    if (far_.empty()) return kNone;
    floor_ = far_min_;  // the ring is empty: move its window to the far list's first bucket
    migrate(floor_ + ring);
    return floor_;
  }

 private:
  struct Far {
    std::int64_t bucket;
    NodeId v;
  };
  void put(std::int64_t bucket, NodeId v) {
    const std::size_t s = static_cast<std::size_t>(bucket) & mask_;
    if (slots_[s].empty()) nonempty_[s / 64] |= std::uint64_t{1} << (s % 64);
    slots_[s].push_back(v);
  }
  // Moves the far vertices of buckets below `limit` into the ring.
  void migrate(std::int64_t limit) {
    if (far_min_ >= limit) return;
    std::size_t kept = 0;
    far_min_ = kNone;
    for (const Far& f : far_) {
      if (f.bucket < limit) {
        put(f.bucket, f.v);
      } else {
        far_[kept++] = f;
        far_min_ = std::min(far_min_, f.bucket);
      }
    }
    far_.resize(kept);
  }

  std::vector<std::vector<NodeId>> slots_;
  std::size_t mask_;
  std::vector<std::uint64_t> nonempty_;
  std::int64_t floor_ = 0;  // the ring holds buckets [floor_, floor_ + slots)
  std::vector<Far> far_;
  std::int64_t far_min_ = kNone;
};

enum class EdgeClass { light, heavy, all };

// Relaxes u's edges of the given class (light: weight <= delta) from
// distance du: lowers dist[v] by CAS where du + w is shorter and puts v in
// its bucket. A distance that would reach kInfiniteDistance, to a vertex not
// yet reached, sets `overflow` (unreached_but_adjacent() then tells whether
// some vertex's real distance cannot be held).
template <EdgeClass kClass>
inline void relax_edges(const WeightedCSRGraph& g, Weight* dist, NodeId u, Weight du, Weight delta,
                        LocalBuckets& buckets, bool& overflow) {
  for (const WNode& e : g.out_neigh(u)) {
    if constexpr (kClass == EdgeClass::light) {
      if (e.w > delta) continue;
    } else if constexpr (kClass == EdgeClass::heavy) {
      if (e.w <= delta) continue;
    }
    const std::int64_t nd = static_cast<std::int64_t>(du) + e.w;
    Weight old = load(dist[e.v]);
    if (nd >= kInfiniteDistance) {
      overflow |= old == kInfiniteDistance;  // maybe a distance too long to hold: checked at the end
      continue;
    }
    if (nd >= old) continue;
    bool lowered = true;
    while (!compare_and_swap(dist[e.v], old, static_cast<Weight>(nd))) {
      old = load(dist[e.v]);
      if (nd >= old) {
        lowered = false;
        break;
      }
    }
    if (lowered) buckets.push(nd / delta, e.v);
  }
}

// A vertex left at kInfiniteDistance with an in-neighbour at a finite one:
// its distance is too long to hold (any shorter one would have been
// stored). -1 if there is none. Serial: only called after an overflow.
inline NodeId unreached_but_adjacent(const WeightedCSRGraph& g, const Weight* dist) {
  for (NodeId v = 0; v < g.num_nodes(); ++v) {
    if (dist[v] != kInfiniteDistance) continue;
    for (const WNode& e : g.in_neigh(v))
      if (dist[e.v] != kInfiniteDistance) return v;
  }
  return -1;
}

}  // namespace weft::graph::detail
