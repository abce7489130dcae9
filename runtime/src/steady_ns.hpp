#pragma once
// steady_clock readings as whole nanoseconds (internal): the unit of the
// runtime's statistics (worker time split, start-up times).

#include <chrono>
#include <cstdint>

namespace weft::detail {

inline std::uint64_t steady_ns(std::chrono::steady_clock::time_point t) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}
inline std::uint64_t steady_ns() { return steady_ns(std::chrono::steady_clock::now()); }

}  // namespace weft::detail
