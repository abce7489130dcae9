#pragma once
// The combining interface: "apply this operation to a shared sequential
// object". Every algorithm in weft/sync (CC-Synch, DSM-Synch, H-Synch, flat
// combining, Oyama, CLH lock, lock-free CAS loop, std::mutex, Osci and PSim-x)
// is a class template over the sequential object with the same surface, so a
// user or a benchmark switches algorithm by changing one type (PSim needs a
// trivially copyable object, see PSimState in psim.hpp):
//
//   using Obj = weft::sync::CCSynch<FetchMultiply<std::uint64_t>>;   // or DSMSynch<...>, ...
//   Obj obj;
//   auto h = obj.handle();          // per thread/ULT, per object; allocates here only
//   std::uint64_t old = obj.apply(h, 3);
//
// Per-caller state lives in a Handle obtained from the object, not in
// thread_local storage: several ULTs share a kernel thread, so thread_local
// state would be shared by ULTs that wait at the same time. A Handle
// - is move-only, owned by exactly one thread/ULT at a time (may be moved to
//   another one between operations),
// - must not outlive its object,
// - holds everything an operation needs, so apply() never allocates.

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "weft/runtime/trace.hpp"

namespace weft::sync {

// A sequential object: plain single-threaded code, `Result apply(const Op&)`.
// Op and Result are copied into and out of announcement nodes.
template <class S>
concept SequentialObject =
    requires(S& s, const typename S::Op& op) {
      typename S::Op;
      typename S::Result;
      { s.apply(op) } -> std::same_as<typename S::Result>;
    } && std::move_constructible<S> && std::default_initializable<typename S::Op> &&
    std::copyable<typename S::Op> && std::default_initializable<typename S::Result> &&
    std::copyable<typename S::Result>;

// A concurrent object built from a sequential one by some synchronization
// algorithm.
template <class C>
concept CombiningObject = requires(C& c, typename C::Handle& h, const typename C::Op& op) {
  typename C::Sequential;
  typename C::Op;
  typename C::Result;
  typename C::Handle;
  { c.handle() } -> std::same_as<typename C::Handle>;
  { c.apply(h, op) } -> std::same_as<typename C::Result>;
} && std::movable<typename C::Handle>;

// Options shared by the combining algorithms.
struct CombiningConfig {
  // The combining bound h: the most requests one combiner serves before it
  // hands the role on (CC-Synch/DSM-Synch/H-Synch "help bound", Osci line 37).
  // 0 = 10 x the number of live handles (the factor the authors' Synch
  // framework uses), at least 16.
  std::size_t max_combine = 0;
};

// Counters of the combining work done so far, for benchmarks (Table 4's
// "combining degree" = requests / rounds). Read them when the object is idle
// or accept a slightly stale pair.
struct CombiningStats {
  std::uint64_t rounds = 0;    // number of combining turns (a combiner's visit)
  std::uint64_t requests = 0;  // requests applied in those turns
  double degree() const noexcept { return rounds ? double(requests) / double(rounds) : 0.0; }
};

namespace detail {

// Stats kept by whoever currently holds the combiner role: only one thread
// writes at a time (the role is handed over with release/acquire), readers
// may look at any time, hence relaxed atomics updated with load+store.
class StatsCounter {
 public:
  void add_round(std::uint64_t served) noexcept {
    rounds_.store(rounds_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    requests_.store(requests_.load(std::memory_order_relaxed) + served, std::memory_order_relaxed);
  }
  CombiningStats get() const noexcept {
    return {rounds_.load(std::memory_order_relaxed), requests_.load(std::memory_order_relaxed)};
  }

 private:
  std::atomic<std::uint64_t> rounds_{0};
  std::atomic<std::uint64_t> requests_{0};
};

// One combiner's turn, from taking the role to handing it on: counted in the
// object's StatsCounter and, while a trace records, a "combine" slice on the
// combiner's worker track whose arguments say which ULT combined ("ult") and
// how many requests it served ("served"). The algorithms (CC-Synch,
// DSM-Synch, H-Synch, flat combining, Oyama, Osci) open one where their
// combiner loop begins; PSim marks its attempts itself (psim_engine.hpp).
class CombineRound {
 public:
  explicit CombineRound(StatsCounter& stats) : stats_(stats), slice_(label("combine")) {}
  // The wait policy's outcome for the combiner: its request was not served
  // while it waited, so after `pauses` pauses ("yields" or "spins", as Wait
  // pauses) it took the role.
  template <class Wait>
  void waited(std::uint64_t pauses) {
    slice_.arg(Wait::yields ? label("yields") : label("spins"), pauses);
  }
  // At the end of the turn, before the role is handed on (one writer at a time).
  void served(std::uint64_t requests) {
    stats_.add_round(requests);
    slice_.arg(label("served"), requests);
  }

 private:
  StatsCounter& stats_;
  trace::Scope slice_;
};

// Resolves CombiningConfig::max_combine against the live handle count.
class CombineBound {
 public:
  explicit CombineBound(std::size_t fixed) noexcept : fixed_(fixed) {}
  void handle_created() noexcept { live_.fetch_add(1, std::memory_order_relaxed); }
  void handle_destroyed() noexcept { live_.fetch_sub(1, std::memory_order_relaxed); }
  std::size_t get() const noexcept {
    if (fixed_) return fixed_;
    const std::size_t n = 10 * live_.load(std::memory_order_relaxed);
    return n < 16 ? 16 : n;
  }

 private:
  std::size_t fixed_;
  std::atomic<std::size_t> live_{0};
};

}  // namespace detail
}  // namespace weft::sync
