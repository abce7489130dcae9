// The Kronecker (R-MAT) and uniform generators and random weights
// (generator.hpp), parallel in blocks with one random stream per block.
#include "weft/apps/graph/generator.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/graph/detail/progress_meter.hpp"
#include "weft/apps/graph/detail/random.hpp"

namespace weft::graph {
namespace {

constexpr std::size_t kBlock = 1 << 18;  // edges per random stream (GAPBS's block_size)

// Stream purposes, so that no two uses of a seed share a stream.
enum Purpose : std::uint64_t { kUniformEdges = 1, kKroneckerEdges = 2, kPermutation = 3, kWeights = 4 };

void check(const GeneratorOptions& o) {
  if (o.scale < 1 || o.scale > 30)
    throw std::invalid_argument("graph generator: scale " + std::to_string(o.scale) +
                                " is outside 1..30 (2^scale vertices with 32-bit ids)");
  if (o.degree < 1)
    throw std::invalid_argument("graph generator: degree " + std::to_string(o.degree) + " must be at least 1");
}

// Calls fill(rng, lo, hi) for each block of [0, m) with the block's stream.
template <class Fill>
void for_each_block(std::size_t m, std::uint64_t seed, Purpose purpose, detail::ProgressMeter& progress, Fill&& fill) {
  const std::size_t blocks = (m + kBlock - 1) / kBlock;
  weft::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    detail::SplitMix64 rng(seed, purpose, b);
    fill(rng, b * kBlock, std::min(m, (b + 1) * kBlock));
    progress.advance();
  }, schedule_static());
}

// One R-MAT edge: at each of `scale` levels choose a quadrant of the
// adjacency matrix with probabilities A, B, C, D (GAPBS's MakeRMatEL). Two
// 32-bit draws per 64-bit random number.
inline Edge rmat_edge(detail::SplitMix64& rng, int scale) {
  constexpr double kScale = 4294967296.0;
  constexpr auto kA = static_cast<std::uint64_t>(kKroneckerA * kScale);
  constexpr auto kAB = static_cast<std::uint64_t>((kKroneckerA + kKroneckerB) * kScale);
  constexpr auto kABC = static_cast<std::uint64_t>((kKroneckerA + kKroneckerB + kKroneckerC) * kScale);
  std::uint32_t src = 0, dst = 0;
  std::uint64_t bits = 0;
  for (int depth = 0; depth < scale; ++depth) {
    if (depth % 2 == 0) bits = rng.next();
    const std::uint64_t r = bits & 0xffffffffu;
    bits >>= 32;
    src <<= 1;
    dst <<= 1;
    if (r < kAB) {
      if (r >= kA) dst |= 1;  // B: top right
    } else {
      src |= 1;
      if (r >= kABC) dst |= 1;  // D: bottom right; else C: bottom left
    }
  }
  return {static_cast<NodeId>(src), static_cast<NodeId>(dst)};
}

}  // namespace

EdgeList generate_edges(const GeneratorOptions& options) {
  check(options);
  return detail::on_runtime([&] {
    const std::int64_t n = std::int64_t{1} << options.scale;
    const auto m = static_cast<std::size_t>(n * options.degree);
    const std::uint64_t blocks = (m + kBlock - 1) / kBlock;
    const bool kron = options.kind == GraphKind::kronecker;
    detail::ProgressMeter progress(options.progress, "generate", blocks * (kron ? 2 : 1));
    EdgeList el;
    el.edges = Array<Edge>(m);
    el.num_nodes = static_cast<NodeId>(n);
    el.symmetric = true;
    Edge* edges = el.edges.data();
    if (!kron) {
      for_each_block(m, options.seed, kUniformEdges, progress, [&](detail::SplitMix64& rng, std::size_t lo, std::size_t hi) {
        for (std::size_t e = lo; e < hi; ++e) {
          const auto u = static_cast<NodeId>(rng.below(static_cast<std::uint64_t>(n)));
          edges[e] = {u, static_cast<NodeId>(rng.below(static_cast<std::uint64_t>(n)))};
        }
      });
      progress.finish();
      return el;
    }
    for_each_block(m, options.seed, kKroneckerEdges, progress, [&](detail::SplitMix64& rng, std::size_t lo, std::size_t hi) {
      for (std::size_t e = lo; e < hi; ++e) edges[e] = rmat_edge(rng, options.scale);
    });
    // Permute the ids (GAPBS's PermuteIDs): a Fisher-Yates shuffle from the
    // seed (serial, O(n)), then every edge renamed in parallel.
    Array<NodeId> permutation(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) permutation[static_cast<std::size_t>(i)] = static_cast<NodeId>(i);
    detail::SplitMix64 rng(options.seed, kPermutation, 0);
    for (std::int64_t i = n - 1; i > 0; --i)
      std::swap(permutation[static_cast<std::size_t>(i)],
                permutation[static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(i) + 1))]);
    const NodeId* p = permutation.data();
    for_each_block(m, options.seed, kPermutation, progress, [&](detail::SplitMix64&, std::size_t lo, std::size_t hi) {
      for (std::size_t e = lo; e < hi; ++e) edges[e] = {p[edges[e].u], p[edges[e].v]};
    });
    progress.finish();
    return el;
  });
}

WEdgeList add_random_weights(EdgeList edges, std::uint64_t seed) {
  return detail::on_runtime([&] {
    WEdgeList out;
    out.num_nodes = edges.num_nodes;
    out.symmetric = edges.symmetric;
    out.edges = Array<WEdge>(edges.edges.size());
    const Edge* in = edges.edges.data();
    WEdge* w = out.edges.data();
    const ProgressFn none;
    detail::ProgressMeter quiet(none, "", 1);
    for_each_block(edges.edges.size(), seed, kWeights, quiet, [&](detail::SplitMix64& rng, std::size_t lo, std::size_t hi) {
      constexpr auto span = static_cast<std::uint64_t>(kMaxGeneratedWeight - kMinGeneratedWeight + 1);
      for (std::size_t e = lo; e < hi; ++e)
        w[e] = {in[e].u, in[e].v, static_cast<Weight>(kMinGeneratedWeight + rng.below(span))};
    });
    return out;
  });
}

WEdgeList generate_weighted_edges(const GeneratorOptions& options) {
  return add_random_weights(generate_edges(options), options.seed);
}

}  // namespace weft::graph
