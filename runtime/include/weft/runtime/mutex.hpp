#pragma once
// Mutex: a ULT-aware lock meeting the standard Lockable requirements, so
// std::lock_guard / std::unique_lock / std::scoped_lock work with it. A
// contended lock() spins briefly, then parks the ULT (its worker runs other
// ULTs); from a plain thread it blocks the thread. Not recursive.

#include <atomic>
#include <cstdint>

#include "weft/runtime/detail/wait_queue.hpp"

namespace weft {

class Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

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

 private:
  void lock_slow();
  void wake_one();
  std::atomic<std::uint32_t> state_{0};  // 0 free, 1 held, 2 held and maybe waiters
  detail::WaitQueue waiters_;
};

}  // namespace weft
