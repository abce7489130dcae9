#pragma once
// Sequential number objects for the Fetch&Multiply benchmark of the Osci
// paper (§5: "Fetch&Multiply(O, k) returns the current value v of O and
// updates it to v * k") and a Fetch&Add counter for exactly-once tests.
// On unsigned integers the arithmetic is modulo 2^N; with odd multipliers the
// value never becomes 0, so every result stays informative.

#include <cstddef>
#include <functional>
#include <type_traits>

namespace weft::sync {

template <class T>
struct FetchMultiply {
  static_assert(std::is_arithmetic_v<T>);
  using Op = T;      // the multiplier k
  using Result = T;  // the value before the multiplication
  T value = T(1);

  T apply(const T& k) noexcept {
    const T old = value;
    value = static_cast<T>(value * k);
    return old;
  }
  friend bool operator==(const FetchMultiply&, const FetchMultiply&) = default;
  std::size_t hash() const noexcept { return std::hash<T>{}(value); }
};

template <class T>
struct FetchAdd {
  static_assert(std::is_arithmetic_v<T>);
  using Op = T;      // the increment
  using Result = T;  // the value before the addition
  T value = T(0);

  T apply(const T& d) noexcept {
    const T old = value;
    value = static_cast<T>(value + d);
    return old;
  }
  friend bool operator==(const FetchAdd&, const FetchAdd&) = default;
  std::size_t hash() const noexcept { return std::hash<T>{}(value); }
};

}  // namespace weft::sync
