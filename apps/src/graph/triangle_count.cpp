// Ordered triangle counting on weft (triangle_count.hpp), GAPBS's tc.cc:
// the count is one parallel reduction over the vertices, after relabelling
// by degree when the heuristic says it pays.
#include "weft/apps/graph/triangle_count.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/apps/graph/builder.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/graph/detail/tc_steps.hpp"
#include "weft/apps/graph/source_picker.hpp"
#include "weft/runtime/trace.hpp"

namespace weft::graph {
namespace {

std::uint64_t ordered_count_all(const CSRGraph& g) {
  return weft::parallel_reduce(NodeId{0}, g.num_nodes(), std::uint64_t{0},
                               [&](NodeId u) { return detail::ordered_count(g, u); }, std::plus<>{},
                               schedule_dynamic(64));
}

}  // namespace

bool worth_relabelling(const CSRGraph& g) {
  if (g.num_nodes() == 0 || g.num_edges() / g.num_nodes() < 10) return false;
  SourcePicker pick(g);
  const std::int64_t samples = std::min<std::int64_t>(1000, g.num_nodes());
  std::vector<EdgeOffset> degree(static_cast<std::size_t>(samples));
  double total = 0;
  for (auto& d : degree) total += static_cast<double>(d = g.out_degree(pick.next()));
  std::sort(degree.begin(), degree.end());
  const double mean = total / static_cast<double>(samples);
  const auto median = static_cast<double>(degree[degree.size() / 2]);
  return mean / 1.3 > median;
}

TcResult triangle_count(const CSRGraph& g, const TcOptions& options) {
  if (g.directed())
    throw std::invalid_argument("triangle_count: the graph is directed; triangle counting needs an undirected "
                                "graph (symmetrize it, -s)");
  return detail::on_runtime([&] {
    TcResult r;
    r.relabelled = options.relabel == Relabel::always ||
                   (options.relabel == Relabel::automatic && worth_relabelling(g));
    // In a trace: "tc relabel" (when it relabels) and "tc count".
    if (r.relabelled) {
      CSRGraph relabelled;
      {
        trace::Scope phase(label("tc relabel"));
        relabelled = relabel_by_degree(g);
      }
      trace::Scope phase(label("tc count"));
      r.triangles = ordered_count_all(relabelled);
    } else {
      trace::Scope phase(label("tc count"));
      r.triangles = ordered_count_all(g);
    }
    return r;
  });
}

Verification verify_tc(const CSRGraph& g, std::uint64_t triangles) {
  if (g.directed()) return Verification::fail("the graph is directed");
  // A different algorithm from the kernel's: orient every edge towards the
  // higher (degree, id), so each triangle has one lowest corner u; mark u's
  // higher neighbours and look for marks among theirs. O(m^1.5), where a
  // plain intersection of every edge's two lists is O(sum of degree^2).
  const NodeId n = g.num_nodes();
  auto higher = [&](NodeId a, NodeId b) {  // b ranks above a
    return g.out_degree(a) != g.out_degree(b) ? g.out_degree(a) < g.out_degree(b) : a < b;
  };
  std::vector<EdgeOffset> start(static_cast<std::size_t>(n) + 1, 0);
  for (NodeId u = 0; u < n; ++u)
    start[u + 1] = start[u] + std::count_if(g.out_neigh(u).begin(), g.out_neigh(u).end(),
                                            [&](NodeId v) { return higher(u, v); });
  std::vector<NodeId> up(static_cast<std::size_t>(start[n]));
  for (NodeId u = 0; u < n; ++u)
    std::copy_if(g.out_neigh(u).begin(), g.out_neigh(u).end(), up.begin() + start[u],
                 [&](NodeId v) { return higher(u, v); });
  std::vector<NodeId> mark(static_cast<std::size_t>(n), -1);
  std::uint64_t total = 0;
  for (NodeId u = 0; u < n; ++u) {
    for (EdgeOffset e = start[u]; e < start[u + 1]; ++e) mark[up[e]] = u;
    for (EdgeOffset e = start[u]; e < start[u + 1]; ++e)
      for (EdgeOffset f = start[up[e]]; f < start[up[e] + 1]; ++f) total += mark[up[f]] == u;
  }
  if (total != triangles)
    return Verification::fail("counted " + std::to_string(triangles) + " triangles, a serial count finds " +
                              std::to_string(total));
  return Verification::pass();
}

}  // namespace weft::graph
