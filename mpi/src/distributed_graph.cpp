// The Graph500 graph across ranks: generation of each rank's share of the
// Kronecker edge list, the exchange to the owners, the local CSR
// (distributed_graph.hpp).
#include "weft/mpi/graph500/distributed_graph.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "graph500_exchange.hpp"
#include "weft/apps/graph/detail/kronecker.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/graph/detail/random.hpp"
#include "weft/apps/graph/generator.hpp"
#include "weft/apps/parallel_for.hpp"
#include "weft/mpi/collectives.hpp"
#include "weft/mpi/environment.hpp"

namespace weft::mpi::graph500 {

namespace {

using weft::graph::Array;
using weft::graph::Edge;
using weft::graph::detail::SplitMix64;

// weft::graph::generate_edges's stream layout, R-MAT edge and permutation
// (weft/apps/graph/detail/kronecker.hpp): every rank draws its share of the
// same edge list.
using weft::graph::detail::kGeneratorBlock;
using weft::graph::detail::rmat_edge;

// Edges per pass of the exchange: bounds the send buffer (and keeps MPI's int
// counts far from overflowing) whatever the scale.
constexpr std::uint64_t kEdgesPerPass = std::uint64_t{1} << 22;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// generate_edges's vertex permutation. Every rank computes all of it (n ids;
// serial, O(n)).
std::vector<NodeId> vertex_permutation(std::int64_t n, std::uint64_t seed) {
  std::vector<NodeId> p(static_cast<std::size_t>(n));
  weft::graph::detail::fill_vertex_permutation(p, n, seed);
  return p;
}

// A directed copy of an input edge, at the owner of `from`. `to` is the other
// end, stored as -1 - to when (from, to) is the input edge's own direction:
// the owner of an input edge's first end counts it once (input_edges).
struct Arc {
  NodeId from;  // the owned end
  NodeId to;    // the other end; -1 - other when (from, other) is the input edge itself
};

std::uint64_t node_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

// How many ranks of `comm` share this rank's node (same processor name),
// through an iallgather of the names' hashes.
int ranks_on_my_node(MPI_Comm comm) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (int i = 0; i < length; ++i) h = (h ^ static_cast<unsigned char>(name[i])) * 1099511628211ull;
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size(comm)));
  iallgather(std::span<const std::uint64_t>(&h, 1), std::span<std::uint64_t>(all), comm).wait();
  return static_cast<int>(std::count(all.begin(), all.end(), h));
}

}  // namespace

Partition::Partition(std::int64_t num_vertices_, int ranks_, int rank_)
    : num_vertices(num_vertices_), ranks(ranks_), rank(rank_) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    throw std::invalid_argument("graph500: rank " + std::to_string(rank) + " of " + std::to_string(ranks));
  per_rank = (num_vertices + ranks - 1) / ranks;
  per_rank = (per_rank + 63) / 64 * 64;
  if (count(ranks - 1) <= 0) {
    throw std::invalid_argument("graph500: " + std::to_string(num_vertices) + " vertices over " +
                                std::to_string(ranks) + " ranks in blocks of " + std::to_string(per_rank) +
                                " (a multiple of 64) leave rank " + std::to_string(ranks - 1) +
                                " no vertex: use at most " + std::to_string((num_vertices + 63) / 64) +
                                " ranks or a larger scale");
  }
}

std::uint64_t estimated_bytes_per_rank(const GraphOptions& o, int ranks) {
  const auto n = std::uint64_t{1} << o.scale;
  const auto m = n * static_cast<std::uint64_t>(o.edgefactor);
  const std::uint64_t share = m / static_cast<std::uint64_t>(ranks) + 1;
  const std::uint64_t local_n = n / static_cast<std::uint64_t>(ranks) + 64;
  const std::uint64_t arcs = 2 * share + share / 4;  // both directions, 25 % for imbalance
  return share * sizeof(Edge)                                // the generated share
         + 2 * std::min(share, kEdgesPerPass) * sizeof(Arc)  // one pass's send buffer
         + arcs * sizeof(Arc)                                // the arcs received
         + 2 * arcs * sizeof(NodeId)                         // the CSR, before and after deduplication
         + 4 * local_n * sizeof(std::int64_t)                // offsets, degrees, cursors
         + n * sizeof(NodeId)                                // the permutation (every rank holds it)
         + 4 * local_n * sizeof(NodeId) + 2 * n / 8;         // BFS: parents, frontiers, two bitmaps
}

