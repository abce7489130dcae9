// Pull PageRank on weft (pagerank.hpp): one parallel reduction per iteration
// computes every score from the previous iteration's contributions and sums
// the L1 change.
#include "weft/apps/graph/pagerank.hpp"

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "weft/apps/graph/detail/pagerank_steps.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/runtime/trace.hpp"

namespace weft::graph {
namespace {

void check(const PageRankOptions& o, const char* who) {
  if (o.max_iterations < 1)
    throw std::invalid_argument(std::string(who) + ": max_iterations " + std::to_string(o.max_iterations) +
                                " must be at least 1");
  if (!(o.tolerance >= 0))
    throw std::invalid_argument(std::string(who) + ": tolerance " + std::to_string(o.tolerance) + " must be >= 0");
}

// The same iteration, serially (the verifier's reference run).
PageRankResult serial_pagerank(const CSRGraph& g, const PageRankOptions& options) {
  const NodeId n = g.num_nodes();
  PageRankResult r;
  r.scores = Array<float>(static_cast<std::size_t>(n));
  std::vector<float> contrib(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
  const float init = 1.0f / static_cast<float>(n);
  const float base = (1.0f - kDamping) / static_cast<float>(n);
  for (NodeId u = 0; u < n; ++u) {
    r.scores[u] = init;
    contrib[u] = detail::contribution(g, u, init);
  }
  for (r.iterations = 1; ; ++r.iterations) {
    r.change = 0;
    for (NodeId u = 0; u < n; ++u) r.change += detail::pull_score(g, u, base, contrib.data(), r.scores.data(), next.data());
    contrib.swap(next);
    if (r.change < options.tolerance || r.iterations == options.max_iterations) break;
  }
  return r;
}

}  // namespace

PageRankResult pagerank(const CSRGraph& g, const PageRankOptions& options) {
  check(options, "pagerank");
  return detail::on_runtime([&] {
    const NodeId n = g.num_nodes();
    PageRankResult r;
    if (n == 0) return r;
    const float init = 1.0f / static_cast<float>(n);
    const float base = (1.0f - kDamping) / static_cast<float>(n);
    r.scores = Array<float>(static_cast<std::size_t>(n), init);
    Array<float> contrib(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
    weft::parallel_for(NodeId{0}, n, [&](NodeId u) { contrib[u] = detail::contribution(g, u, init); }, schedule_static());
    float* scores = r.scores.data();
    for (r.iterations = 1; ; ++r.iterations) {
      trace::Scope phase(label("pagerank iteration"));  // a slice per iteration in a trace
      phase.arg(label("iteration"), static_cast<std::uint64_t>(r.iterations));
      const float* from = contrib.data();
      float* to = next.data();
      r.change = weft::parallel_reduce(NodeId{0}, n, 0.0, [&](NodeId u) {
        return detail::pull_score(g, u, base, from, scores, to);
      }, std::plus<>{});
      std::swap(contrib, next);
      if (r.change < options.tolerance || r.iterations == options.max_iterations) break;
    }
    return r;
  });
}

Verification verify_pagerank(const CSRGraph& g, std::span<const float> scores, const PageRankOptions& options) {
  check(options, "verify_pagerank");
  const NodeId n = g.num_nodes();
  if (scores.size() != static_cast<std::size_t>(n))
    return Verification::fail("score array has " + std::to_string(scores.size()) + " entries, the graph " +
                              std::to_string(n) + " vertices");
  if (n == 0) return Verification::pass();
  // Against a serial run with the same options: identical arithmetic per
  // score, so the two differ only if they stopped an iteration apart, by
  // less than the tolerance.
  const PageRankResult reference = serial_pagerank(g, options);
  double distance = 0;
  for (NodeId u = 0; u < n; ++u) distance += std::fabs(static_cast<double>(scores[u]) - reference.scores[u]);
  const double allowed = options.tolerance + 1e-6;
  if (!(distance <= allowed))
    return Verification::fail("scores are " + std::to_string(distance) + " (L1) from a serial run's, more than " +
                              std::to_string(allowed));
  if (reference.change >= options.tolerance) return Verification::pass();  // not converged: nothing more to check
  // GAPBS's check: one serial push-direction iteration moves the scores by
  // less than the tolerance.
  const float base = (1.0f - kDamping) / static_cast<float>(n);
  std::vector<float> incoming(static_cast<std::size_t>(n), 0.0f);
  for (NodeId u = 0; u < n; ++u) {
    const float c = detail::contribution(g, u, scores[u]);
    for (const NodeId v : g.out_neigh(u)) incoming[v] += c;
  }
  double residual = 0;
  for (NodeId u = 0; u < n; ++u) residual += std::fabs(base + kDamping * incoming[u] - scores[u]);
  if (!(residual < options.tolerance))
    return Verification::fail("one more iteration changes the scores by " + std::to_string(residual) +
                              " (L1), not below the tolerance " + std::to_string(options.tolerance));
  return Verification::pass();
}

}  // namespace weft::graph
