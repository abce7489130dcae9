#pragma once
// The Kronecker generator's pieces (internal): its random-stream layout, one
// R-MAT edge and the vertex permutation. Shared by generate_edges
// (apps/src/graph/generator.cpp) and the Graph500 generator that draws each
// MPI rank's share of the same edge list (mpi/src/distributed_graph.cpp):
// both must produce the very same edges.

#include <cstddef>
#include <cstdint>
#include <utility>

#include "weft/apps/graph/detail/random.hpp"
#include "weft/apps/graph/generator.hpp"
#include "weft/apps/graph/types.hpp"

namespace weft::graph::detail {

inline constexpr std::size_t kGeneratorBlock = std::size_t{1} << 18;  // edges per random stream (GAPBS's block_size)

// Stream purposes, so that no two uses of a seed share a stream.
enum GeneratorStream : std::uint64_t {
  kUniformEdgeStream = 1,
  kKroneckerEdgeStream = 2,
  kPermutationStream = 3,
  kWeightStream = 4,
};

// One R-MAT edge: at each of `scale` levels choose a quadrant of the
// adjacency matrix with probabilities A, B, C, D (GAPBS's MakeRMatEL). Two
// 32-bit draws per 64-bit random number.
inline Edge rmat_edge(SplitMix64& rng, int scale) {
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

// The permutation of the vertex ids (GAPBS's PermuteIDs): a Fisher-Yates
// shuffle from the seed, serial, O(n). `ids` holds n NodeIds (operator[]).
template <class Ids>
void fill_vertex_permutation(Ids& ids, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = static_cast<NodeId>(i);
  SplitMix64 rng(seed, kPermutationStream, 0);
  for (std::int64_t i = n - 1; i > 0; --i)
    std::swap(ids[static_cast<std::size_t>(i)], ids[static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(i) + 1))]);
}

}  // namespace weft::graph::detail
