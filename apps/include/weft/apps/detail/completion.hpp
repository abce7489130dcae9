#pragma once
// Completion: the caller of a parallel construct waits here for its helpers
// (internal). A countdown like weft::Latch, cheaper on the path that matters:
// a helper's arrival is one fetch_sub on one word (a Latch's last arrival
// also takes and releases its waiter lock, two more transfers of a line the
// waiting caller is reading), and a caller that sees the count reach zero
// while spinning returns at once.
//
// One word holds (pending << 1) | parked. The caller spins for the runtime's
// idle spin; then it publishes its waiter and sets `parked` with a CAS that
// only succeeds while helpers are pending. The helper whose arrival takes
// the count to zero sees `parked` and signals the waiter (WaitQueue::signal
// keeps the caller's ULT alive while it does). A helper that does not see
// `parked` touches nothing after its fetch_sub, so the caller may return,
// and destroy the Completion, as soon as it reads zero.

#include <atomic>
#include <cstdint>

#include "weft/apps/detail/spin_wait.hpp"
#include "weft/runtime/detail/wait_queue.hpp"

namespace weft::detail {

class Completion {
 public:
  explicit Completion(std::int64_t pending) : state_(static_cast<std::uint64_t>(pending) << 1) {}
  Completion(const Completion&) = delete;
  Completion& operator=(const Completion&) = delete;

  // One helper is done (or was retired by the caller).
  void arrive() {
    if (state_.fetch_sub(2, std::memory_order_acq_rel) == 3) WaitQueue::signal(waiter_);
  }

  bool done() const { return (state_.load(std::memory_order_acquire) >> 1) == 0; }

  // Spins for spin_ns, then parks until every helper has arrived.
  void wait(std::int64_t spin_ns) {
    if (spin_until([&] { return done(); }, spin_ns)) return;
    WaitQueue::Waiter me;
    waiter_ = &me;
    std::uint64_t s = state_.load(std::memory_order_acquire);
    while (s >> 1) {
      if (state_.compare_exchange_weak(s, s | 1, std::memory_order_release, std::memory_order_acquire)) {
        WaitQueue::wait(me);
        // An acquire load of the last arrival's value, not a fence:
        // ThreadSanitizer does not see fences (it reported the helpers'
        // writes racing with the caller's next use of the same memory).
        (void)state_.load(std::memory_order_acquire);
        return;
      }
    }
  }

 private:
  std::atomic<std::uint64_t> state_;
  WaitQueue::Waiter* waiter_ = nullptr;
};

}  // namespace weft::detail
