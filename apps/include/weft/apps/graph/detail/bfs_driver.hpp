#pragma once
// The direction-optimizing BFS control loop (internal; Beamer et al., SC'12,
// GAPBS's DOBFS), shared by weft's kernel (src/graph/bfs.cpp) and the OpenMP
// baseline in weft-bench. `steps` runs the parallel parts on its runtime:
//
//   steps.init(parent)                     parent[u] = unvisited_parent(g, u), all u
//   steps.top_down(parent, queue) -> m_f   claim the window's neighbours, slide the window
//   steps.bottom_up(parent, front, next)   one bottom-up level -> vertices woken
//   steps.queue_to_bitmap(queue, bitmap)   clear the bitmap, set the window's vertices
//   steps.bitmap_to_queue(bitmap, queue)   append the bitmap's vertices, slide the window
//   steps.finish(parent)                   parent[u] < -1 -> -1, all u

#include <cstdint>

#include "weft/apps/graph/bfs.hpp"
#include "weft/apps/graph/detail/bitmap.hpp"
#include "weft/apps/graph/detail/frontier.hpp"

namespace weft::graph::detail {

template <class Steps>
BfsResult direction_optimizing_bfs(const CSRGraph& g, NodeId source, const BfsOptions& options, Steps&& steps) {
  const NodeId n = g.num_nodes();
  BfsResult r;
  r.parent = Array<NodeId>(static_cast<std::size_t>(n));
  NodeId* parent = r.parent.data();
  steps.init(parent);
  parent[source] = source;
  SlidingQueue<NodeId> queue(static_cast<std::size_t>(n));
  queue.push_back(source);
  queue.slide_window();
  Bitmap front(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
  EdgeOffset edges_to_check = g.num_edges_directed();  // m_u
  EdgeOffset scout_count = g.out_degree(source);       // m_f
  const bool always_top_down = options.direction == BfsDirection::top_down_only;
  const bool always_bottom_up = options.direction == BfsDirection::bottom_up_only;
  while (!queue.empty()) {
    if (!always_top_down && (always_bottom_up || scout_count > edges_to_check / options.alpha)) {
      // Bottom-up while the frontier grows, or holds more than n / beta vertices.
      steps.queue_to_bitmap(queue, front);
      std::int64_t awake = static_cast<std::int64_t>(queue.size()), old_awake;
      queue.slide_window();  // empty: the bitmap is the frontier now
      do {
        old_awake = awake;
        awake = steps.bottom_up(parent, front, next);
        front.swap(next);
        ++r.bottom_up_steps;
      } while (awake > 0 && (always_bottom_up || awake >= old_awake || awake > n / options.beta));
      steps.bitmap_to_queue(front, queue);
      scout_count = 1;
    } else {
      edges_to_check -= scout_count;
      scout_count = steps.top_down(parent, queue);
      ++r.top_down_steps;
    }
  }
  steps.finish(parent);
  return r;
}

}  // namespace weft::graph::detail
