#pragma once
// Spin-then-park waiting for one event: the waiting helper of weft/sync's
// locks, of QD's delegate_wait and of the channels. A waiter spins for the
// caller's budget (WaitBudget: a ULT about two cache-line transfers, a plain
// thread about one futex turnaround), then parks: a ULT leaves its worker to
// the other ULTs, a plain thread sleeps (weft::park(): futex). The party that
// ends the wait wakes it only if it parked, so a handoff between running
// waiters costs no system call and no scheduler work.
//
// Stable API (other sync components build on it):
//
//   spin_until(ready, spins)  spin (a ULT yields once first, and then up to
//                             ult_yields times) until ready()
//   spin_briefly(ready)       spin_until with the caller's budget
//   ParkingFlag               one waiter, one setter: wait() / wait_until()
//                             on one side, set() on the other, reset() to
//                             reuse it
//
// Lifetime: the waiter may destroy a ParkingFlag as soon as its wait returns;
// set() touches the flag only until its waiter can see it set (a parked
// waiter's ULT is kept alive by a reference for the unpark that follows).

#include <atomic>
#include <chrono>
#include <cstdint>

#include "weft/runtime/detail/task.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/runtime/trace.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/locks/wait_budget.hpp"

namespace weft::sync::detail {

// Spins until ready() or `spins` further checks failed; true if ready. Inside
// a ULT it yields once first, so the other ULTs of its worker (one of them may
// be the one it waits for) run before it burns its core, and after the spins
// it yields up to WaitBudget::ult_yields more times before giving up (a
// parked ULT on a worker that then sleeps costs a worker wake-up to resume).
template <class Ready>
bool spin_until(Ready&& ready, std::uint32_t spins) {
  if (ready()) return true;
  const bool in_ult = weft::this_ult::worker_index() >= 0;
  if (in_ult) {
    weft::this_ult::yield();
    if (ready()) return true;
  }
  for (std::uint32_t i = 0; i < spins; ++i) {
    cpu_relax();
    if (ready()) return true;
  }
  if (in_ult) {
    for (std::uint32_t i = wait_budget().ult_yields; i > 0; --i) {
      weft::this_ult::yield();
      if (ready()) return true;
    }
  }
  return false;
}

// spin_until with the caller's budget (WaitBudget::spins_for_caller).
template <class Ready>
bool spin_briefly(Ready&& ready) {
  return spin_until(ready, wait_budget().spins_for_caller());
}

// A one-shot event with one waiter and one setter. States:
//   clear   not set; the waiter (if any) is spinning
//   parked  the waiter parked; parked_ says who it is
//   waking  the setter claimed a parked waiter (a timed-out waiter can no
//           longer withdraw)
//   set     the event happened
class ParkingFlag {
 public:
  ParkingFlag() noexcept = default;
  explicit ParkingFlag(bool set) noexcept : state_(set ? kSet : kClear) {}
  ParkingFlag(const ParkingFlag&) = delete;
  ParkingFlag& operator=(const ParkingFlag&) = delete;

  bool is_set() const noexcept { return state_.load(std::memory_order_acquire) == kSet; }

  // Back to "not set", for reuse; only when no one waits on it or sets it.
  void reset() noexcept { state_.store(kClear, std::memory_order_relaxed); }

  // Waiter side: returns once set() was called (acquire: what the setter
  // wrote before set() is visible). Spins for `spins`, then parks.
  void wait(std::uint32_t spins) {
    if (spin_until([&] { return is_set(); }, spins)) return;
    if (!publish_parked()) return;
    trace::Scope parked(label("parked wait"));  // a slice in a trace: the wait outlasted the spin budget
    while (state_.load(std::memory_order_acquire) != kSet) weft::park();
  }
  void wait() { wait(wait_budget().spins_for_caller()); }

  // wait() that gives up at `deadline`: false if the flag was not set by
  // then (the waiter has withdrawn; a later set() just sets it).
  bool wait_until(std::chrono::steady_clock::time_point deadline) {
    if (spin_briefly([&] { return is_set(); })) return true;
    if (!publish_parked()) return true;
    trace::Scope parked(label("parked wait"));
    for (;;) {
      if (state_.load(std::memory_order_acquire) == kSet) return true;
      if (!weft::park_until(deadline)) {
        std::uint32_t s = kParked;
        if (state_.compare_exchange_strong(s, kClear, std::memory_order_acq_rel)) return false;
        // A setter claimed us: it stores kSet next.
        while (state_.load(std::memory_order_acquire) != kSet) weft::park();
        return true;
      }
    }
  }

  // Setter side: sets the flag (release) and wakes the waiter if it parked.
  // At most one set() per reset().
  void set() {
    std::uint32_t s = kClear;
    for (;;) {
      if (s == kClear) {  // the waiter spins, or has not come yet
        if (state_.compare_exchange_weak(s, kSet, std::memory_order_acq_rel)) return;
      } else if (s == kParked) {
        if (state_.compare_exchange_weak(s, kWaking, std::memory_order_acq_rel)) break;
      } else {
        return;  // kSet or kWaking: set before (a second set() does nothing)
      }
    }
    // The waiter is parked and cannot leave until it sees kSet, so its task
    // is alive here; the reference keeps it alive for the unpark after the
    // store (which may let the waiter return and finish).
    weft::detail::TaskBase* t = parked_;
    weft::detail::retain(t);
    state_.store(kSet, std::memory_order_release);
    weft::unpark(weft::UltRef(t));
    weft::detail::release(t, 1);
  }

 private:
  static constexpr std::uint32_t kClear = 0, kParked = 1, kWaking = 2, kSet = 3;

  // clear -> parked with the caller recorded; false if it was set meanwhile.
  bool publish_parked() {
    parked_ = weft::detail::current_task();
    std::uint32_t s = kClear;
    return state_.compare_exchange_strong(s, kParked, std::memory_order_acq_rel);
  }

  std::atomic<std::uint32_t> state_{kClear};
  weft::detail::TaskBase* parked_ = nullptr;  // written by the waiter before it publishes kParked
};

}  // namespace weft::sync::detail
