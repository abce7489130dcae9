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
#include "weft/apps/graph/detail/bfs_driver.hpp"
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

// The parallel steps of detail::direction_optimizing_bfs with OpenMP
// (GAPBS's bfs.cc: TDStep static, BUStep dynamic 1024 vertices).
struct OmpSteps {
  const wg::CSRGraph& g;

  void init(NodeId* parent) {
    const NodeId n = g.num_nodes();
#pragma omp parallel for
    for (NodeId u = 0; u < n; ++u) parent[u] = wg::detail::unvisited_parent(g, u);
  }

  EdgeOffset top_down(NodeId* parent, SlidingQueue<NodeId>& queue) {
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

  std::int64_t bottom_up(NodeId* parent, const Bitmap& front, Bitmap& next) {
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

  void finish(NodeId* parent) {
    const NodeId n = g.num_nodes();
#pragma omp parallel for
    for (NodeId u = 0; u < n; ++u)
      if (parent[u] < -1) parent[u] = -1;
  }
};

}  // namespace

wg::BfsResult omp_bfs(const wg::CSRGraph& g, NodeId source) {
  return wg::detail::direction_optimizing_bfs(g, source, {}, OmpSteps{g});
}

// ------------------------------------------------------------------ SSSP

namespace {

// The shared kernel loops' team (detail::DeltaStepping, detail::Brandes)
// inside an OpenMP parallel region: orphaned worksharing and barriers.
struct OmpTeam {
  int thread_num() const { return omp_get_thread_num(); }
  void barrier() {
#pragma omp barrier
  }
  template <class Body>
  void for_each(std::size_t lo, std::size_t hi, Body&& body) {
#pragma omp for schedule(dynamic, 64) nowait
    for (std::size_t i = lo; i < hi; ++i) body(i);
  }
  template <class F>
  void single(F&& f) {
#pragma omp single
    f();
  }
};

}  // namespace

wg::SsspResult omp_sssp(const wg::WeightedCSRGraph& g, NodeId source, wg::Weight delta) {
  const NodeId n = g.num_nodes();
  wg::SsspResult r;
  r.distance = omp_array<wg::Weight>(static_cast<std::size_t>(n), wg::kInfiniteDistance);
  r.distance[source] = 0;
  wg::Array<std::int32_t> heavy_done;
  const int members = omp_get_max_threads();
  wg::detail::DeltaStepping search(g, r.distance.data(), delta, source, members, heavy_done);
  if (search.has_heavy) heavy_done = omp_array<std::int32_t>(static_cast<std::size_t>(n), -1);
#pragma omp parallel num_threads(members)
  {
    OmpTeam team;
    search.run_member(team);
  }
  r.phases = search.phases;
  r.buckets = search.buckets;
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
  wg::detail::Brandes b(g);
  for (const NodeId source : sources) {
#pragma omp parallel for schedule(static)
    for (NodeId u = 0; u < n; ++u) {
      b.sigma[u] = 0;
      b.depth[u] = -1;
    }
    omp_reset(b.succ);
    b.start(source);
#pragma omp parallel
    {
      OmpTeam team;
      b.forward_member(team);
    }
    for (std::size_t l = b.num_levels(); l-- > 0;) {
      const std::size_t lo = b.level_begin(l), hi = b.level_end(l);
#pragma omp parallel for schedule(dynamic, 64)
      for (std::size_t i = lo; i < hi; ++i) b.backward(i, scores);
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
