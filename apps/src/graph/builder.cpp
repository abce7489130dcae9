// The parallel CSR builder (builder.hpp): degrees, prefix sum, placement,
// then sorting, deduplication and compaction of each neighbourhood; and the
// relabelling by degree.
#include "weft/apps/graph/builder.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "weft/apps/graph/detail/atomics.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/graph/detail/progress_meter.hpp"
#include "weft/apps/graph/detail/relabel.hpp"
#include "weft/apps/sort.hpp"

namespace weft::graph {
namespace {

using detail::fetch_add;

constexpr std::size_t kEdgeBlock = 1 << 16;  // edges per progress unit

// The neighbour entry an edge puts in its source's list, and the one it puts
// in its target's list (the reverse).
inline NodeId forward_entry(const Edge& e) { return e.v; }
inline NodeId reverse_entry(const Edge& e) { return e.u; }
inline WNode forward_entry(const WEdge& e) { return {e.v, e.w}; }
inline WNode reverse_entry(const WEdge& e) { return {e.u, e.w}; }

enum class Side { forward, reverse, both };

// Calls body(e) for every edge, in parallel blocks; one progress unit per block.
template <class E, class Body>
void for_each_edge(const Array<E>& edges, detail::ProgressMeter& progress, Body&& body) {
  const std::size_t blocks = (edges.size() + kEdgeBlock - 1) / kEdgeBlock;
  weft::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    const std::size_t hi = std::min(edges.size(), (b + 1) * kEdgeBlock);
    for (std::size_t i = b * kEdgeBlock; i < hi; ++i) body(edges[i]);
    progress.advance();
  });
}

