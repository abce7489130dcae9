#pragma once
// Semaphore: a counting semaphore (like std::counting_semaphore) whose
// acquire() parks the ULT while no permit is available.

#include <atomic>
#include <cstdint>

#include "weft/runtime/detail/wait_queue.hpp"

namespace weft {

class Semaphore {
 public:
  explicit Semaphore(std::int64_t initial = 0) : count_(initial) {}
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;

  void acquire() {
    if (!try_acquire()) acquire_slow();
  }
  bool try_acquire() noexcept {
    std::int64_t c = count_.load(std::memory_order_relaxed);
    while (c > 0)
      if (count_.compare_exchange_weak(c, c - 1, std::memory_order_acquire, std::memory_order_relaxed))
        return true;
    return false;
  }
  // Adds `n` permits; each wakes one waiter if there is one (hand-off).
  void release(std::int64_t n = 1);

 private:
  void acquire_slow();
  std::atomic<std::int64_t> count_;
  detail::WaitQueue waiters_;
};

}  // namespace weft
