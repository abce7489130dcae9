// Delta-stepping on weft (sssp.hpp; Meyer and Sanders 2003, §2): one parallel
// region for the whole search, each member running detail::DeltaStepping's
// loop; each keeps its own buckets (GAPBS's thread-local bins) and at the end
// of each phase publishes its share of the next bucket, which all members
// then work through together.
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
#include "weft_team.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/graph/detail/sssp_steps.hpp"
#include "weft/apps/parallel_region.hpp"
#include "weft/runtime/trace.hpp"

namespace weft::graph {

SsspResult sssp(const WeightedCSRGraph& g, NodeId source, const SsspOptions& options) {
  detail::check_source(g, source, "sssp");
  if (options.delta < 1)
    throw std::invalid_argument("sssp: delta " + std::to_string(options.delta) + " must be at least 1");
  if (g.num_edges_directed() > 0 && g.min_weight() < 0)
    throw std::invalid_argument("sssp: the graph has a negative edge weight (" + std::to_string(g.min_weight()) +
                                "); delta-stepping needs weights >= 0");
  return detail::on_runtime([&] {
    const NodeId n = g.num_nodes();
    SsspResult r;
    r.distance = Array<Weight>(static_cast<std::size_t>(n), kInfiniteDistance);
    r.distance[source] = 0;
    Array<std::int32_t> heavy_done;
    const int members = this_ult::num_workers();
    detail::DeltaStepping search(g, r.distance.data(), options.delta, source, members, heavy_done);
    if (search.has_heavy) heavy_done = Array<std::int32_t>(static_cast<std::size_t>(n), -1);
    ParallelOptions team_options;
    team_options.num_threads = members;
    {
      // In a trace: the search as one slice with its buckets and phases (the
      // phases run inside one region, each member on its own).
      trace::Scope phase(label("sssp delta-stepping"));
      phase.arg(label("source"), static_cast<std::uint64_t>(source));
      weft::parallel(team_options, [&](Team& team) {
        detail::WeftTeam t{team};
        search.run_member(t);
      });
      phase.arg(label("buckets"), static_cast<std::uint64_t>(search.buckets));
      phase.arg(label("phases"), static_cast<std::uint64_t>(search.phases));
    }
    if (search.overflow.load())
      if (const NodeId v = detail::unreached_but_adjacent(g, r.distance.data()); v >= 0)
        throw std::overflow_error("sssp: the distance to vertex " + std::to_string(v) +
                                  " is longer than the largest distance held (" +
                                  std::to_string(kInfiniteDistance - 1) + ")");
    r.phases = search.phases;
    r.buckets = search.buckets;
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