void check_graph_options(const GraphOptions& o, MPI_Comm comm) {
  if (o.scale < 1 || o.scale > 30)
    throw std::invalid_argument("graph500: scale " + std::to_string(o.scale) +
                                " is outside 1..30 (2^scale vertices with 32-bit ids)");
  if (o.edgefactor < 1)
    throw std::invalid_argument("graph500: edgefactor " + std::to_string(o.edgefactor) + " must be at least 1");
  if (static_cast<std::int64_t>(o.edgefactor) << o.scale > (std::int64_t{1} << 40))
    throw std::invalid_argument("graph500: edgefactor " + std::to_string(o.edgefactor) + " at scale " +
                                std::to_string(o.scale) + " makes more than 2^40 edges");
  const int ranks = size(comm);
  const Partition check(std::int64_t{1} << o.scale, ranks, 0);  // throws when a rank would own nothing
  const std::uint64_t need = estimated_bytes_per_rank(o, ranks);
  const int sharing = ranks_on_my_node(comm);
  const std::uint64_t memory = node_memory_bytes();
  // The verdict of the most constrained node, so that every rank agrees.
  std::array<std::uint64_t, 1> over{memory != 0 && need * static_cast<std::uint64_t>(sharing) > memory / 10 * 9 ? 1u : 0u};
  over = detail::all_reduce(over, MPI_MAX, comm);
  if (over[0] != 0) {
    throw std::invalid_argument("graph500: scale " + std::to_string(o.scale) + ", edgefactor " +
                                std::to_string(o.edgefactor) + " needs about " + std::to_string(need >> 20) +
                                " MiB per rank; " + std::to_string(sharing) + " ranks share this node's " +
                                std::to_string(memory >> 20) + " MiB (over 90 %): use more nodes or a smaller scale");
  }
}

Array<Edge> generate_edge_share(const GraphOptions& o, int rank, int ranks) {
  const auto m = static_cast<std::uint64_t>(o.edgefactor) << o.scale;
  const std::uint64_t lo = m * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(ranks);
  const std::uint64_t hi = m * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(ranks);
  Array<Edge> share(hi - lo);
  // The generator's blocks that meet [lo, hi): each from its own stream, the
  // first one skipped ahead to lo (draws per edge: one per two levels).
  const std::uint64_t first_block = lo / kGeneratorBlock, end_block = (hi + kGeneratorBlock - 1) / kGeneratorBlock;
  const std::uint64_t draws_per_edge = static_cast<std::uint64_t>(o.scale + 1) / 2;
  Edge* out = share.data();
  weft::parallel_for(first_block, end_block, [&](std::uint64_t b) {
    SplitMix64 rng(o.seed, weft::graph::detail::kKroneckerEdgeStream, b);
    const std::uint64_t from = std::max(lo, b * kGeneratorBlock), to = std::min(hi, (b + 1) * kGeneratorBlock);
    for (std::uint64_t skip = (from - b * kGeneratorBlock) * draws_per_edge; skip > 0; --skip) rng.next();
    for (std::uint64_t e = from; e < to; ++e) out[e - lo] = rmat_edge(rng, o.scale);
  });
  const std::vector<NodeId> p = vertex_permutation(std::int64_t{1} << o.scale, o.seed);
  weft::graph::detail::for_blocks_static<Edge>(share.size(), [&](std::size_t a, std::size_t b) {
    for (std::size_t e = a; e < b; ++e) out[e] = {p[static_cast<std::size_t>(out[e].u)], p[static_cast<std::size_t>(out[e].v)]};
  });
  return share;
}

