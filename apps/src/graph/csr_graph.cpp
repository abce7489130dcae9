// CSRGraph: construction checks, the weight range, validate().
#include "weft/apps/graph/csr_graph.hpp"

#include <algorithm>
#include <climits>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/graph/detail/random.hpp"

namespace weft::graph {

template <class Dest>
BasicCSRGraph<Dest>::BasicCSRGraph(NodeId num_nodes, Array<EdgeOffset> offsets, Array<Dest> neighbors)
    : num_nodes_(num_nodes), directed_(false), out_offsets_(std::move(offsets)), out_neighbors_(std::move(neighbors)) {
  check_shape(out_offsets_, out_neighbors_, "the");
  find_weight_range();
}

template <class Dest>
BasicCSRGraph<Dest>::BasicCSRGraph(NodeId num_nodes, Array<EdgeOffset> out_offsets, Array<Dest> out_neighbors,
                                   Array<EdgeOffset> in_offsets, Array<Dest> in_neighbors)
    : num_nodes_(num_nodes),
      directed_(true),
      out_offsets_(std::move(out_offsets)),
      out_neighbors_(std::move(out_neighbors)),
      in_offsets_(std::move(in_offsets)),
      in_neighbors_(std::move(in_neighbors)) {
  check_shape(out_offsets_, out_neighbors_, "the out-edge");
  check_shape(in_offsets_, in_neighbors_, "the in-edge");
  if (in_neighbors_.size() != out_neighbors_.size())
    throw std::invalid_argument("CSRGraph: a directed graph needs as many in-edges as out-edges (" +
                                std::to_string(in_neighbors_.size()) + " vs " +
                                std::to_string(out_neighbors_.size()) + ")");
  find_weight_range();
}

template <class Dest>
void BasicCSRGraph<Dest>::check_shape(const Array<EdgeOffset>& offsets, const Array<Dest>& neighbors,
                                      const char* which) const {
  if (num_nodes_ < 0) throw std::invalid_argument("CSRGraph: negative vertex count " + std::to_string(num_nodes_));
  const std::string where = std::string("CSRGraph: ") + which + " offsets ";
  if (offsets.size() != static_cast<std::size_t>(num_nodes_) + 1)
    throw std::invalid_argument(where + "have " + std::to_string(offsets.size()) + " entries, expected num_nodes + 1 = " +
                                std::to_string(static_cast<std::int64_t>(num_nodes_) + 1));
  if (offsets[0] != 0) throw std::invalid_argument(where + "start at " + std::to_string(offsets[0]) + ", expected 0");
  if (offsets[num_nodes_] != static_cast<EdgeOffset>(neighbors.size()))
    throw std::invalid_argument(where + "end at " + std::to_string(offsets[num_nodes_]) + ", expected " +
                                std::to_string(neighbors.size()) + " (the neighbour count)");
}

template <class Dest>
void BasicCSRGraph<Dest>::find_weight_range() {
  if constexpr (kWeighted) {
    using Range = std::pair<Weight, Weight>;
    const Dest* nb = out_neighbors_.data();
    const Range r = detail::on_runtime([&] {
      return weft::parallel_reduce(std::size_t{0}, out_neighbors_.size(), Range{INT_MAX, INT_MIN},
                                   [nb](std::size_t i) { return Range{nb[i].w, nb[i].w}; },
                                   [](Range a, Range b) { return Range{std::min(a.first, b.first), std::max(a.second, b.second)}; });
    });
    if (out_neighbors_.empty()) {
      min_weight_ = max_weight_ = 0;
    } else {
      min_weight_ = r.first;
      max_weight_ = r.second;
    }
  }
}

namespace {

// Binary search for v (and weight w) in a sorted neighbourhood.
template <class Dest>
bool holds(std::span<const Dest> neigh, const Dest& wanted) {
  return std::binary_search(neigh.begin(), neigh.end(), wanted);
}

template <class Dest>
std::string describe(const Dest& d) {
  if constexpr (std::is_same_v<Dest, WNode>)
    return std::to_string(d.v) + " (weight " + std::to_string(d.w) + ")";
  else
    return std::to_string(d);
}

// The reverse entry of u -> d as seen from d's list.
template <class Dest>
Dest reverse_of(NodeId u, const Dest& d) {
  if constexpr (std::is_same_v<Dest, WNode>)
    return WNode{u, d.w};
  else
    return u;
}

// A 64-bit hash of the edge u -> d (its weight included), for the multiset
// comparison of a graph's entries with their reverses.
template <class Dest>
std::uint64_t edge_hash(NodeId u, const Dest& d) {
  std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(u)) << 32) |
                      static_cast<std::uint32_t>(target(d));
  if constexpr (std::is_same_v<Dest, WNode>) key ^= detail::SplitMix64::mix(static_cast<std::uint32_t>(d.w));
  return detail::SplitMix64::mix(key);
}

}  // namespace

