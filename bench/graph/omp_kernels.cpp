// The OpenMP baselines of `weft-bench graph` (baselines.hpp): GAPBS's
// parallel structure (bfs.cc, sssp.cc, pr.cc, cc.cc, cc_sv.cc, bc.cc, tc.cc)
// around weft's per-vertex steps.
#include <omp.h>
#include <parallel/algorithm>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "graph/baselines.hpp"
#include "weft/apps/graph/detail/bc_steps.hpp"
#include "weft/apps/graph/detail/bfs_steps.hpp"
#include "weft/apps/graph/detail/cc_steps.hpp"
#include "weft/apps/graph/detail/frontier.hpp"
#include "weft/apps/graph/detail/pagerank_steps.hpp"
#include "weft/apps/graph/detail/relabel.hpp"
#include "weft/apps/graph/detail/sssp_steps.hpp"
#include "weft/apps/graph/detail/tc_steps.hpp"

namespace weft::bench::graph {
namespace {

using wg::EdgeOffset;
using wg::NodeId;
using wg::detail::Bitmap;
using wg::detail::QueueBuffer;
using wg::detail::SlidingQueue;

// Arrays are filled by an OpenMP static loop here (their first touch), as
// weft's Array(n, value) does with a static weft loop.
template <class T>
wg::Array<T> omp_array(std::size_t n, T value) {
  wg::Array<T> a(n);
  T* p = a.data();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) p[i] = value;
  return a;
}

void omp_reset(Bitmap& bm) {
  std::uint64_t* w = bm.words();
  const std::size_t n = bm.num_words();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) w[i] = 0;
}

// ------------------------------------------------------------------ BFS

EdgeOffset td_step(const wg::CSRGraph& g, NodeId* parent, SlidingQueue<NodeId>& queue) {
  EdgeOffset scout = 0;
  const std::size_t lo = queue.window_begin(), hi = queue.window_end();
#pragma omp parallel
  {
    QueueBuffer<NodeId> next(queue);
#pragma omp for reduction(+ : scout) nowait
    for (std::size_t i = lo; i < hi; ++i)
      scout += wg::detail::claim_neighbors(g, parent, queue[i], [&](NodeId v) { next.push_back(v); });
    next.flush();
  }
  queue.slide_window();
  return scout;
}

std::int64_t bu_step(const wg::CSRGraph& g, NodeId* parent, const Bitmap& front, Bitmap& next) {
  std::int64_t awake = 0;
  const std::size_t words = front.num_words();
#pragma omp parallel for reduction(+ : awake) schedule(dynamic, 16)
  for (std::size_t w = 0; w < words; ++w) awake += wg::detail::bottom_up_word(g, parent, front, next, w);
  return awake;
}

void queue_to_bitmap(const SlidingQueue<NodeId>& queue, Bitmap& bm) {
  omp_reset(bm);
  const std::size_t lo = queue.window_begin(), hi = queue.window_end();
#pragma omp parallel for
  for (std::size_t i = lo; i < hi; ++i) bm.set_atomic(static_cast<std::size_t>(queue[i]));
}

void bitmap_to_queue(const Bitmap& bm, SlidingQueue<NodeId>& queue) {
  const std::size_t words = bm.num_words();
#pragma omp parallel
  {
    QueueBuffer<NodeId> out(queue);
#pragma omp for nowait
    for (std::size_t w = 0; w < words; ++w) wg::detail::push_word_vertices(bm, w, [&](NodeId v) { out.push_back(v); });
    out.flush();
  }
  queue.slide_window();
}

}  // namespace