DistributedGraph build_kronecker_graph(const GraphOptions& o, MPI_Comm comm) {
  check_graph_options(o, comm);
  DistributedGraph g;
  g.options = o;
  g.comm = comm;
  g.partition = Partition(std::int64_t{1} << o.scale, size(comm), rank(comm));
  const Partition& part = g.partition;
  const int p = part.ranks;
  const auto local_n = static_cast<std::size_t>(part.local_count());

  auto t = std::chrono::steady_clock::now();
  const Array<Edge> share = generate_edge_share(o, part.rank, p);
  g.generation_seconds = seconds_since(t);
  ibarrier(comm).wait();
  t = std::chrono::steady_clock::now();

  // Exchange: each input edge (u, v), u != v, goes to u's owner as (u, -1-v)
  // and to v's owner as (v, u); in passes of kEdgesPerPass edges, the same
  // number of passes on every rank.
  std::array<std::uint64_t, 1> passes{(share.size() + kEdgesPerPass - 1) / kEdgesPerPass};
  passes = detail::all_reduce(passes, MPI_MAX, comm);
  std::vector<Arc> arcs;
  for (std::uint64_t pass = 0; pass < passes[0]; ++pass) {
    const std::size_t lo = std::min<std::size_t>(share.size(), pass * kEdgesPerPass);
    const std::size_t hi = std::min<std::size_t>(share.size(), lo + kEdgesPerPass);
    std::vector<int> counts(static_cast<std::size_t>(p), 0);
    for (std::size_t e = lo; e < hi; ++e) {
      if (share[e].u == share[e].v) continue;
      ++counts[static_cast<std::size_t>(part.owner(share[e].u))];
      ++counts[static_cast<std::size_t>(part.owner(share[e].v))];
    }
    std::vector<int> cursor(counts.size());
    std::exclusive_scan(counts.begin(), counts.end(), cursor.begin(), 0);
    std::vector<Arc> send(static_cast<std::size_t>(cursor.back() + counts.back()));
    for (std::size_t e = lo; e < hi; ++e) {
      const Edge x = share[e];
      if (x.u == x.v) continue;
      send[static_cast<std::size_t>(cursor[static_cast<std::size_t>(part.owner(x.u))]++)] = {x.u, -1 - x.v};
      send[static_cast<std::size_t>(cursor[static_cast<std::size_t>(part.owner(x.v))]++)] = {x.v, x.u};
    }
    std::vector<Arc> got = detail::exchange(std::span<const Arc>(send), counts, comm);
    if (arcs.empty()) arcs = std::move(got);
    else arcs.insert(arcs.end(), got.begin(), got.end());
  }

  // CSR: count, place, sort and deduplicate each row, compact.
  const std::int64_t first = part.first();
  Array<std::int64_t> degree(local_n + 1, 0);
  g.input_edges = Array<std::int32_t>(local_n, 0);
  weft::parallel_for(std::size_t{0}, arcs.size(), [&](std::size_t i) {
    const auto l = static_cast<std::size_t>(arcs[i].from - first);
    std::atomic_ref<std::int64_t>(degree[l]).fetch_add(1, std::memory_order_relaxed);
    if (arcs[i].to < 0) std::atomic_ref<std::int32_t>(g.input_edges[l]).fetch_add(1, std::memory_order_relaxed);
  });
  Array<std::int64_t> start(local_n + 1);
  weft::graph::detail::parallel_prefix_sum(degree.data(), local_n, start.data());
  Array<NodeId> unsorted(arcs.size());
  {
    Array<std::int64_t> cursor = start.clone();
    weft::parallel_for(std::size_t{0}, arcs.size(), [&](std::size_t i) {
      const auto l = static_cast<std::size_t>(arcs[i].from - first);
      const std::int64_t at = std::atomic_ref<std::int64_t>(cursor[l]).fetch_add(1, std::memory_order_relaxed);
      unsorted[static_cast<std::size_t>(at)] = arcs[i].to < 0 ? -1 - arcs[i].to : arcs[i].to;
    });
  }
  std::vector<Arc>().swap(arcs);
  weft::graph::detail::for_each_vertex(static_cast<NodeId>(local_n), [&](NodeId l) {
    NodeId* row = unsorted.data() + start[static_cast<std::size_t>(l)];
    NodeId* end = unsorted.data() + start[static_cast<std::size_t>(l) + 1];
    std::sort(row, end);
    degree[static_cast<std::size_t>(l)] = std::unique(row, end) - row;
  });
  g.offsets = Array<std::int64_t>(local_n + 1);
  const std::int64_t kept = weft::graph::detail::parallel_prefix_sum(degree.data(), local_n, g.offsets.data());
  g.neighbours = Array<NodeId>(static_cast<std::size_t>(kept));
  weft::graph::detail::for_each_vertex(static_cast<NodeId>(local_n), [&](NodeId l) {
    const auto u = static_cast<std::size_t>(l);
    std::copy_n(unsorted.data() + start[u], degree[u], g.neighbours.data() + g.offsets[u]);
  });
  std::array<std::int64_t, 1> total{kept};
  total = detail::all_reduce(total, MPI_SUM, comm);
  g.global_directed_edges = total[0];
  std::array<double, 1> seconds{seconds_since(t)};
  g.construction_seconds = detail::all_reduce(seconds, MPI_MAX, comm)[0];
  return g;
}

}  // namespace weft::mpi::graph500