template <class Dest>
void BasicCSRGraph<Dest>::validate(const std::string& what) const {
  const NodeId n = num_nodes_;
  auto first_vertex = [&](auto&& bad) {
    return detail::on_runtime([&] {
      return weft::parallel_reduce(NodeId{0}, n, NodeId{INT_MAX}, [&](NodeId u) { return bad(u) ? u : NodeId{INT_MAX}; },
                                   [](NodeId a, NodeId b) { return std::min(a, b); });
    });
  };
  auto fail = [&](const std::string& problem) { throw std::invalid_argument(what + ": " + problem); };
  const int sides = directed_ ? 2 : 1;
  // 1. Offsets non-decreasing and inside the neighbour array.
  for (int side = 0; side < sides; ++side) {
    const Array<EdgeOffset>& off = side == 0 ? out_offsets_ : in_offsets_;
    const auto entries = static_cast<EdgeOffset>(side == 0 ? out_neighbors_.size() : in_neighbors_.size());
    const NodeId u = first_vertex([&](NodeId x) { return off[x + 1] < off[x] || off[x] < 0 || off[x + 1] > entries; });
    if (u != INT_MAX)
      fail("vertex " + std::to_string(u) + ": " + (side == 0 ? "out" : "in") + " offsets " + std::to_string(off[u]) +
           ", " + std::to_string(off[u + 1]) + " are decreasing or outside the neighbour array");
  }
  // 2. Each list: ids in range, sorted and distinct, no self-loop.
  for (int side = 0; side < sides; ++side) {
    const char* dir = side == 0 ? "out" : "in";
    auto list = [&](NodeId u) { return side == 0 ? out_neigh(u) : in_neigh(u); };
    auto problem = [&](NodeId u) -> std::string {
      const auto nb = list(u);
      for (std::size_t i = 0; i < nb.size(); ++i) {
        const NodeId v = target(nb[i]);
        if (v < 0 || v >= n)
          return "vertex " + std::to_string(u) + ": " + dir + "-neighbour " + std::to_string(v) +
                 " is not a vertex (there are " + std::to_string(n) + ")";
        if (v == u) return "vertex " + std::to_string(u) + ": has a self-loop";
        if (i > 0 && !(target(nb[i - 1]) < v))
          return "vertex " + std::to_string(u) + ": " + dir + "-neighbours not sorted and distinct (" +
                 describe(nb[i - 1]) + " before " + describe(nb[i]) + ")";
      }
      return {};
    };
    if (const NodeId u = first_vertex([&](NodeId x) { return !problem(x).empty(); }); u != INT_MAX) fail(problem(u));
  }
  // 3. Every entry has its reverse: an undirected graph's entries, reversed,
  //    are the same multiset; a directed graph's out-entries are its
  //    in-entries reversed. Compared by summing a hash of each (one pass);
  //    only on a mismatch is the culprit looked for entry by entry.
  auto hash_sum = [&](bool in_side, bool reversed) {
    return detail::on_runtime([&] {
      return weft::parallel_reduce(NodeId{0}, n, std::uint64_t{0}, [&](NodeId u) {
        std::uint64_t h = 0;
        for (const Dest& d : in_side ? in_neigh(u) : out_neigh(u))
          h += reversed ? edge_hash<Dest>(target(d), reverse_of(u, d)) : edge_hash<Dest>(u, d);
        return h;
      }, std::plus<>{});
    });
  };
  if (hash_sum(false, false) == hash_sum(directed_, true)) return;
  auto reverse_list = [&](NodeId v) { return directed_ ? in_neigh(v) : out_neigh(v); };
  const NodeId u = first_vertex([&](NodeId x) {
    for (const Dest& d : out_neigh(x))
      if (!holds<Dest>(reverse_list(target(d)), reverse_of(x, d))) return true;
    return false;
  });
  if (u != INT_MAX) {
    for (const Dest& d : out_neigh(u))
      if (!holds<Dest>(reverse_list(target(d)), reverse_of(u, d)))
        fail("vertex " + std::to_string(u) + ": edge to " + describe(d) + " has no reverse entry");
  }
  fail(directed_ ? "the in-edges are not the out-edges reversed" : "an edge has no reverse entry");
}

template class BasicCSRGraph<NodeId>;
template class BasicCSRGraph<WNode>;

}  // namespace weft::graph
