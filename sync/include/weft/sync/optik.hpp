#pragma once
// The OPTIK lock (Trigonakis, "Towards Scalable Synchronization on Multi-
// Cores", EPFL thesis 2016, §6.3; Guerraoui & Trigonakis, PPoPP'16): a lock
// that is also a version number, so that the OPTIK pattern
//     read the version; work optimistically without synchronization;
//     lock *and* validate that the version is unchanged (one CAS);
//     critical section; increment the version and unlock (one store)
// costs no more than taking a plain spinlock. The versioned implementation of
// §6.3 (Figure 6.5): one 64-bit word, odd while locked; trylock_version fails
// if the word is odd or differs from the version read; unlock increments,
// revert decrements (released as unmodified). Acquire loads and release
// stores suffice (no fences on x86).
//
// The waiting functions spin with the given WaitPolicy (weft/sync/wait.hpp):
// critical sections of the OPTIK structures are a few stores and never
// switch, so ULTs spinning on one another is short.

#include <atomic>
#include <cstdint>

#include "weft/sync/wait.hpp"

namespace weft::sync {

class OptikLock {
 public:
  using Version = std::uint64_t;

  // The current version (may be odd: locked).
  Version get_version() const noexcept { return word_.load(std::memory_order_acquire); }
  // Spins until the lock is free, returns that (even) version.
  template <WaitPolicy Wait = SpinThenYieldWait<>>
  Version get_version_wait() const noexcept {
    Wait w;
    Version v;
    while ((v = word_.load(std::memory_order_acquire)) & 1) w.pause();
    return v;
  }
  static bool is_locked_version(Version v) noexcept { return (v & 1) != 0; }
  bool is_locked() const noexcept { return is_locked_version(get_version()); }
  bool is_same_version(Version v) const noexcept { return get_version() == v; }

  // Acquires only if the lock is free *and* still at version v (one CAS).
  bool trylock_version(Version v) noexcept {
    if (is_locked_version(v) || word_.load(std::memory_order_relaxed) != v) return false;
    return word_.compare_exchange_strong(v, v + 1, std::memory_order_acquire, std::memory_order_relaxed);
  }
  // Acquires (waiting); returns whether the version acquired was v, i.e.
  // nothing changed since v was read.
  template <WaitPolicy Wait = SpinThenYieldWait<>>
  bool lock_version(Version v) noexcept {
    Wait w;
    for (;;) {
      Version cur = word_.load(std::memory_order_relaxed);
      if (!is_locked_version(cur) &&
          word_.compare_exchange_weak(cur, cur + 1, std::memory_order_acquire, std::memory_order_relaxed))
        return cur == v;
      w.pause();
    }
  }
  template <WaitPolicy Wait = SpinThenYieldWait<>>
  void lock() noexcept {
    (void)lock_version<Wait>(0);
  }
  // Releases with a new version (the protected data changed).
  void unlock() noexcept { word_.store(word_.load(std::memory_order_relaxed) + 1, std::memory_order_release); }
  // Releases at the version it was acquired at (nothing changed).
  void revert() noexcept { word_.store(word_.load(std::memory_order_relaxed) - 1, std::memory_order_release); }

 private:
  std::atomic<Version> word_{0};
};

}  // namespace weft::sync