wg::BfsResult omp_bfs(const wg::CSRGraph& g, NodeId source) {
  constexpr int kAlpha = 15, kBeta = 18;
  const NodeId n = g.num_nodes();
  wg::BfsResult r;
  r.parent = wg::Array<NodeId>(static_cast<std::size_t>(n));
  NodeId* parent = r.parent.data();
#pragma omp parallel for
  for (NodeId u = 0; u < n; ++u) parent[u] = wg::detail::unvisited_parent(g, u);
  parent[source] = source;
  SlidingQueue<NodeId> queue(static_cast<std::size_t>(n));
  queue.push_back(source);
  queue.slide_window();
  Bitmap front(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
  EdgeOffset edges_to_check = g.num_edges_directed();
  EdgeOffset scout_count = g.out_degree(source);
  while (!queue.empty()) {
    if (scout_count > edges_to_check / kAlpha) {
      queue_to_bitmap(queue, front);
      std::int64_t awake = static_cast<std::int64_t>(queue.size()), old_awake;
      queue.slide_window();
      do {
        old_awake = awake;
        awake = bu_step(g, parent, front, next);
        front.swap(next);
        ++r.bottom_up_steps;
      } while (awake > 0 && (awake >= old_awake || awake > n / kBeta));
      bitmap_to_queue(front, queue);
      scout_count = 1;
    } else {
      edges_to_check -= scout_count;
      scout_count = td_step(g, parent, queue);
      ++r.top_down_steps;
    }
  }
#pragma omp parallel for
  for (NodeId u = 0; u < n; ++u)
    if (parent[u] < -1) parent[u] = -1;
  return r;
}

// ------------------------------------------------------------------ SSSP

wg::SsspResult omp_sssp(const wg::WeightedCSRGraph& g, NodeId source, wg::Weight delta) {
  using wg::detail::EdgeClass;
  using wg::detail::LocalBuckets;
  constexpr std::size_t kFusionLimit = 1000;
  constexpr std::int64_t kNone = LocalBuckets::kNone;
  const NodeId n = g.num_nodes();
  wg::SsspResult r;
  r.distance = omp_array<wg::Weight>(static_cast<std::size_t>(n), wg::kInfiniteDistance);
  wg::Weight* dist = r.distance.data();
  dist[source] = 0;
  const bool settle_at_once = g.num_edges_directed() == 0 || delta <= g.min_weight();
  const bool has_heavy = !settle_at_once && g.max_weight() > delta;
  wg::Array<std::int32_t> heavy_done;
  if (has_heavy) heavy_done = omp_array<std::int32_t>(static_cast<std::size_t>(n), -1);
  const int members = omp_get_max_threads();
  std::vector<std::vector<NodeId>> published(static_cast<std::size_t>(members));
  published[0].push_back(source);
  std::atomic<std::int64_t> light_vote[2] = {kNone, kNone}, heavy_vote[2] = {kNone, kNone};
  std::int64_t phases = 0, buckets = 0;
#pragma omp parallel num_threads(members)
  {
    const int me = omp_get_thread_num();
    const int team = omp_get_num_threads();
    LocalBuckets own(g.max_weight(), delta);
    std::vector<NodeId> settled;
    std::vector<std::size_t> sizes(static_cast<std::size_t>(team) + 1, 0);
    bool overflow = false;
    std::int64_t bucket = 0;
    auto take = [&](NodeId u) {
      const wg::Weight du = wg::detail::load(dist[u]);
      if (du / delta < bucket) return;
      if (settle_at_once) {
        wg::detail::relax_edges<EdgeClass::all>(g, dist, u, du, delta, own, overflow);
        return;
      }
      wg::detail::relax_edges<EdgeClass::light>(g, dist, u, du, delta, own, overflow);
      if (has_heavy && std::atomic_ref<std::int32_t>(heavy_done[u]).exchange(static_cast<std::int32_t>(bucket),
                                                                              std::memory_order_relaxed) != bucket)
        settled.push_back(u);
    };
    auto vote = [](std::atomic<std::int64_t>& v, std::int64_t b) {
      std::int64_t cur = v.load(std::memory_order_relaxed);
      while (b < cur && !v.compare_exchange_weak(cur, b, std::memory_order_relaxed)) {
      }
    };
    for (std::int64_t phase = 0; bucket != kNone; ++phase) {
      const int p = static_cast<int>(phase & 1);
      for (int k = 0; k < team; ++k) sizes[k + 1] = sizes[k] + published[static_cast<std::size_t>(k)].size();
      const std::size_t total = sizes.back();
#pragma omp for nowait schedule(dynamic, 64)
      for (std::size_t i = 0; i < total; ++i) {
        const auto k = static_cast<std::size_t>(std::upper_bound(sizes.begin() + 1, sizes.end(), i) - sizes.begin() - 1);
        take(published[k][i - sizes[k]]);
      }
      while (own.size_of(bucket) > 0 && own.size_of(bucket) < kFusionLimit)
        for (const NodeId u : own.take(bucket)) take(u);
      vote(light_vote[p], own.first_nonempty(bucket));
#pragma omp barrier
      if (me == 0) {
        light_vote[p ^ 1].store(kNone, std::memory_order_relaxed);
        heavy_vote[p ^ 1].store(kNone, std::memory_order_relaxed);
        ++phases;
      }
      std::int64_t next = light_vote[p].load(std::memory_order_relaxed);
      if (next != bucket) {
        if (me == 0) ++buckets;
        if (has_heavy) {
          for (const NodeId u : settled)
            wg::detail::relax_edges<EdgeClass::heavy>(g, dist, u, wg::detail::load(dist[u]), delta, own, overflow);
          settled.clear();
          vote(heavy_vote[p], own.first_nonempty(bucket + 1));
#pragma omp barrier
          next = heavy_vote[p].load(std::memory_order_relaxed);
        }
      }
      published[static_cast<std::size_t>(me)] = next == kNone ? std::vector<NodeId>{} : own.take(next);
#pragma omp barrier
      bucket = next;
    }
    (void)overflow;  // weights in [1, 255]: the verifier would catch a wrong distance
  }
  r.phases = phases;
  r.buckets = buckets;
  return r;
}

// ------------------------------------------------------------------ PageRank

wg::PageRankResult omp_pagerank(const wg::CSRGraph& g, const wg::PageRankOptions& options) {
  const NodeId n = g.num_nodes();
  const float init = 1.0f / static_cast<float>(n);
  const float base = (1.0f - wg::kDamping) / static_cast<float>(n);
  wg::PageRankResult r;
  r.scores = omp_array<float>(static_cast<std::size_t>(n), init);
  wg::Array<float> contrib(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
  for (NodeId u = 0; u < n; ++u) contrib[u] = wg::detail::contribution(g, u, init);
  float* scores = r.scores.data();
  for (r.iterations = 1;; ++r.iterations) {
    const float* from = contrib.data();
    float* to = next.data();
    double error = 0;
#pragma omp parallel for reduction(+ : error) schedule(dynamic, 16384)
    for (NodeId u = 0; u < n; ++u) error += wg::detail::pull_score(g, u, base, from, scores, to);
    std::swap(contrib, next);
    r.change = error;
    if (error < options.tolerance || r.iterations == options.max_iterations) break;
  }
  return r;
}

// ------------------------------------------------------------------ CC

namespace {

wg::Array<NodeId> omp_singletons(NodeId n) {
  wg::Array<NodeId> comp(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
  for (NodeId u = 0; u < n; ++u) comp[u] = u;
  return comp;
}

void omp_compress(NodeId n, NodeId* comp) {
#pragma omp parallel for schedule(static, 2048)
  for (NodeId u = 0; u < n; ++u) wg::detail::compress(u, comp);
}

}  // namespace

wg::CcResult omp_afforest(const wg::CSRGraph& g) {
  constexpr int kRounds = 2;
  const NodeId n = g.num_nodes();
  wg::CcResult r;
  r.component = omp_singletons(n);
  NodeId* comp = r.component.data();
  for (int round = 0; round < kRounds; ++round) {
#pragma omp parallel for
    for (NodeId u = 0; u < n; ++u) {
      const auto neigh = g.out_neigh(u, round);
      if (!neigh.empty()) wg::detail::afforest_link(u, neigh[0], comp);
    }
    omp_compress(n, comp);
    ++r.iterations;
  }
  const NodeId skip = wg::detail::sample_frequent_label(comp, n, 1024, wg::kDefaultSeed);
  const bool directed = g.directed();
#pragma omp parallel for schedule(dynamic, 2048)
  for (NodeId u = 0; u < n; ++u) {
    if (wg::detail::load(comp[u]) == skip) continue;
    for (const NodeId v : g.out_neigh(u, kRounds)) wg::detail::afforest_link(u, v, comp);
    if (directed)
      for (const NodeId v : g.in_neigh(u)) wg::detail::afforest_link(u, v, comp);
  }
  omp_compress(n, comp);
  return r;
}

wg::CcResult omp_shiloach_vishkin(const wg::CSRGraph& g) {
  const NodeId n = g.num_nodes();
  wg::CcResult r;
  r.component = omp_singletons(n);
  NodeId* comp = r.component.data();
  for (bool changed = true; changed;) {
    std::atomic<bool> hooked{false};
#pragma omp parallel for
    for (NodeId u = 0; u < n; ++u)
      if (wg::detail::sv_hook(g, u, comp)) hooked.store(true, std::memory_order_relaxed);
    omp_compress(n, comp);
    changed = hooked.load(std::memory_order_relaxed);
    ++r.iterations;
  }
  return r;
}

// ------------------------------------------------------------------ BC

wg::BcResult omp_bc(const wg::CSRGraph& g, std::span<const NodeId> sources) {
  const NodeId n = g.num_nodes();
  wg::BcResult r;
  r.scores = omp_array<float>(static_cast<std::size_t>(n), 0.0f);
  float* scores = r.scores.data();
  wg::Array<double> sigma = omp_array<double>(static_cast<std::size_t>(n), 0.0);
  wg::Array<NodeId> depth = omp_array<NodeId>(static_cast<std::size_t>(n), -1);
  wg::Array<float> delta = omp_array<float>(static_cast<std::size_t>(n), 0.0f);
  Bitmap succ(static_cast<std::size_t>(g.num_edges_directed()));
  SlidingQueue<NodeId> queue(static_cast<std::size_t>(n));
  std::vector<std::size_t> level_start;
  for (const NodeId source : sources) {
#pragma omp parallel for schedule(static)
    for (NodeId u = 0; u < n; ++u) {
      sigma[u] = 0;
      depth[u] = -1;
    }
    omp_reset(succ);
    queue.reset();
    level_start.clear();
    depth[source] = 0;
    sigma[source] = 1;
    queue.push_back(source);
    queue.slide_window();
    level_start.push_back(0);
#pragma omp parallel
    {
      QueueBuffer<NodeId> next(queue);
      for (NodeId d = 1; !queue.empty(); ++d) {
        const std::size_t lo = queue.window_begin(), hi = queue.window_end();
#pragma omp for schedule(dynamic, 64) nowait
        for (std::size_t i = lo; i < hi; ++i)
          wg::detail::bc_expand(g, queue[i], d, depth.data(), sigma.data(), succ, [&](NodeId v) { next.push_back(v); });
        next.flush();
#pragma omp barrier
#pragma omp single
        {
          level_start.push_back(queue.window_end());
          queue.slide_window();
        }
      }
    }
    for (std::size_t l = level_start.size() - 1; l-- > 0;) {
      const std::size_t lo = level_start[l], hi = level_start[l + 1];
#pragma omp parallel for schedule(dynamic, 64)
      for (std::size_t i = lo; i < hi; ++i) {
        const NodeId u = queue[i];
        const float du = wg::detail::bc_dependency(g, u, sigma.data(), delta.data(), succ);
        delta[u] = du;
        if (u != source) scores[u] += du;
      }
    }
  }
  float biggest = 0;
#pragma omp parallel for reduction(max : biggest)
  for (NodeId u = 0; u < n; ++u) biggest = std::max(biggest, scores[u]);
  if (biggest > 0) {
#pragma omp parallel for
    for (NodeId u = 0; u < n; ++u) scores[u] /= biggest;
  }
  return r;
}

// ------------------------------------------------------------------ TC

namespace {

// GAPBS's RelabelByDegree with OpenMP loops and libstdc++'s parallel-mode
// sort (what GAPBS's tc.cc gets with _GLIBCXX_PARALLEL).
wg::CSRGraph omp_relabel(const wg::CSRGraph& g) {
  auto loop = [](NodeId n, auto&& body) {
#pragma omp parallel for schedule(dynamic, 64)
    for (NodeId u = 0; u < n; ++u) body(u);
  };
  auto sort = [](auto first, auto last, auto less) { __gnu_parallel::sort(first, last, less); };
  return wg::detail::relabel_by_degree_with(g, loop, sort);
}

std::uint64_t omp_ordered_count(const wg::CSRGraph& g) {
  std::uint64_t total = 0;
  const NodeId n = g.num_nodes();
#pragma omp parallel for reduction(+ : total) schedule(dynamic, 64)
  for (NodeId u = 0; u < n; ++u) total += wg::detail::ordered_count(g, u);
  return total;
}

}  // namespace

wg::TcResult omp_tc(const wg::CSRGraph& g) {
  wg::TcResult r;
  r.relabelled = wg::worth_relabelling(g);
  r.triangles = r.relabelled ? omp_ordered_count(omp_relabel(g)) : omp_ordered_count(g);
  return r;
}

}  // namespace weft::bench::graph
