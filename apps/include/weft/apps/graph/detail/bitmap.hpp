#pragma once
// A bitmap over [0, n) in 64-bit words (internal): the bottom-up BFS frontier
// and BC's successor marks. get() and set_atomic() may run concurrently; the
// word-at-a-time writes (set_word) belong to the one iteration that owns the
// word.

#include <cstddef>
#include <cstdint>
#include <utility>

#include "weft/apps/graph/array.hpp"
#include "weft/apps/graph/detail/atomics.hpp"

namespace weft::graph::detail {

class Bitmap {
 public:
  Bitmap() = default;
  // `bits` bits, uninitialised: reset() them, or write every word.
  explicit Bitmap(std::size_t bits) : bits_(bits), words_((bits + 63) / 64) {}

  std::size_t size() const noexcept { return bits_; }
  std::size_t num_words() const noexcept { return words_.size(); }

  // Clears every bit (a static weft loop; code on another runtime clears
  // words() itself).
  void reset() { words_.fill(0); }
  std::uint64_t* words() noexcept { return words_.data(); }

  bool get(std::size_t i) const noexcept { return (load(words_[i / 64]) >> (i % 64)) & 1; }
  void set_atomic(std::size_t i) noexcept {
    std::atomic_ref<std::uint64_t>(words_[i / 64]).fetch_or(std::uint64_t{1} << (i % 64), std::memory_order_relaxed);
  }
  std::uint64_t word(std::size_t w) const noexcept { return load(words_[w]); }
  void set_word(std::size_t w, std::uint64_t value) noexcept { store(words_[w], value); }

  // Counts the set bits (serial).
  std::size_t count() const noexcept {
    std::size_t c = 0;
    for (std::size_t w = 0; w < words_.size(); ++w) c += static_cast<std::size_t>(__builtin_popcountll(word(w)));
    return c;
  }

  void swap(Bitmap& other) noexcept {
    std::swap(bits_, other.bits_);
    std::swap(words_, other.words_);
  }

 private:
  std::size_t bits_ = 0;
  Array<std::uint64_t> words_;
};

}  // namespace weft::graph::detail
