#pragma once
// Delta-stepping's parts (internal), shared by weft's kernel
// (src/graph/sssp.cpp) and the OpenMP baseline in weft-bench: a worker's own
// buckets, the relaxation of a vertex's light, heavy or all edges, and one
// member's loop over the phases (each runtime supplies the team).

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "weft/apps/graph/array.hpp"
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
[[gnu::always_inline]] inline void relax_edges(const WeightedCSRGraph& g, Weight* dist, NodeId u, Weight du, Weight delta,
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

// The state the members of one delta-stepping search share. Each phase's
// frontier is the concatenation of the members' published shares (each
// member indexes it through its own prefix sums of their sizes); the votes
// for the next bucket are double-buffered by phase parity (member 0 resets
// the next phase's after everyone has read them).
struct DeltaStepping {
  static constexpr std::size_t kFusionLimit = 1000;  // GAPBS's kBinSizeThreshold
  static constexpr std::int64_t kNone = LocalBuckets::kNone;

  // heavy_done: n entries of -1 when the graph has heavy edges (allocated
  // and filled by the caller's runtime), else empty.
  DeltaStepping(const WeightedCSRGraph& graph, Weight* distance, Weight bucket_width, NodeId source, int members,
                Array<std::int32_t>& heavy)
      : g(graph),
        dist(distance),
        delta(bucket_width),
        settle_at_once(graph.num_edges_directed() == 0 || bucket_width <= graph.min_weight()),
        has_heavy(!settle_at_once && graph.max_weight() > bucket_width),
        heavy_done(heavy),
        published(static_cast<std::size_t>(members)) {
    published[0].push_back(source);
  }

  const WeightedCSRGraph& g;
  Weight* const dist;
  const Weight delta;
  // delta <= every weight: a vertex taken from bucket i is final (nothing in
  // bucket i can lower it), so all its edges are relaxed at once and no
  // bucket is refilled (the paper's label-setting end). Otherwise light
  // edges go first and heavy ones wait until the bucket stays empty.
  const bool settle_at_once;
  const bool has_heavy;
  Array<std::int32_t>& heavy_done;  // the bucket in which a vertex's heavy edges were queued
  std::vector<std::vector<NodeId>> published;
  std::atomic<std::int64_t> light_vote[2] = {kNone, kNone};  // smallest non-empty bucket >= the current one
  std::atomic<std::int64_t> heavy_vote[2] = {kNone, kNone};  // the same after the heavy edges
  std::atomic<bool> overflow{false};
  std::int64_t phases = 0, buckets = 0;  // written by member 0

  static void vote(std::atomic<std::int64_t>& v, std::int64_t bucket) {
    std::int64_t cur = v.load(std::memory_order_relaxed);
    while (bucket < cur && !v.compare_exchange_weak(cur, bucket, std::memory_order_relaxed)) {
    }
  }

  // One member's part of the search (Meyer and Sanders §2, per bucket: light
  // phases until it stays empty, then the heavy edges of what it held).
  // Team: thread_num(), barrier(), and for_each(lo, hi, body) sharing
  // [lo, hi) among the members (dynamic, 64 at a time) without a barrier
  // after.
  template <class Team>
  void run_member(Team& team) {
    const int me = team.thread_num();
    LocalBuckets own(g.max_weight(), delta);
    std::vector<NodeId> settled;  // taken from the current bucket, heavy edges pending
    std::vector<std::size_t> sizes(published.size() + 1, 0);
    bool overflowed = false;
    std::int64_t bucket = 0;
    auto take = [&](NodeId u) {
      const Weight du = load(dist[u]);
      if (du / delta < bucket) return;  // stale: settled in an earlier bucket
      if (settle_at_once) {
        relax_edges<EdgeClass::all>(g, dist, u, du, delta, own, overflowed);
        return;
      }
      relax_edges<EdgeClass::light>(g, dist, u, du, delta, own, overflowed);
      if (has_heavy && std::atomic_ref<std::int32_t>(heavy_done[u]).exchange(static_cast<std::int32_t>(bucket),
                                                                              std::memory_order_relaxed) != bucket)
        settled.push_back(u);
    };
    for (std::int64_t phase = 0; bucket != kNone; ++phase) {
      const int p = static_cast<int>(phase & 1);
      // 1. A light phase over every member's published share, then this
      //    member's own refills of the bucket while they are few (fusion).
      for (std::size_t k = 0; k < published.size(); ++k) sizes[k + 1] = sizes[k] + published[k].size();
      team.for_each(0, sizes.back(), [&](std::size_t i) {
        const auto k = static_cast<std::size_t>(std::upper_bound(sizes.begin() + 1, sizes.end(), i) - sizes.begin() - 1);
        take(published[k][i - sizes[k]]);
      });
      while (own.size_of(bucket) > 0 && own.size_of(bucket) < kFusionLimit)
        for (const NodeId u : own.take(bucket)) take(u);
      vote(light_vote[p], own.first_nonempty(bucket));
      team.barrier();
      if (me == 0) {
        light_vote[p ^ 1].store(kNone, std::memory_order_relaxed);
        heavy_vote[p ^ 1].store(kNone, std::memory_order_relaxed);
        ++phases;
      }
      std::int64_t next = light_vote[p].load(std::memory_order_relaxed);
      if (next != bucket) {
        // 2. The bucket stayed empty: relax the heavy edges of what it held.
        if (me == 0) ++buckets;
        if (has_heavy) {
          for (const NodeId u : settled) relax_edges<EdgeClass::heavy>(g, dist, u, load(dist[u]), delta, own, overflowed);
          settled.clear();
          vote(heavy_vote[p], own.first_nonempty(bucket + 1));
          team.barrier();
          next = heavy_vote[p].load(std::memory_order_relaxed);
        }
      }
      // 3. Publish this member's share of the next bucket.
      published[static_cast<std::size_t>(me)] = next == kNone ? std::vector<NodeId>{} : own.take(next);
      team.barrier();
      bucket = next;
    }
    if (overflowed) overflow.store(true, std::memory_order_relaxed);
  }
};

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
