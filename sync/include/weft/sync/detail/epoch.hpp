#pragma once
// Epoch-based reclamation (Fraser, "Practical lock-freedom", 2004, §5.2.3):
// the memory safety the channels' dual queue and dual stack, the OPTIK
// structures and CLHT need where their papers rely on a garbage collector
// (Scherer, Lea & Scott, PPoPP'06, §3.3.3: "Java's garbage collection removes
// this burden") or on ssmem's quiescent-state reclamation (Trigonakis'
// thesis §6.3.3, "OPTIK and Memory Reclamation").
//
// A thread (a worker running ULTs, or a plain thread) brackets every
// operation that reads shared nodes with an EpochGuard; a node unlinked from
// its structure is retire()d and freed once every thread that was inside a
// guard when it was retired has left it (three epochs, one global counter,
// one announcement word per thread). Guards nest. A ULT must not park, yield
// or otherwise switch while it holds a guard: the announcement belongs to the
// worker thread, so a switched-out ULT would hold back every reclamation on
// that thread's behalf (and the structures here never do).
//
// Costs: entering is one exchange on the thread's own cache line, leaving one
// store; every 64th retire scans the announcement words and may advance the
// epoch.

#include <cstddef>
#include <cstdint>

namespace weft::sync::detail {

// Something that can be retired: derive from it and set `reclaim`, which is
// called exactly once, on some thread, when no guard can still reach it.
struct Retired {
  Retired* retired_next = nullptr;
  void (*reclaim)(Retired*) noexcept = nullptr;
};

void epoch_enter() noexcept;
void epoch_exit() noexcept;
// Hands `r` (already unreachable for new readers) to the reclaimer.
void retire(Retired* r) noexcept;
// Tries to advance the epoch and frees what the calling thread (and exited
// threads) retired long enough ago; returns how many it freed. For tests and
// for long idle phases; operations need not call it.
std::size_t epoch_collect() noexcept;

class EpochGuard {
 public:
  EpochGuard() noexcept { epoch_enter(); }
  ~EpochGuard() { epoch_exit(); }
  EpochGuard(const EpochGuard&) = delete;
  EpochGuard& operator=(const EpochGuard&) = delete;
};

}  // namespace weft::sync::detail
