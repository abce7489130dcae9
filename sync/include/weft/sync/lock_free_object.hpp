#pragma once
// The "simple lock-free implementation" baseline of the Osci paper (§5,
// Table 2; Fatourou & Kallimanis PPoPP'12): the whole object state sits in
// one CAS-able word. apply() reads the state, applies the operation to a local
// copy and CASes the copy in, retrying with randomized exponential backoff
// (with a yielding policy: one yield between two consecutive attempts, as the
// paper's Table 2 variant). Only for objects whose state fits a lock-free
// std::atomic (Fetch&Multiply on a double or a 64-bit word, counters).

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "weft/sync/combining.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

struct LockFreeConfig {
  std::uint32_t backoff_min = 8;     // PAUSEs of the first backoff
  std::uint32_t backoff_max = 4096;  // cap of the exponential growth
};

template <SequentialObject Seq, WaitPolicy Wait = SpinWait>
class LockFreeObject {
  static_assert(std::is_trivially_copyable_v<Seq>, "LockFreeObject needs a trivially copyable state");
  static_assert(std::atomic<Seq>::is_always_lock_free, "LockFreeObject needs a lock-free std::atomic<Seq>");

 public:
  using Sequential = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;
  struct Handle {};  // no per-caller state

  LockFreeObject() : LockFreeObject(Seq{}) {}
  explicit LockFreeObject(Seq seq, LockFreeConfig cfg = {}) : state_(seq), cfg_(cfg) {}
  explicit LockFreeObject(Seq seq, CombiningConfig) : LockFreeObject(seq, LockFreeConfig{}) {}
  LockFreeObject(const LockFreeObject&) = delete;
  LockFreeObject& operator=(const LockFreeObject&) = delete;

  Handle handle() noexcept { return {}; }

  Result apply(Handle&, const Op& op) {
    Seq cur = state_.load(std::memory_order_acquire);
    ExponentialBackoff<Wait> backoff(cfg_.backoff_min, cfg_.backoff_max);
    for (;;) {
      Seq next = cur;
      Result r = next.apply(op);
      if (state_.compare_exchange_weak(cur, next, std::memory_order_acq_rel, std::memory_order_acquire)) return r;
      backoff();
    }
  }

  // The current state (a consistent snapshot at any time).
  Seq load() const noexcept { return state_.load(std::memory_order_acquire); }

 private:
  alignas(cache_line_size) std::atomic<Seq> state_;
  LockFreeConfig cfg_;
};

}  // namespace weft::sync
