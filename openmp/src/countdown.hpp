#pragma once
// Countdown: a count of unfinished things (child tasks, a taskgroup's tasks,
// the members of a team) whose owner waits for it to reach zero (internal;
// the wait is wait_for() in wait.hpp). arrive() touches nothing of the
// Countdown after its decrement (the parking lot is keyed by address only),
// so the owner may free it as soon as it sees zero.

#include <atomic>
#include <cstdint>

#include "parking_lot.hpp"

namespace weft::omp {

class Countdown {
 public:
  void add(std::int64_t n = 1) noexcept { count_.fetch_add(n, std::memory_order_relaxed); }
  void arrive() {
    if (count_.fetch_sub(1, std::memory_order_acq_rel) == 1) unpark_all(&count_);
  }
  bool done() const noexcept { return count_.load(std::memory_order_acquire) == 0; }
  std::int64_t pending() const noexcept { return count_.load(std::memory_order_relaxed); }
  void reset(std::int64_t n) noexcept { count_.store(n, std::memory_order_relaxed); }
  const void* key() const noexcept { return &count_; }

 private:
  std::atomic<std::int64_t> count_{0};
};

}  // namespace weft::omp
