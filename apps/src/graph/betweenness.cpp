// Brandes's betweenness centrality on weft (betweenness.hpp), the structure
// of GAPBS's bc.cc: per source, one parallel region runs the level-
// synchronous forward BFS (detail::Brandes); then each level, deepest first,
// accumulates its dependencies with a parallel loop.
#include "weft/apps/graph/betweenness.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_checks.hpp"
#include "weft_team.hpp"
#include "weft/apps/graph/detail/bc_steps.hpp"
#include "weft/apps/graph/detail/frontier.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/parallel_region.hpp"
#include "weft/runtime/trace.hpp"

namespace weft::graph {
namespace {

void check_sources(const CSRGraph& g, std::span<const NodeId> sources, const char* who) {
  if (sources.empty()) throw std::invalid_argument(std::string(who) + ": no source vertices");
  for (const NodeId s : sources) detail::check_source(g, s, who);
}

// Divides by the largest score (GAPBS), when there is a positive one.
void normalize(std::span<float> scores) {
  float biggest = 0;
  for (const float s : scores) biggest = std::max(biggest, s);
  if (biggest > 0)
    for (float& s : scores) s /= biggest;
}

}  // namespace

BcResult betweenness_centrality(const CSRGraph& g, std::span<const NodeId> sources, const BcOptions& options) {
  check_sources(g, sources, "betweenness_centrality");
  return detail::on_runtime([&] {
    const NodeId n = g.num_nodes();
    BcResult r;
    r.scores = Array<float>(static_cast<std::size_t>(n), 0.0f);
    detail::Brandes b(g);
    for (const NodeId source : sources) {
      b.sigma.fill(0.0);
      b.depth.fill(-1);
      b.succ.reset();
      b.start(source);
      {
        // In a trace: per source, the forward BFS and the backward pass.
        trace::Scope phase(label("bc forward"));
        phase.arg(label("source"), static_cast<std::uint64_t>(source));
        weft::parallel([&](Team& team) {
          detail::WeftTeam t{team};
          b.forward_member(t);
        });
        phase.arg(label("levels"), b.num_levels());
      }
      trace::Scope phase(label("bc backward"));
      phase.arg(label("source"), static_cast<std::uint64_t>(source));
      for (std::size_t l = b.num_levels(); l-- > 0;)
        weft::parallel_for(b.level_begin(l), b.level_end(l), [&](std::size_t i) { b.backward(i, r.scores.data()); },
                           schedule_dynamic(64));
    }
    if (options.normalize) normalize(r.scores);
    return r;
  });
}

Verification verify_bc(const CSRGraph& g, std::span<const NodeId> sources, std::span<const float> scores,
                       const BcOptions& options) {
  const NodeId n = g.num_nodes();
  if (scores.size() != static_cast<std::size_t>(n))
    return Verification::fail("score array has " + std::to_string(scores.size()) + " entries, the graph " +
                              std::to_string(n) + " vertices");
  std::vector<float> expected(static_cast<std::size_t>(n), 0.0f);
  std::vector<int> depth(static_cast<std::size_t>(n));
  std::vector<double> sigma(static_cast<std::size_t>(n));
  std::vector<float> delta(static_cast<std::size_t>(n));
  std::vector<NodeId> order;
  for (const NodeId s : sources) {
    if (s < 0 || s >= n) return Verification::fail("source " + std::to_string(s) + " is not a vertex");
    // Serial Brandes: BFS order, then dependencies in reverse BFS order,
    // successors recomputed from the depths.
    std::fill(depth.begin(), depth.end(), -1);
    std::fill(sigma.begin(), sigma.end(), 0.0);
    std::fill(delta.begin(), delta.end(), 0.0f);
    order.assign(1, s);
    depth[s] = 0;
    sigma[s] = 1;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const NodeId u = order[i];
      for (const NodeId v : g.out_neigh(u)) {
        if (depth[v] == -1) {
          depth[v] = depth[u] + 1;
          order.push_back(v);
        }
        if (depth[v] == depth[u] + 1) sigma[v] += sigma[u];
      }
    }
    for (std::size_t i = order.size(); i-- > 0;) {
      const NodeId u = order[i];
      float du = 0;
      for (const NodeId v : g.out_neigh(u))
        if (depth[v] == depth[u] + 1) du += static_cast<float>((sigma[u] / sigma[v]) * (1 + delta[v]));
      delta[u] = du;
      if (u != s) expected[u] += du;
    }
  }
  if (options.normalize) normalize(expected);
  const float biggest = expected.empty() ? 0.0f : *std::max_element(expected.begin(), expected.end());
  const double allowed = 1e-5 * std::max(1.0, static_cast<double>(biggest));
  for (NodeId u = 0; u < n; ++u)
    if (!(std::fabs(static_cast<double>(scores[u]) - expected[u]) <= allowed))
      return Verification::fail("vertex " + std::to_string(u) + ": score " + std::to_string(scores[u]) +
                                ", serial Brandes says " + std::to_string(expected[u]));
  return Verification::pass();
}

}  // namespace weft::graph
