// Delta-stepping on weft (sssp.hpp; Meyer and Sanders 2003, §2): one parallel
// region for the whole search; each member keeps its own buckets (GAPBS's
// thread-local bins), and at the end of each phase publishes its share of the
// next bucket, which all members then work through together.
#include "weft/apps/graph/sssp.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernel_checks.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/graph/detail/sssp_steps.hpp"
#include "weft/apps/parallel_region.hpp"

namespace weft::graph {
namespace {

using detail::EdgeClass;
using detail::LocalBuckets;

// A member's own bucket shorter than this is emptied at once, without a
// barrier (bucket fusion; GAPBS's kBinSizeThreshold).
constexpr std::size_t kFusionLimit = 1000;
constexpr std::int64_t kNone = LocalBuckets::kNone;

// What the members share. Each phase's frontier is the concatenation of the
// members' published vectors (each member indexes it through its own prefix
// sums of their sizes); the votes are double-buffered by phase parity (a
// phase's votes are reset by member 0 in the phase before, after everyone has
// read them).
struct Shared {
  explicit Shared(int members) : published(static_cast<std::size_t>(members)) {}
  std::vector<std::vector<NodeId>> published;  // member k's share of the current bucket
  std::atomic<std::int64_t> light_vote[2] = {kNone, kNone};  // smallest non-empty bucket >= the current one
  std::atomic<std::int64_t> heavy_vote[2] = {kNone, kNone};  // the same after the heavy edges
  std::atomic<bool> overflow{false};
};

void vote(std::atomic<std::int64_t>& v, std::int64_t bucket) {
  std::int64_t cur = v.load(std::memory_order_relaxed);
  while (bucket < cur && !v.compare_exchange_weak(cur, bucket, std::memory_order_relaxed)) {
  }
}

}  // namespace

SsspResult sssp(const WeightedCSRGraph& g, NodeId source, const SsspOptions& options) {
  detail::check_source(g, source, "sssp");
  if (options.delta < 1)
    throw std::invalid_argument("sssp: delta " + std::to_string(options.delta) + " must be at least 1");
  if (g.num_edges_directed() > 0 && g.min_weight() < 0)
    throw std::invalid_argument("sssp: the graph has a negative edge weight (" + std::to_string(g.min_weight()) +
                                "); delta-stepping needs weights >= 0");
  return detail::on_runtime([&] {
    const NodeId n = g.num_nodes();
    const Weight delta = options.delta;
    SsspResult r;
    r.distance = Array<Weight>(static_cast<std::size_t>(n), kInfiniteDistance);
    Weight* dist = r.distance.data();
    dist[source] = 0;
    // Delta <= every weight: a vertex taken from bucket i is final (nothing
    // in bucket i can lower it), so all its edges are relaxed at once and no
    // bucket is refilled (the paper's label-setting end). Otherwise light
    // edges go first and heavy ones wait until the bucket is empty.
    const bool settle_at_once = g.num_edges_directed() == 0 || delta <= g.min_weight();
    const bool has_heavy = !settle_at_once && g.max_weight() > delta;
    // The bucket in which a vertex's heavy edges were last queued (so a
    // vertex taken from a bucket twice relaxes them once).
    Array<std::int32_t> heavy_done;
    if (has_heavy) heavy_done = Array<std::int32_t>(static_cast<std::size_t>(n), -1);
    std::int64_t phases = 0, buckets = 0;
    const int members = this_ult::num_workers();
    Shared shared(members);
    shared.published[0].push_back(source);
    ParallelOptions team_options;
    team_options.num_threads = members;
    weft::parallel(team_options, [&](Team& team) {
      const int me = team.thread_num();
      LocalBuckets own(g.max_weight(), delta);
      std::vector<NodeId> settled;  // taken from the current bucket, heavy edges pending
      bool overflow = false;
      std::int64_t bucket = 0;
      std::vector<std::size_t> sizes(static_cast<std::size_t>(members) + 1, 0);  // prefix sums of the shares
      // u taken from bucket `bucket`: relax what the phase relaxes.
      auto take = [&](NodeId u) {
        const Weight du = detail::load(dist[u]);
        if (du / delta < bucket) return;  // stale: settled in an earlier bucket
        if (settle_at_once) {
          detail::relax_edges<EdgeClass::all>(g, dist, u, du, delta, own, overflow);
          return;
        }
        detail::relax_edges<EdgeClass::light>(g, dist, u, du, delta, own, overflow);
        if (has_heavy && std::atomic_ref<std::int32_t>(heavy_done[u]).exchange(static_cast<std::int32_t>(bucket),
                                                                                std::memory_order_relaxed) != bucket)
          settled.push_back(u);
      };
      for (std::int64_t phase = 0; bucket != kNone; ++phase) {
        const int p = static_cast<int>(phase & 1);
        // 1. The light phase over the published share of every member.
        for (std::size_t k = 0; k < shared.published.size(); ++k) sizes[k + 1] = sizes[k] + shared.published[k].size();
        team.for_each(std::size_t{0}, sizes.back(), [&](std::size_t i) {
          const auto k = static_cast<std::size_t>(std::upper_bound(sizes.begin() + 1, sizes.end(), i) - sizes.begin() - 1);
          take(shared.published[k][i - sizes[k]]);
        }, schedule_dynamic(64), nowait);
        while (own.size_of(bucket) > 0 && own.size_of(bucket) < kFusionLimit)
          for (const NodeId u : own.take(bucket)) take(u);
        vote(shared.light_vote[p], own.first_nonempty(bucket));
        team.barrier();
        if (me == 0) {
          shared.light_vote[p ^ 1].store(kNone, std::memory_order_relaxed);
          shared.heavy_vote[p ^ 1].store(kNone, std::memory_order_relaxed);
          ++phases;
        }
        std::int64_t next = shared.light_vote[p].load(std::memory_order_relaxed);
        if (next != bucket) {
          // 2. The bucket stayed empty: relax the heavy edges of what it held.
          if (me == 0) ++buckets;
          if (has_heavy) {
            for (const NodeId u : settled)
              detail::relax_edges<EdgeClass::heavy>(g, dist, u, detail::load(dist[u]), delta, own, overflow);
            settled.clear();
            vote(shared.heavy_vote[p], own.first_nonempty(bucket + 1));
            team.barrier();
            next = shared.heavy_vote[p].load(std::memory_order_relaxed);
          }
        }
        // 3. Publish this member's share of the next bucket.
        shared.published[static_cast<std::size_t>(me)] = next == kNone ? std::vector<NodeId>{} : own.take(next);
        if (overflow) shared.overflow.store(true, std::memory_order_relaxed);
        team.barrier();
        bucket = next;
      }
    });
    if (shared.overflow.load())
      if (const NodeId v = detail::unreached_but_adjacent(g, dist); v >= 0)
        throw std::overflow_error("sssp: the distance to vertex " + std::to_string(v) +
                                  " is longer than the largest distance held (" +
                                  std::to_string(kInfiniteDistance - 1) + ")");
    r.phases = phases;
    r.buckets = buckets;
    return r;
  });
}

Verification verify_sssp(const WeightedCSRGraph& g, NodeId source, std::span<const Weight> distance) {
  const NodeId n = g.num_nodes();
  if (source < 0 || source >= n) return Verification::fail("source " + std::to_string(source) + " is not a vertex");
  if (distance.size() != static_cast<std::size_t>(n))
    return Verification::fail("distance array has " + std::to_string(distance.size()) + " entries, the graph " +
                              std::to_string(n) + " vertices");
  // Serial Dijkstra with a binary heap (GAPBS's oracle), in 64 bits.
  std::vector<std::int64_t> oracle(static_cast<std::size_t>(n), INT64_MAX);
  using Item = std::pair<std::int64_t, NodeId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  oracle[source] = 0;
  heap.push({0, source});
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d != oracle[u]) continue;
    for (const WNode& e : g.out_neigh(u))
      if (d + e.w < oracle[e.v]) {
        oracle[e.v] = d + e.w;
        heap.push({d + e.w, e.v});
      }
  }
  for (NodeId u = 0; u < n; ++u) {
    const std::int64_t want = oracle[u] == INT64_MAX ? kInfiniteDistance : oracle[u];
    if (distance[u] != want)
      return Verification::fail("vertex " + std::to_string(u) + ": distance " + std::to_string(distance[u]) +
                                ", Dijkstra says " + (oracle[u] == INT64_MAX ? "unreachable" : std::to_string(want)));
  }
  return Verification::pass();
}

}  // namespace weft::graph
