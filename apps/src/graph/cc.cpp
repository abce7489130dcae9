// Afforest and Shiloach-Vishkin on weft (connected_components.hpp), the
// structure of GAPBS's cc.cc and cc_sv.cc.
#include "weft/apps/graph/connected_components.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/apps/graph/detail/cc_steps.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/runtime/trace.hpp"

namespace weft::graph {
namespace {

constexpr int kSamples = 1024;

using detail::for_each_vertex;

Array<NodeId> singletons(NodeId n) {
  Array<NodeId> comp(static_cast<std::size_t>(n));
  for_each_vertex(n, [&](NodeId u) { comp[u] = u; }, schedule_static());
  return comp;
}

// GAPBS: static, 2048 vertices.
void compress_all(NodeId n, NodeId* comp) {
  for_each_vertex(n, [comp](NodeId u) { detail::compress(u, comp); }, schedule_static(2048 / detail::kVertexBlock));
}

}  // namespace

CcResult connected_components(const CSRGraph& g, const AfforestOptions& options) {
  if (options.neighbor_rounds < 0)
    throw std::invalid_argument("connected_components: neighbor_rounds " + std::to_string(options.neighbor_rounds) +
                                " must be >= 0");
  return detail::on_runtime([&] {
    const NodeId n = g.num_nodes();
    CcResult r;
    r.component = singletons(n);
    NodeId* comp = r.component.data();
    // Vertex neighbor sampling: one round per edge index r < neighbor_rounds.
    // In a trace: a slice per phase ("cc sampling round" with its round,
    // "cc largest component", "cc link rest"; "cc sv iteration" for
    // Shiloach-Vishkin).
    for (int round = 0; round < options.neighbor_rounds; ++round) {
      trace::Scope phase(label("cc sampling round"));
      phase.arg(label("round"), static_cast<std::uint64_t>(round));
      for_each_vertex(n, [&](NodeId u) {
        const auto neigh = g.out_neigh(u, round);
        if (!neigh.empty()) detail::afforest_link(u, neigh[0], comp);
      });
      compress_all(n, comp);
      ++r.iterations;
    }
    // Large component skipping: the vertices already in the most frequent
    // tree skip the rest of their edges; its other edges are linked from
    // their other end (undirected) or from the in-edges (directed).
    NodeId skip = -1;
    if (options.skip_largest_component && n > 0) {
      trace::Scope phase(label("cc largest component"));
      skip = detail::sample_frequent_label(comp, n, kSamples, kDefaultSeed);
    }
    const EdgeOffset start = options.neighbor_rounds;
    trace::Scope phase(label("cc link rest"));
    for_each_vertex(n, [&](NodeId u) {
      if (detail::load(comp[u]) == skip) return;
      for (const NodeId v : g.out_neigh(u, start)) detail::afforest_link(u, v, comp);
      if (g.directed())
        for (const NodeId v : g.in_neigh(u)) detail::afforest_link(u, v, comp);
    }, schedule_dynamic(2048 / detail::kVertexBlock));  // GAPBS: dynamic, 2048 vertices
    compress_all(n, comp);
    return r;
  });
}

CcResult connected_components_sv(const CSRGraph& g) {
  return detail::on_runtime([&] {
    const NodeId n = g.num_nodes();
    CcResult r;
    r.component = singletons(n);
    NodeId* comp = r.component.data();
    for (bool changed = true; changed;) {
      trace::Scope phase(label("cc sv iteration"));
      phase.arg(label("iteration"), static_cast<std::uint64_t>(r.iterations));
      std::atomic<bool> hooked{false};
      for_each_vertex(n, [&](NodeId u) {
        if (detail::sv_hook(g, u, comp)) hooked.store(true, std::memory_order_relaxed);
      });
      compress_all(n, comp);
      changed = hooked.load(std::memory_order_relaxed);
      ++r.iterations;
    }
    return r;
  });
}

std::int64_t count_components(std::span<const NodeId> component) {
  std::vector<NodeId> labels(component.begin(), component.end());
  std::sort(labels.begin(), labels.end());
  return std::unique(labels.begin(), labels.end()) - labels.begin();
}

Verification verify_cc(const CSRGraph& g, std::span<const NodeId> component) {
  const NodeId n = g.num_nodes();
  if (component.size() != static_cast<std::size_t>(n))
    return Verification::fail("label array has " + std::to_string(component.size()) + " entries, the graph " +
                              std::to_string(n) + " vertices");
  // Serial union-find (union by smaller root, path halving) over every edge.
  std::vector<NodeId> root(static_cast<std::size_t>(n));
  std::iota(root.begin(), root.end(), NodeId{0});
  auto find = [&](NodeId x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
  };
  for (NodeId u = 0; u < n; ++u)
    for (const NodeId v : g.out_neigh(u)) {
      const NodeId a = find(u), b = find(v);
      if (a != b) root[std::max(a, b)] = std::min(a, b);
    }
  // With the smaller root always kept, each set's root is its smallest id.
  for (NodeId u = 0; u < n; ++u) {
    const NodeId want = find(u);
    if (component[u] == want) continue;
    if (component[u] < 0 || component[u] >= n)
      return Verification::fail("vertex " + std::to_string(u) + ": label " + std::to_string(component[u]) +
                                " is not a vertex id");
    if (find(component[u]) != want)
      return Verification::fail("vertex " + std::to_string(u) + ": labelled " + std::to_string(component[u]) +
                                ", a vertex of another component (union-find)");
    return Verification::fail("vertex " + std::to_string(u) + ": labelled " + std::to_string(component[u]) +
                              ", not its component's smallest id " + std::to_string(want));
  }
  return Verification::pass();
}

}  // namespace weft::graph
