#pragma once
// Waiting policies: what a synchronization algorithm does while it waits for
// a shared location to change. Every algorithm in weft/sync takes one as a
// template parameter, so the same code runs
//   - with one kernel thread per core (SpinWait: a PAUSE loop), and
//   - with many ULTs per core (YieldWait: each failed check yields the ULT to
//     the others of its worker, as the Osci paper does for its Table 2:
//     "we (repeatedly) call Yield instead of spinning").
//
// A policy is a default-constructible type with `void pause() noexcept`
// (called once per unsuccessful check) and `static constexpr bool yields`.
// A fresh instance is made for every wait, so a policy may keep a counter.
//
// YieldWait calls weft::this_ult::yield() (the runtime's fair yield; outside
// a ULT it is std::this_thread::yield(), which is also what plain threads want
// when they outnumber cores). A process-wide hook can replace it (tests,
// embedding in another fiber library).

#include <concepts>
#include <cstdint>

#include "weft/sync/cpu.hpp"

namespace weft::sync {

using YieldHook = void (*)();
using WorkerIndexHook = int (*)();

// Installs the function YieldWait calls (nullptr restores the default,
// weft::this_ult::yield). Thread-safe; meant to be called once at start-up.
void set_yield_hook(YieldHook hook) noexcept;
// Gives up the processor through the installed hook.
void yield_now();

// Installs the function that tells which worker (0..n-1) the caller runs on;
// -1 means "not on a worker" (plain thread). Default:
// weft::this_ult::worker_index().
void set_worker_index_hook(WorkerIndexHook hook) noexcept;
int current_worker_index();
// The caller's worker index (as current_worker_index()) and the worker as an
// identity (this_ult::worker_identity()), in one call. The identity is
// nullptr outside a ULT and while a worker-index hook is installed (the
// hook's "workers" may be kernel threads that run at the same time).
struct CurrentWorker {
  int index = -1;
  const void* identity = nullptr;
};
CurrentWorker current_worker();
// Number of workers of the caller's runtime (weft::this_ult::num_workers());
// 0 on a plain thread or while a worker-index hook is installed (the count
// of the hook's workers is unknown).
int current_worker_count();

// A small dense id for the calling kernel thread (0, 1, 2, ... in order of
// first call). Used where a plain thread needs a default cluster/slot.
int current_thread_ordinal() noexcept;

template <class W>
concept WaitPolicy = std::default_initializable<W> && requires(W& w) {
  { w.pause() } noexcept;
  { W::yields } -> std::convertible_to<bool>;
};

// Busy waiting with the spin-loop hint: one thread per core.
struct SpinWait {
  static constexpr bool yields = false;
  void pause() noexcept { cpu_relax(); }
};

// Every failed check gives the processor to another ULT (or thread).
struct YieldWait {
  static constexpr bool yields = true;
  void pause() noexcept { yield_now(); }
};

// Spins `Spins` times, then yields on every further check: for waits that are
// usually short but may be long (a preempted lock holder).
template <unsigned Spins = 128>
struct SpinThenYieldWait {
  static constexpr bool yields = true;
  unsigned n = 0;
  void pause() noexcept {
    if (n < Spins) {
      ++n;
      cpu_relax();
    } else {
      yield_now();
    }
  }
};

// Waits with policy W until pred() is true. Returns how many times it
// paused (spun or yielded, as W does): 0 when pred() held at once.
template <WaitPolicy W, class Pred>
inline std::uint64_t wait_until(Pred&& pred) noexcept(noexcept(pred())) {
  W w;
  std::uint64_t pauses = 0;
  for (; !pred(); ++pauses) w.pause();
  return pauses;
}

// Randomized exponential backoff between failed attempts of a CAS loop.
// With a yielding policy it yields once per failure (the paper's Table 2
// variant calls Yield between two consecutive CAS attempts).
template <WaitPolicy W>
class ExponentialBackoff {
 public:
  explicit ExponentialBackoff(std::uint32_t min_spins = 8, std::uint32_t max_spins = 4096) noexcept
      : limit_(min_spins ? min_spins : 1), max_(max_spins), rng_(seed()) {}

  void operator()() noexcept {
    W w;
    if constexpr (W::yields) {
      w.pause();
    } else {
      rng_ ^= rng_ << 13;
      rng_ ^= rng_ >> 7;
      rng_ ^= rng_ << 17;
      const std::uint64_t n = rng_ % limit_ + 1;
      for (std::uint64_t i = 0; i < n; ++i) w.pause();
      if (limit_ < max_) limit_ = limit_ * 2 > max_ ? max_ : limit_ * 2;
    }
  }

 private:
  std::uint64_t seed() const noexcept {
    // Different per instance (stack address) and never zero.
    return (reinterpret_cast<std::uintptr_t>(this) * 0x9E3779B97F4A7C15ull) | 1u;
  }
  std::uint32_t limit_;
  std::uint32_t max_;
  std::uint64_t rng_;
};

}  // namespace weft::sync
