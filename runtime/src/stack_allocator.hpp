#pragma once
// ULT stacks (internal). A stack is a fixed-size slot carved from a large
// mapping (a slab of many stacks, so 10^6 stacks are a few thousand
// mappings, not 10^6), with a guard page below it. Free stacks are cached per
// worker (LIFO, no locks: a started ULT never leaves its worker, so a stack
// is taken and given back on the same thread) and shared between workers and
// runtimes through a process-wide depot. Memory of stacks that stay unused
// for a while is given back to the system (madvise), the mappings are kept.
// docs/runtime.md ("Stacks") has the policy and the costs.
//
// Guard pages, in order of preference:
//  - guard markers (MADV_GUARD_INSTALL, Linux >= 6.13): a faulting page in
//    the page tables, no extra mapping, so every stack has one;
//  - mprotect(PROT_NONE) pages, each a mapping of its own, while the process
//    stays well below vm.max_map_count (a quarter of it goes to guards);
//  - beyond that, a canary word at the bottom of the stack, checked each time
//    the ULT switches away and when it finishes, plus the check that its saved
//    stack pointer lies inside the stack. A canary catches an overflow only
//    once the ULT switches, and only if the overflow wrote the canary.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace weft::detail {

// How one stack is protected against overflow.
enum class StackGuard : std::uint8_t { marker, page, canary };

// A stack handed out by a StackCache.
struct Stack {
  char* lo = nullptr;  // lowest usable byte; the guard (or canary) is right below / at it
  StackGuard guard = StackGuard::marker;
};

// The page size, and the guard of a stack whose lowest usable byte is `lo`,
// on the page below it: a marker if the kernel has them, else a PROT_NONE
// page while the budget of mappings lasts, else a canary at `lo`. Also used
// for the worker threads' own stacks (worker_threads.cpp).
std::size_t page_bytes();
StackGuard install_guard(char* lo);

// The value the canary word at the bottom of a canary-guarded stack holds.
std::uint64_t stack_canary_value(const char* lo) noexcept;
inline bool stack_canary_intact(const char* lo) noexcept {
  return *reinterpret_cast<const std::uint64_t*>(lo) == stack_canary_value(lo);
}

// Per-worker cache of free stacks of one size on one NUMA node.
class StackCache {
 public:
  // usable_bytes: rounded up to whole pages. keep: stacks kept here before
  // batches of them move to the process-wide depot.
  StackCache(std::size_t usable_bytes, std::size_t keep, int os_node);
  ~StackCache();  // every cached stack goes to the depot
  StackCache(const StackCache&) = delete;
  StackCache& operator=(const StackCache&) = delete;

  // A free stack: from this cache, else a batch from the depot, else a new
  // slab. Throws std::bad_alloc when no new slab can be mapped.
  Stack acquire() {
    if (!free_.empty()) [[likely]] {
      Entry e = free_.back();
      free_.pop_back();
      if (e.state == kReady) [[likely]]
        return {e.lo, guard_of(e)};
      return prepare(e);
    }
    return acquire_slow();
  }
  // Takes back a stack this cache (or another cache of the same size and
  // node) handed out.
  void release(Stack s) {
    free_.push_back({s.lo, kReady, s.guard});
    if (free_.size() > keep_ + kBatch) [[unlikely]] spill();
  }

  std::size_t usable_bytes() const { return usable_; }
  std::size_t cached() const { return free_.size(); }

  // Asked before each stack's memory is given back: true when the caller
  // has work waiting, and the trim stops there (an madvise is microseconds,
  // a trim step up to hundreds of them). Empty: never stop.
  using WorkWaiting = std::function<bool()>;
  // Gives the memory of depot stacks that have been idle for a trim period
  // back to the system, a bounded amount per call, until work is waiting.
  // Returns true when more is left to trim (call again later). Cheap when
  // there is nothing to do.
  static bool trim_idle_depots(const WorkWaiting& work_waiting = {});
  // Gives back the memory of every stack in the depots now (see
  // weft::release_unused_stacks), until work is waiting.
  static void trim_all_depots(const WorkWaiting& work_waiting = {});

  static constexpr std::size_t kBatch = 64;  // stacks moved to/from the depot at once

  // Tests only: make new stacks use this guard (as on a kernel without
  // guard markers, or past the mapping budget). nullptr-like `auto`: -1.
  static void force_guard_for_testing(int guard /* StackGuard value, -1 = automatic */);

 private:
  static constexpr std::uint8_t kReady = 0;   // guard in place, memory possibly resident
  static constexpr std::uint8_t kFresh = 1;   // never handed out: guard not installed yet
  static constexpr std::uint8_t kTrimmed = 2; // memory returned: a canary must be rewritten
  struct Entry {
    char* lo;
    std::uint8_t state;
    StackGuard guard;
  };
  friend class StackDepot;

  static StackGuard guard_of(const Entry& e) { return e.guard; }
  Stack prepare(Entry e);
  Stack acquire_slow();
  void spill();

  std::size_t usable_;
  std::size_t keep_;
  int os_node_;
  class StackDepot* depot_;
  std::vector<Entry> free_;
};

}  // namespace weft::detail
