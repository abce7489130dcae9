#include "word_lock.hpp"

#include "wait.hpp"

namespace weft::omp {

void WordLock::lock_slow() {
  auto acquired = [this] {
    std::uint32_t expected = 0;
    return state_.load(std::memory_order_relaxed) == 0 &&
           state_.compare_exchange_strong(expected, 1, std::memory_order_acquire, std::memory_order_relaxed);
  };
  if (spin_until(acquired, spin_ns())) return;
  ContextGuard keep;
  // Mark "maybe waited for" on every attempt: the unlock then wakes one waiter.
  while (state_.exchange(2, std::memory_order_acquire) != 0)
    park_while(this, [this] { return state_.load(std::memory_order_relaxed) == 2; });
}

void WordLock::wake_one() { unpark_one(this); }

}  // namespace weft::omp
