#pragma once
// How a channel operation waits for its partner: how long it may wait
// (Patience), and wait_flag(), which waits on the lock family's ParkingFlag
// (detail/spin_then_park.hpp) that the partner sets once it has moved the
// value: a ULT yields once, spins within the measured budget and parks (its
// worker runs other ULTs); a plain thread spins, then sleeps on a futex. This
// is the synchronous-queues paper's "spin, then block" (Scherer, Lea & Scott,
// PPoPP'06, §3.3.3). A set that comes first is never lost, and the setter
// never touches a waiter that has left.

#include <atomic>
#include <chrono>
#include <cstdint>

#include "weft/sync/detail/spin_then_park.hpp"

namespace weft::sync::detail {

// How long an operation may wait for a partner: not at all (offer/poll,
// try_send/try_receive), until a deadline, or for ever.
struct Patience {
  enum class Kind : std::uint8_t { none, until, forever };
  Kind kind = Kind::forever;
  std::chrono::steady_clock::time_point deadline{};

  static Patience none() noexcept { return {Kind::none, {}}; }
  static Patience forever() noexcept { return {Kind::forever, {}}; }
  static Patience until(std::chrono::steady_clock::time_point t) noexcept { return {Kind::until, t}; }
  template <class Rep, class Period>
  static Patience for_(std::chrono::duration<Rep, Period> d) noexcept {
    if (d <= d.zero()) return until(std::chrono::steady_clock::now());
    return until(std::chrono::steady_clock::now() + std::chrono::ceil<std::chrono::steady_clock::duration>(d));
  }
  // True when the operation must not wait (none, or a deadline already past).
  bool exhausted() const noexcept {
    return kind == Kind::none || (kind == Kind::until && std::chrono::steady_clock::now() >= deadline);
  }
  bool expired() const noexcept { return kind == Kind::until && std::chrono::steady_clock::now() >= deadline; }
};

// Waits on `flag` (detail/spin_then_park.hpp: spins within the lock
// family's measured budget, a ULT yields once first, then parks) as patient
// as `p`: true once set; false when the deadline passed first (the waiter
// has withdrawn; a later set() just sets the flag) or, for Patience::none,
// when it is not set yet.
inline bool wait_flag(ParkingFlag& flag, const Patience& p) {
  switch (p.kind) {
    case Patience::Kind::forever:
      flag.wait();
      return true;
    case Patience::Kind::until:
      return flag.wait_until(p.deadline);
    case Patience::Kind::none:
      break;
  }
  return flag.is_set();
}

}  // namespace weft::sync::detail