// The vertex count: declared, or the largest id + 1; checks every id.
template <class E>
NodeId count_vertices(const BasicEdgeList<E>& el) {
  struct Range {
    std::int64_t lo, hi;
  };
  const Array<E>& edges = el.edges;
  const Range r = weft::parallel_reduce(std::size_t{0}, edges.size(), Range{INT64_MAX, -1}, [&](std::size_t i) {
    return Range{std::min(edges[i].u, edges[i].v), std::max(edges[i].u, edges[i].v)};
  }, [](Range a, Range b) { return Range{std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; });
  auto first_edge_with = [&](auto&& bad) {
    for (std::size_t i = 0; i < edges.size(); ++i)
      if (bad(edges[i].u) || bad(edges[i].v))
        return "edge " + std::to_string(i) + " (" + std::to_string(edges[i].u) + " -> " + std::to_string(edges[i].v) + ")";
    return std::string("an edge");
  };
  if (r.lo < 0)
    throw std::invalid_argument("build_graph: " + first_edge_with([](NodeId x) { return x < 0; }) +
                                " has a negative vertex id");
  if (el.num_nodes >= 0) {
    if (r.hi >= el.num_nodes)
      throw std::invalid_argument("build_graph: " + first_edge_with([&](NodeId x) { return x >= el.num_nodes; }) +
                                  " names a vertex at or past the declared count " + std::to_string(el.num_nodes));
    return el.num_nodes;
  }
  if (r.hi + 1 > kMaxNodes)
    throw std::invalid_argument("build_graph: vertex id " + std::to_string(r.hi) +
                                " needs more vertices than 32-bit ids allow (2^31 - 1)");
  return static_cast<NodeId>(r.hi + 1);
}

// A CSR whose lists hold every edge's entry (duplicates, self-loops) in no
// particular order: GAPBS's MakeCSR.
template <class Dest>
struct RawCsr {
  Array<EdgeOffset> offsets;
  Array<Dest> neighbors;
};

template <class E, class Dest = decltype(forward_entry(E{}))>
RawCsr<Dest> place_edges(const Array<E>& edges, NodeId n, Side side, detail::ProgressMeter& progress) {
  const bool fwd = side != Side::reverse, rev = side != Side::forward;
  Array<EdgeOffset> cursor(static_cast<std::size_t>(n), 0);
  EdgeOffset* count = cursor.data();
  for_each_edge(edges, progress, [&](const E& e) {
    if (fwd) fetch_add(count[e.u], EdgeOffset{1});
    if (rev) fetch_add(count[e.v], EdgeOffset{1});
  });
  RawCsr<Dest> raw{Array<EdgeOffset>(static_cast<std::size_t>(n) + 1), {}};
  const EdgeOffset total = detail::parallel_prefix_sum(count, static_cast<std::size_t>(n), raw.offsets.data());
  raw.neighbors = Array<Dest>(static_cast<std::size_t>(total));
  detail::parallel_copy(raw.offsets.data(), static_cast<std::size_t>(n), count);
  Dest* nb = raw.neighbors.data();
  for_each_edge(edges, progress, [&](const E& e) {
    if (fwd) nb[fetch_add(count[e.u], EdgeOffset{1})] = forward_entry(e);
    if (rev) nb[fetch_add(count[e.v], EdgeOffset{1})] = reverse_entry(e);
  });
  return raw;
}

// Sorts each list, drops duplicates (a weighted duplicate keeps its smallest
// weight: sorted by (vertex, weight), the first of each vertex survives) and
// self-loops, and copies the rest into exact-size arrays, written by a
// static loop over the vertices (first touch): GAPBS's SquishCSR.
template <class Dest>
std::pair<Array<EdgeOffset>, Array<Dest>> squish(RawCsr<Dest> raw, NodeId n, detail::ProgressMeter& progress) {
  Array<EdgeOffset> kept(static_cast<std::size_t>(n));
  const EdgeOffset* off = raw.offsets.data();
  Dest* nb = raw.neighbors.data();
  const std::size_t unit = std::max<std::size_t>(1, static_cast<std::size_t>(n) / 64);
  weft::parallel_for(NodeId{0}, n, [&](NodeId u) {
    Dest* first = nb + off[u];
    Dest* last = nb + off[u + 1];
    std::sort(first, last);
    last = std::unique(first, last, [](const Dest& a, const Dest& b) { return target(a) == target(b); });
    last = std::remove_if(first, last, [u](const Dest& d) { return target(d) == u; });
    kept[u] = last - first;
    if (static_cast<std::size_t>(u) % unit == 0) progress.advance();
  });
  Array<EdgeOffset> offsets(static_cast<std::size_t>(n) + 1);
  const EdgeOffset total = detail::parallel_prefix_sum(kept.data(), static_cast<std::size_t>(n), offsets.data());
  kept.release();
  Array<Dest> neighbors(static_cast<std::size_t>(total));
  weft::parallel_for(NodeId{0}, n, [&](NodeId u) {
    std::copy(nb + off[u], nb + off[u] + (offsets[u + 1] - offsets[u]), neighbors.data() + offsets[u]);
  }, schedule_static());
  return {std::move(offsets), std::move(neighbors)};
}

template <class E>
auto build(BasicEdgeList<E> el, const BuildOptions& options) {
  using Dest = decltype(forward_entry(E{}));
  return detail::on_runtime([&] {
    const NodeId n = count_vertices(el);
    const bool symmetric = options.symmetrize || el.symmetric;
    const std::uint64_t edge_blocks = (el.edges.size() + kEdgeBlock - 1) / kEdgeBlock;
    // Units: two passes over the edges per CSR, then 64 per squish.
    const int csrs = symmetric ? 1 : 2;
    detail::ProgressMeter progress(options.progress, "build", csrs * (2 * edge_blocks + 65));
    if (symmetric) {
      RawCsr<Dest> raw = place_edges(el.edges, n, Side::both, progress);
      el.edges.release();
      auto [off, nb] = squish(std::move(raw), n, progress);
      progress.finish();
      return BasicCSRGraph<Dest>(n, std::move(off), std::move(nb));
    }
    RawCsr<Dest> raw_out = place_edges(el.edges, n, Side::forward, progress);
    RawCsr<Dest> raw_in = place_edges(el.edges, n, Side::reverse, progress);
    el.edges.release();
    auto [out_off, out_nb] = squish(std::move(raw_out), n, progress);
    auto [in_off, in_nb] = squish(std::move(raw_in), n, progress);
    progress.finish();
    return BasicCSRGraph<Dest>(n, std::move(out_off), std::move(out_nb), std::move(in_off), std::move(in_nb));
  });
}

}  // namespace

CSRGraph build_graph(EdgeList edges, const BuildOptions& options) { return build(std::move(edges), options); }
WeightedCSRGraph build_graph(WEdgeList edges, const BuildOptions& options) { return build(std::move(edges), options); }

CSRGraph relabel_by_degree(const CSRGraph& g, Array<NodeId>* new_id_out) {
  if (g.directed()) throw std::invalid_argument("relabel_by_degree: the graph is directed (it relabels undirected graphs)");
  return detail::on_runtime([&] {
    // Adaptive loops: the first new ids have the longest lists to fill and sort.
    auto loop = [](NodeId n, auto&& body) { weft::parallel_for(NodeId{0}, n, body); };
    auto sort = [](auto first, auto last, auto less) { weft::parallel_sort(first, last, less); };
    return detail::relabel_by_degree_with(g, loop, sort, new_id_out);
  });
}

}  // namespace weft::graph
