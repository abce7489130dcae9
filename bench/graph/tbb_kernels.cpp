// The oneTBB baselines of `weft-bench graph` (baselines.hpp): PageRank and
// triangle counting, each one tbb::parallel_reduce per pass (auto
// partitioner), around weft's per-vertex steps.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "graph/baselines.hpp"
#include "weft/apps/graph/detail/pagerank_steps.hpp"
#include "weft/apps/graph/detail/relabel.hpp"
#include "weft/apps/graph/detail/tc_steps.hpp"

namespace weft::bench::graph {
namespace {

using wg::NodeId;
using Range = tbb::blocked_range<NodeId>;

template <class Body>
void tbb_for(NodeId n, Body&& body) {
  tbb::parallel_for(Range(0, n), [&](const Range& r) {
    for (NodeId u = r.begin(); u != r.end(); ++u) body(u);
  });
}

template <class T, class Map>
T tbb_sum(NodeId n, Map&& map) {
  return tbb::parallel_reduce(Range(0, n), T{0}, [&](const Range& r, T acc) {
    for (NodeId u = r.begin(); u != r.end(); ++u) acc += map(u);
    return acc;
  }, std::plus<>{});
}

}  // namespace

wg::PageRankResult tbb_pagerank(const wg::CSRGraph& g, const wg::PageRankOptions& options) {
  const NodeId n = g.num_nodes();
  const float init = 1.0f / static_cast<float>(n);
  const float base = (1.0f - wg::kDamping) / static_cast<float>(n);
  wg::PageRankResult r;
  r.scores = wg::Array<float>(static_cast<std::size_t>(n));
  wg::Array<float> contrib(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
  float* scores = r.scores.data();
  tbb_for(n, [&](NodeId u) {
    scores[u] = init;
    contrib[u] = wg::detail::contribution(g, u, init);
  });
  for (r.iterations = 1;; ++r.iterations) {
    const float* from = contrib.data();
    float* to = next.data();
    r.change = tbb_sum<double>(n, [&](NodeId u) { return wg::detail::pull_score(g, u, base, from, scores, to); });
    std::swap(contrib, next);
    if (r.change < options.tolerance || r.iterations == options.max_iterations) break;
  }
  return r;
}

wg::TcResult tbb_tc(const wg::CSRGraph& g) {
  wg::TcResult r;
  r.relabelled = wg::worth_relabelling(g);
  if (!r.relabelled) {
    r.triangles = tbb_sum<std::uint64_t>(g.num_nodes(), [&](NodeId u) { return wg::detail::ordered_count(g, u); });
    return r;
  }
  // RelabelByDegree with tbb::parallel_sort.
  const wg::CSRGraph relabelled = wg::detail::relabel_by_degree_with(
      g, [](NodeId n, auto&& body) { tbb_for(n, body); },
      [](auto first, auto last, auto less) { tbb::parallel_sort(first, last, less); });
  const NodeId n = relabelled.num_nodes();
  r.triangles = tbb_sum<std::uint64_t>(n, [&](NodeId u) { return wg::detail::ordered_count(relabelled, u); });
  return r;
}

}  // namespace weft::bench::graph
