#pragma once
// How a channel operation waits for its partner: how long it may wait
// (Patience), and the signal its partner completes (HandoffSignal), on which
// a ULT parks (its worker runs other ULTs) and a plain thread spins, then
// sleeps on a futex (weft::park).
//
// The waiting follows the synchronous-queues paper's pragmatics (Scherer,
// Lea & Scott, PPoPP'06, §3.3.3): a waiter first spins briefly, and only
// where spinning can pay off (a partner may run on another core: a plain
// thread, or a ULT of a runtime with more than one worker; the paper spins
// "on multiprocessors (only)"), then parks. Parking is a token handshake on
// one word, so a completion that comes first is never lost and a partner
// never touches a waiter that has already left.
//
// This is written on park/unpark directly (not on the lock family's
// spin-then-park helper), because the partner must know whether the waiter
// parked in order to keep the waiter's ULT alive while it unparks it.

#include <atomic>
#include <chrono>
#include <cstdint>

#include "weft/runtime/detail/task.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/sync/cpu.hpp"

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

// Whether a waiter should spin before parking: only if its partner can run
// meanwhile on another core (the caller is a plain thread, or a ULT of a
// runtime with several workers). A ULT alone on its worker parks at once:
// its partner is another ULT of the same worker or a thread that must be
// woken anyway.
inline bool spinning_can_help() {
  return weft::this_ult::worker_index() < 0 || weft::this_ult::num_workers() > 1;
}

// How many cpu_relax() rounds a waiter spins before it parks: the paper spins
// "about one-quarter the time of a typical context-switch"; a cross-worker
// unpark costs a few microseconds when the target worker sleeps. 64 rounds
// (a few microseconds of PAUSE) beat 0 and 256 for plain threads on the
// shared 2-core development VM (weft-bench channels --filter threads/).
inline constexpr int kHandoffSpins = 64;

// The waiting side of one hand-off. The owner (the waiter) parks on it until
// its partner calls complete(), exactly once. After complete() the partner
// never touches the signal again, so it may live in a node that is then
// recycled or on the waiter's stack.
class HandoffSignal {
 public:
  // For a signal that is reused (a pooled node): only while nobody else can
  // see it.
  void reset() noexcept {
    word_.store(kNone, std::memory_order_relaxed);
    task_ = nullptr;
  }
  bool done() const noexcept { return word_.load(std::memory_order_acquire) == kDone; }

  // Partner: marks the hand-off complete and wakes the owner if it parked.
  void complete() noexcept {
    std::uint32_t w = kNone;
    if (word_.compare_exchange_strong(w, kDone, std::memory_order_acq_rel, std::memory_order_acquire)) return;
    // Parked (or parking): the owner cannot leave before kDone, so its ULT is
    // alive here; keep it alive across the unpark, after which it may finish.
    weft::detail::TaskBase* t = task_;
    weft::detail::retain(t);
    word_.store(kDone, std::memory_order_release);
    weft::unpark(weft::UltRef(t));
    weft::detail::release(t, 1);
  }

  // Owner: spins up to `spins` rounds for complete(); true if it came.
  bool spin(int spins) const noexcept {
    for (int i = 0; i < spins; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    return done();
  }

  // Owner: parks until complete() (true) or until p's deadline (false;
  // Patience::none counts as past). May be called again after a false.
  bool wait(const Patience& p) {
    if (done()) return true;
    if (word_.load(std::memory_order_relaxed) == kNone) {
      task_ = weft::detail::current_task();  // written once, before kParked publishes it
      std::uint32_t w = kNone;
      if (!word_.compare_exchange_strong(w, kParked, std::memory_order_acq_rel, std::memory_order_acquire))
        return true;  // completed meanwhile
    }
    while (!done()) {
      if (p.kind == Patience::Kind::forever) {
        weft::park();
      } else if (p.kind == Patience::Kind::none || !weft::park_until(p.deadline)) {
        return done();
      }
    }
    return true;
  }

 private:
  static constexpr std::uint32_t kNone = 0;
  static constexpr std::uint32_t kParked = 1;
  static constexpr std::uint32_t kDone = 2;
  std::atomic<std::uint32_t> word_{kNone};
  weft::detail::TaskBase* task_ = nullptr;
};

}  // namespace weft::sync::detail
