#pragma once
// The iteration space of a loop over any integral index type (internal):
// [begin, end) as a first index and a count, so that the schedules work on
// offsets 0..count-1 (std::uint64_t) whatever the index type, and a chunk
// [lo, hi) of offsets runs the body on the matching indices.

#include <concepts>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "weft/runtime/trace.hpp"

namespace weft::detail {

template <class T>
concept loop_index = std::integral<T> && !std::same_as<std::remove_cv_t<T>, bool>;

template <loop_index I>
struct IndexSpace {
  using Unsigned = std::make_unsigned_t<I>;
  I first{};
  std::uint64_t count = 0;  // 0 when begin >= end

  I at(std::uint64_t offset) const {
    // Modular arithmetic in the unsigned type, converted back (C++20: modular).
    return static_cast<I>(static_cast<Unsigned>(static_cast<Unsigned>(first) + static_cast<Unsigned>(offset)));
  }
};

// The index type of a loop from `begin` to `end` (mixed types allowed, as in
// `parallel_for(0, v.size(), ...)`): their common type. A negative bound that
// the common type cannot hold (an int -1 beside a size_t end) would silently
// become a huge unsigned index, so it is a std::invalid_argument instead.
template <loop_index B, loop_index E>
using common_index_t = std::common_type_t<B, E>;

template <loop_index B, loop_index E>
IndexSpace<common_index_t<B, E>> make_index_space(B begin, E end, const char* construct) {
  using I = common_index_t<B, E>;
  auto representable = [](auto v) {
    using V = decltype(v);
    if constexpr (std::is_signed_v<V> && std::is_unsigned_v<I>) return v >= 0;
    else return true;
  };
  auto text = [](auto v) {
    if constexpr (std::is_signed_v<decltype(v)>) return std::to_string(static_cast<long long>(v));
    else return std::to_string(static_cast<unsigned long long>(v));
  };
  if (!representable(begin) || !representable(end))
    throw std::invalid_argument(std::string("weft::") + construct + ": a negative bound (begin " + text(begin) +
                                ", end " + text(end) +
                                ") beside an unsigned one makes the index type unsigned; make both bounds signed");
  const I b = static_cast<I>(begin), e = static_cast<I>(end);
  if (!(b < e)) return {b, 0};
  using U = typename IndexSpace<I>::Unsigned;
  return {b, static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(e) - static_cast<U>(b)))};
}

// body(i) for the indices of offsets [lo, hi), in increasing order.
template <loop_index I, class Body>
inline void run_chunk(const IndexSpace<I>& space, std::uint64_t lo, std::uint64_t hi, Body& body) {
  trace::Scope traced(label("loop chunk"));  // a slice in a trace; a load and a branch otherwise
  const I last = space.at(hi);
  for (I i = space.at(lo); i != last; ++i) body(i);
}

}  // namespace weft::detail
