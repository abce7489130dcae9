#pragma once
// The generators' random numbers (internal): SplitMix64 (Steele, Lea, Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014), a stream per
// (seed, purpose, block) so that a generated graph depends on the seed only,
// never on how many workers made it, and the same on every platform (the
// standard library's distributions are not specified bit for bit).

#include <cstdint>

namespace weft::graph::detail {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}
  // A stream for one block of one purpose under one seed.
  SplitMix64(std::uint64_t seed, std::uint64_t purpose, std::uint64_t block) noexcept
      : state_(mix(mix(seed ^ mix(purpose + 0x9e3779b97f4a7c15ull)) + block)) {}

  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    return mix_final(z);
  }
  // Uniform in [0, bound) (Lemire's multiply-shift; bias below 2^-32 for the
  // bounds used here, under 2^31).
  std::uint64_t below(std::uint64_t bound) noexcept {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<u128>(next()) * bound) >> 64);
  }

  static std::uint64_t mix(std::uint64_t z) noexcept { return mix_final(z + 0x9e3779b97f4a7c15ull); }

 private:
  static std::uint64_t mix_final(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

}  // namespace weft::graph::detail
