#pragma once
// WordLock: a mutual-exclusion lock in one 32-bit word the caller owns
// (internal). omp_lock_t is 4 bytes of the program's memory and a named
// critical section is one pointer-sized common symbol, so the lock cannot
// hold a waiter queue: waiters park in the parking lot under the word's
// address. The word follows Drepper's futex mutex ("Futexes Are Tricky",
// mutex 3): 0 free, 1 held, 2 held and maybe waited for. An uncontended
// lock and unlock are one CAS and one exchange; a contended lock spins (the
// runtime's wait budget, yielding to other ULTs of the worker), then parks
// its ULT (a plain thread blocks).

#include <atomic>
#include <cstdint>

namespace weft::omp {

class WordLock {
 public:
  // The lock living in `word` (4 bytes, 4-aligned, zero = unlocked).
  static WordLock& at(void* word) noexcept { return *static_cast<WordLock*>(word); }

  void lock() {
    std::uint32_t expected = 0;
    if (!state_.compare_exchange_strong(expected, 1, std::memory_order_acquire, std::memory_order_relaxed))
      lock_slow();
  }
  bool try_lock() noexcept {
    std::uint32_t expected = 0;
    return state_.compare_exchange_strong(expected, 1, std::memory_order_acquire, std::memory_order_relaxed);
  }
  void unlock() {
    if (state_.exchange(0, std::memory_order_release) == 2) wake_one();
  }
  void reset() noexcept { state_.store(0, std::memory_order_relaxed); }

 private:
  void lock_slow();
  void wake_one();
  std::atomic<std::uint32_t> state_;
};
static_assert(sizeof(WordLock) == 4 && alignof(WordLock) == 4);

}  // namespace weft::omp
