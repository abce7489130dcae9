// Direction-optimizing BFS on weft (bfs.hpp; Beamer et al., SC'12): the
// control loop of detail/bfs_driver.hpp with weft's parallel steps.
#include "weft/apps/graph/bfs.hpp"

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_checks.hpp"
#include "weft/apps/graph/detail/bfs_driver.hpp"
#include "weft/apps/graph/detail/bfs_steps.hpp"
#include "weft/apps/graph/detail/frontier.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/parallel_region.hpp"
#include "weft/runtime/trace.hpp"

namespace weft::graph {
namespace {

using detail::Bitmap;
using detail::QueueBuffer;
using detail::SlidingQueue;

// The parallel steps of detail::direction_optimizing_bfs on weft. In a trace
// each level is a slice ("bfs top-down step" / "bfs bottom-up step", with its
// level, and the frontier it started from or the vertices it woke), and so
// is each change of direction ("bfs to bottom-up" / "bfs to top-down").
struct WeftSteps {
  const CSRGraph& g;
  std::uint64_t level = 0;

  void init(NodeId* parent) {
    weft::parallel_for(NodeId{0}, g.num_nodes(), [&](NodeId u) { parent[u] = detail::unvisited_parent(g, u); },
                       schedule_static());
  }

  // Top-down: a region whose members share the window adaptively, each
  // appending what it claims through its own buffer. Returns m_f.
  EdgeOffset top_down(NodeId* parent, SlidingQueue<NodeId>& queue) {
    trace::Scope phase(label("bfs top-down step"));
    phase.arg(label("level"), level++);
    phase.arg(label("frontier"), queue.size());
    std::atomic<EdgeOffset> scout{0};
    weft::parallel([&](Team& team) {
      QueueBuffer<NodeId> next(queue);
      EdgeOffset mine = 0;
      team.for_each(queue.window_begin(), queue.window_end(), [&](std::size_t i) {
        mine += detail::claim_neighbors(g, parent, queue[i], [&](NodeId v) { next.push_back(v); });
      }, schedule_adaptive(), nowait);
      next.flush();
      scout.fetch_add(mine, std::memory_order_relaxed);
    });
    queue.slide_window();
    return scout.load(std::memory_order_relaxed);
  }

  // Bottom-up: a reduction over the bitmap's words (each written once).
  std::int64_t bottom_up(NodeId* parent, const Bitmap& front, Bitmap& next) {
    trace::Scope phase(label("bfs bottom-up step"));
    phase.arg(label("level"), level++);
    const std::int64_t awake = weft::parallel_reduce(std::size_t{0}, front.num_words(), std::int64_t{0}, [&](std::size_t w) {
      return detail::bottom_up_word(g, parent, front, next, w);
    }, std::plus<>{});
    phase.arg(label("awake"), static_cast<std::uint64_t>(awake));
    return awake;
  }

  void queue_to_bitmap(const SlidingQueue<NodeId>& queue, Bitmap& bm) {
    trace::Scope phase(label("bfs to bottom-up"));
    bm.reset();
    weft::parallel_for(queue.window_begin(), queue.window_end(),
                       [&](std::size_t i) { bm.set_atomic(static_cast<std::size_t>(queue[i])); });
  }

  void bitmap_to_queue(const Bitmap& bm, SlidingQueue<NodeId>& queue) {
    trace::Scope phase(label("bfs to top-down"));
    weft::parallel([&](Team& team) {
      QueueBuffer<NodeId> out(queue);
      team.for_each(std::size_t{0}, bm.num_words(), [&](std::size_t w) {
        detail::push_word_vertices(bm, w, [&](NodeId v) { out.push_back(v); });
      }, schedule_adaptive(), nowait);
      out.flush();
    });
    queue.slide_window();
  }

  void finish(NodeId* parent) {
    weft::parallel_for(NodeId{0}, g.num_nodes(), [&](NodeId u) {
      if (parent[u] < -1) parent[u] = -1;
    }, schedule_static());
  }
};

}  // namespace

BfsResult bfs(const CSRGraph& g, NodeId source, const BfsOptions& options) {
  detail::check_source(g, source, "bfs");
  if (options.alpha < 1 || options.beta < 1)
    throw std::invalid_argument("bfs: alpha (" + std::to_string(options.alpha) + ") and beta (" +
                                std::to_string(options.beta) + ") must be at least 1");
  return detail::on_runtime([&] { return detail::direction_optimizing_bfs(g, source, options, WeftSteps{g}); });
}

Verification verify_bfs(const CSRGraph& g, NodeId source, std::span<const NodeId> parent) {
  const NodeId n = g.num_nodes();
  if (source < 0 || source >= n) return Verification::fail("source " + std::to_string(source) + " is not a vertex");
  if (parent.size() != static_cast<std::size_t>(n))
    return Verification::fail("parent array has " + std::to_string(parent.size()) + " entries, the graph " +
                              std::to_string(n) + " vertices");
  std::vector<int> depth(static_cast<std::size_t>(n), -1);
  std::vector<NodeId> order;
  order.reserve(static_cast<std::size_t>(n));
  depth[source] = 0;
  order.push_back(source);
  for (std::size_t i = 0; i < order.size(); ++i)
    for (const NodeId v : g.out_neigh(order[i]))
      if (depth[v] == -1) {
        depth[v] = depth[order[i]] + 1;
        order.push_back(v);
      }
  auto vertex = [](NodeId u) { return "vertex " + std::to_string(u) + ": "; };
  for (NodeId u = 0; u < n; ++u) {
    const NodeId p = parent[u];
    if (depth[u] == -1) {
      if (p != -1) return Verification::fail(vertex(u) + "unreachable from the source but has parent " + std::to_string(p));
      continue;
    }
    if (u == source) {
      if (p != source) return Verification::fail(vertex(u) + "the source's parent is " + std::to_string(p) + ", not itself");
      continue;
    }
    if (p < 0 || p >= n) return Verification::fail(vertex(u) + "reachable (depth " + std::to_string(depth[u]) + ") but parent is " + std::to_string(p));
    bool edge = false;
    for (const NodeId v : g.in_neigh(u)) edge |= v == p;
    if (!edge) return Verification::fail(vertex(u) + "parent " + std::to_string(p) + " has no edge to it");
    if (depth[p] != depth[u] - 1)
      return Verification::fail(vertex(u) + "at depth " + std::to_string(depth[u]) + " but its parent " +
                                std::to_string(p) + " is at depth " + std::to_string(depth[p]));
  }
  return Verification::pass();
}

EdgeOffset bfs_edges_traversed(const CSRGraph& g, std::span<const NodeId> parent) {
  return detail::on_runtime([&] {
    const EdgeOffset sum = weft::parallel_reduce(NodeId{0}, g.num_nodes(), EdgeOffset{0}, [&](NodeId u) {
      return parent[static_cast<std::size_t>(u)] >= 0 ? g.out_degree(u) : EdgeOffset{0};
    }, std::plus<>{});
    return g.directed() ? sum : sum / 2;
  });
}

}  // namespace weft::graph
