#pragma once
// The Graph500 graph across MPI ranks (the specification's kernel 1, "graph
// construction"): the Kronecker generator's edge list, 1D-partitioned.
//
// Every rank generates an equal share of the edge list's global indices
// (edge e is drawn from the same random stream position whatever the rank
// count: weft::graph::generate_edges's (seed, block) streams, skipped ahead to
// e), so the edges are exactly those weft::graph::generate_edges makes for
// the same scale, degree and seed, permutation included. Each edge then goes
// to the owners of both its ends (1D block partition: rank r owns the
// vertices [r * per_rank, (r + 1) * per_rank)), and each rank builds the CSR
// of its own vertices' neighbourhoods: sorted, duplicates and self-loops
// dropped, neighbours as global ids.
//
//   auto g = weft::mpi::graph500::build_kronecker_graph({.scale = 20, .edgefactor = 16});
//
// Collective over `comm`; call it from a ULT of a live weft::Runtime (the
// generation and the CSR build run on weft's parallel layer).

#include <mpi.h>

#include <algorithm>
#include <cstdint>

#include "weft/apps/graph/array.hpp"
#include "weft/apps/graph/types.hpp"

namespace weft::mpi::graph500 {

using weft::graph::NodeId;  // a global vertex id (scale <= 30)

// Which rank owns which vertex: blocks of per_rank vertices, per_rank a
// multiple of 64 so that each rank's part of a frontier bitmap is whole
// 64-bit words.
struct Partition {
  std::int64_t num_vertices = 0;  // 2^scale, over all ranks
  int ranks = 1;
  int rank = 0;
  std::int64_t per_rank = 0;  // vertices per rank (the last ones may own fewer)

  // Throws std::invalid_argument when some rank would own no vertex.
  Partition(std::int64_t num_vertices, int ranks, int rank);
  Partition() = default;

  int owner(NodeId v) const noexcept { return static_cast<int>(v / per_rank); }
  std::int64_t first(int r) const noexcept { return std::min(num_vertices, r * per_rank); }
  std::int64_t count(int r) const noexcept { return first(r + 1) - first(r); }
  std::int64_t first() const noexcept { return first(rank); }
  std::int64_t local_count() const noexcept { return count(rank); }
  bool is_local(NodeId v) const noexcept { return v >= first() && v < first() + local_count(); }
  std::int64_t to_local(NodeId v) const noexcept { return v - first(); }
  NodeId to_global(std::int64_t local) const noexcept { return static_cast<NodeId>(first() + local); }
};

struct GraphOptions {
  int scale = 16;       // 2^scale vertices, 1..30
  int edgefactor = 16;  // edgefactor * 2^scale input edges, >= 1
  std::uint64_t seed = weft::graph::kDefaultSeed;
};

// This rank's part of the graph.
struct DistributedGraph {
  GraphOptions options;
  MPI_Comm comm = MPI_COMM_WORLD;  // the ranks it is spread over (searches and checks use it)
  Partition partition;
  // Row l (local vertex first() + l): neighbours[offsets[l] .. offsets[l+1]),
  // sorted global ids, no duplicates, no self-loop.
  weft::graph::Array<std::int64_t> offsets;
  weft::graph::Array<NodeId> neighbours;
  // input_edges[l]: the input edges (u, v), u != v, whose first end u is
  // local vertex l, duplicates counted: Graph500's count of edges in a
  // searched component (TEPS) is the sum over the component's vertices.
  weft::graph::Array<std::int32_t> input_edges;
  std::int64_t global_directed_edges = 0;  // the sum of all ranks' neighbours.size()
  double generation_seconds = 0;           // generating this rank's edges
  double construction_seconds = 0;         // exchanging them and building the CSR (max over ranks)

  std::int64_t degree(std::int64_t local) const noexcept { return offsets[local + 1] - offsets[local]; }
};

// What build_kronecker_graph would need on the most loaded rank, in bytes (an
// estimate: edge shares, exchange buffers, CSR, permutation).
std::uint64_t estimated_bytes_per_rank(const GraphOptions& options, int ranks);

// Checks the options against the ranks and this machine before anything is
// allocated: std::invalid_argument naming the problem (scale outside 1..30,
// edgefactor < 1, a rank owning no vertex, or more memory per rank than the
// ranks sharing this node can have). Every rank reaches the same verdict.
void check_graph_options(const GraphOptions& options, MPI_Comm comm = MPI_COMM_WORLD);

// Generates, distributes and builds the graph (see above). Checks the
// options first (check_graph_options).
DistributedGraph build_kronecker_graph(const GraphOptions& options, MPI_Comm comm = MPI_COMM_WORLD);

// This rank's share of the input edge list, as generated (before the
// exchange): the global edge indices [m * rank / ranks, m * (rank+1) / ranks).
weft::graph::Array<weft::graph::Edge> generate_edge_share(const GraphOptions& options, int rank, int ranks);

}  // namespace weft::mpi::graph500
