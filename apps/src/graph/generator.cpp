// The Kronecker (R-MAT) and uniform generators and random weights
// (generator.hpp), parallel in blocks with one random stream per block.
#include "weft/apps/graph/generator.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "weft/apps/graph/detail/kronecker.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/graph/detail/progress_meter.hpp"
#include "weft/apps/graph/detail/random.hpp"

namespace weft::graph {
namespace {

using detail::kGeneratorBlock;
using detail::rmat_edge;

void check(const GeneratorOptions& o) {
  if (o.scale < 1 || o.scale > 30)
    throw std::invalid_argument("graph generator: scale " + std::to_string(o.scale) +
                                " is outside 1..30 (2^scale vertices with 32-bit ids)");
  if (o.degree < 1)
    throw std::invalid_argument("graph generator: degree " + std::to_string(o.degree) + " must be at least 1");
}

// Calls fill(rng, lo, hi) for each block of [0, m) with the block's stream.
template <class Fill>
void for_each_block(std::size_t m, std::uint64_t seed, detail::GeneratorStream purpose, detail::ProgressMeter& progress, Fill&& fill) {
  const std::size_t blocks = (m + kGeneratorBlock - 1) / kGeneratorBlock;
  weft::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    detail::SplitMix64 rng(seed, purpose, b);
    fill(rng, b * kGeneratorBlock, std::min(m, (b + 1) * kGeneratorBlock));
    progress.advance();
  }, schedule_static());
}

}  // namespace

EdgeList generate_edges(const GeneratorOptions& options) {
  check(options);
  return detail::on_runtime([&] {
    const std::int64_t n = std::int64_t{1} << options.scale;
    const auto m = static_cast<std::size_t>(n * options.degree);
    const std::uint64_t blocks = (m + kGeneratorBlock - 1) / kGeneratorBlock;
    const bool kron = options.kind == GraphKind::kronecker;
    detail::ProgressMeter progress(options.progress, "generate", blocks * (kron ? 2 : 1));
    EdgeList el;
    el.edges = Array<Edge>(m);
    el.num_nodes = static_cast<NodeId>(n);
    el.symmetric = true;
    Edge* edges = el.edges.data();
    if (!kron) {
      for_each_block(m, options.seed, detail::kUniformEdgeStream, progress, [&](detail::SplitMix64& rng, std::size_t lo, std::size_t hi) {
        for (std::size_t e = lo; e < hi; ++e) {
          const auto u = static_cast<NodeId>(rng.below(static_cast<std::uint64_t>(n)));
          edges[e] = {u, static_cast<NodeId>(rng.below(static_cast<std::uint64_t>(n)))};
        }
      });
      progress.finish();
      return el;
    }
    for_each_block(m, options.seed, detail::kKroneckerEdgeStream, progress, [&](detail::SplitMix64& rng, std::size_t lo, std::size_t hi) {
      for (std::size_t e = lo; e < hi; ++e) edges[e] = rmat_edge(rng, options.scale);
    });
    // Permute the ids (GAPBS's PermuteIDs): a Fisher-Yates shuffle from the
    // seed (serial, O(n)), then every edge renamed in parallel.
    Array<NodeId> permutation(static_cast<std::size_t>(n));
    detail::fill_vertex_permutation(permutation, n, options.seed);
    const NodeId* p = permutation.data();
    for_each_block(m, options.seed, detail::kPermutationStream, progress, [&](detail::SplitMix64&, std::size_t lo, std::size_t hi) {
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
    for_each_block(edges.edges.size(), seed, detail::kWeightStream, quiet, [&](detail::SplitMix64& rng, std::size_t lo, std::size_t hi) {
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
