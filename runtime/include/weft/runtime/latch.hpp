#pragma once
// Latch: a single-use countdown (like std::latch); wait() parks the ULT until
// the count reaches zero.

#include <atomic>
#include <cstdint>

#include "weft/runtime/detail/wait_queue.hpp"

namespace weft {

class Latch {
 public:
  explicit Latch(std::int64_t count) : count_(count) {}
  Latch(const Latch&) = delete;
  Latch& operator=(const Latch&) = delete;

  void count_down(std::int64_t n = 1);
  bool try_wait() const noexcept { return count_.load(std::memory_order_acquire) == 0; }
  void wait();
  void arrive_and_wait(std::int64_t n = 1) {
    count_down(n);
    wait();
  }

 private:
  std::atomic<std::int64_t> count_;
  detail::WaitQueue waiters_;
};

}  // namespace weft
