#pragma once
// The value types of weft's graphs (GAPBS's defaults: 32-bit vertex ids and
// weights, 64-bit edge offsets). A graph holds at most 2^31 - 1 vertices
// (kMaxNodes); larger inputs are refused with std::invalid_argument.

#include <compare>
#include <cstdint>
#include <limits>

namespace weft::graph {

using NodeId = std::int32_t;      // a vertex, 0 .. num_nodes - 1
using Weight = std::int32_t;      // an edge weight (SSSP needs them >= 0)
using EdgeOffset = std::int64_t;  // an index into a neighbour array

inline constexpr std::int64_t kMaxNodes = std::numeric_limits<NodeId>::max();

// GAPBS's fixed seed (kRandSeed), the default for generators and source picking.
inline constexpr std::uint64_t kDefaultSeed = 27491095;

// An edge u -> v of an edge list.
struct Edge {
  NodeId u, v;
  friend bool operator==(const Edge&, const Edge&) = default;
};

// A weighted edge u -> v of weight w.
struct WEdge {
  NodeId u, v;
  Weight w;
  friend bool operator==(const WEdge&, const WEdge&) = default;
};

// A weighted neighbour: the far end v and the edge's weight. Neighbourhoods
// are sorted by v, then w.
struct WNode {
  NodeId v;
  Weight w;
  friend bool operator==(const WNode&, const WNode&) = default;
  friend auto operator<=>(const WNode&, const WNode&) = default;
};

// The vertex a neighbour entry points at (for code written for both kinds).
constexpr NodeId target(NodeId v) noexcept { return v; }
constexpr NodeId target(const WNode& n) noexcept { return n.v; }

}  // namespace weft::graph
