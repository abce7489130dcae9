#pragma once
// Barrier: a reusable barrier for a fixed number of participants (like
// std::barrier with an optional completion function run by the last to
// arrive). Waiters spin briefly, then park.

#include <atomic>
#include <cstdint>
#include <functional>

#include "weft/runtime/detail/wait_queue.hpp"

namespace weft {

class Barrier {
 public:
  explicit Barrier(std::int64_t participants, std::function<void()> on_completion = {});
  Barrier(const Barrier&) = delete;
  Barrier& operator=(const Barrier&) = delete;

  // Arrives and waits for the rest of this phase; returns the phase number it completed.
  std::uint64_t arrive_and_wait();
  // Arrives and leaves: later phases need one participant fewer.
  void arrive_and_drop();

 private:
  bool arrive_locked(bool drop);  // true if this arrival completed the phase
  std::int64_t expected_;
  std::int64_t remaining_;
  std::atomic<std::uint64_t> phase_{0};
  std::function<void()> on_completion_;
  detail::WaitQueue waiters_;
};

}  // namespace weft
