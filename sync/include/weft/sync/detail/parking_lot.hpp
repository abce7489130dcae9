#pragma once
// ParkingLot: where the waiters of a lock park once their spin budget is
// spent (detail/spin_then_park.hpp), for locks whose waiters do not each have
// a node a releaser could wake directly (TAS, TTAS, ticket, the array lock,
// MUTEXEE, the reader side of the reader-writer locks, QD's try_lock_or_wait).
// A releaser wakes one waiter, the waiter queued under a given key (a ticket)
// or all of them; a count lets it see in one load that nobody is parked.
//
// The queue is the runtime's WaitQueue (a spinlock-protected FIFO of
// waiters on their stacks). Ordering contract (a Dekker handshake, no lost
// wake-ups): the releaser makes the waiters' condition false with a seq_cst
// store or RMW and then calls has_parked() (a seq_cst load); the waiter's
// `blocked()` reads the condition with seq_cst loads. Either the waiter sees
// the condition false after it counted itself in, or the releaser sees the
// count and wakes it.

#include <atomic>
#include <chrono>
#include <cstdint>

#include "weft/runtime/detail/wait_queue.hpp"
#include "weft/runtime/trace.hpp"
#include "weft/sync/cpu.hpp"

namespace weft::sync::detail {

class ParkingLot {
  using WaitQueue = weft::detail::WaitQueue;

 public:
  ParkingLot() = default;
  ParkingLot(const ParkingLot&) = delete;
  ParkingLot& operator=(const ParkingLot&) = delete;

  // Queues the caller under `key`, then parks it unless blocked() is false by
  // then. Returns when woken (the caller re-checks its condition) or at once
  // if blocked() was false.
  template <class Blocked>
  void park_while(Blocked&& blocked, std::uint64_t key = 0) {
    WaitQueue::Waiter me;
    me.tag = key;
    if (!enqueue_unless_free(me, blocked)) return;
    trace::Scope parked(label("parked wait"));  // a slice in a trace
    WaitQueue::wait(me);
  }

  // park_while() that gives up at `deadline`: false if it timed out (the
  // caller is no longer queued).
  template <class Blocked>
  bool park_while_until(Blocked&& blocked, std::chrono::steady_clock::time_point deadline, std::uint64_t key = 0) {
    WaitQueue::Waiter me;
    me.tag = key;
    if (!enqueue_unless_free(me, blocked)) return true;
    trace::Scope parked(label("parked wait"));
    if (WaitQueue::wait_until(q_, me, deadline)) return true;
    parked_.fetch_sub(1, std::memory_order_relaxed);  // wait_until took `me` out of the queue
    return false;
  }

  // True if a waiter is (or is about to be) parked. seq_cst: see above.
  bool has_parked() const noexcept { return parked_.load(std::memory_order_seq_cst) != 0; }

  // Wakes the longest-parked waiter; false if none was parked.
  bool unpark_one() {
    q_.lock();
    WaitQueue::Waiter* w = q_.pop();
    if (w) parked_.fetch_sub(1, std::memory_order_relaxed);
    q_.unlock();
    if (!w) return false;
    WaitQueue::signal(w);
    return true;
  }

  // Wakes the first waiter queued under `key`; false if there is none.
  bool unpark_key(std::uint64_t key) {
    q_.lock();
    WaitQueue::Waiter* list = q_.pop_all();
    WaitQueue::Waiter* found = nullptr;
    while (list) {
      WaitQueue::Waiter* next = list->next;
      if (!found && list->tag == key)
        found = list;
      else
        q_.push(list);
      list = next;
    }
    if (found) parked_.fetch_sub(1, std::memory_order_relaxed);
    q_.unlock();
    if (!found) return false;
    WaitQueue::signal(found);
    return true;
  }

  // Wakes every parked waiter.
  void unpark_all() {
    q_.lock();
    WaitQueue::Waiter* list = q_.pop_all();
    std::uint32_t n = 0;
    for (WaitQueue::Waiter* w = list; w; w = w->next) ++n;
    parked_.fetch_sub(n, std::memory_order_relaxed);
    q_.unlock();
    WaitQueue::signal_all(list);
  }

 private:
  template <class Blocked>
  bool enqueue_unless_free(WaitQueue::Waiter& me, Blocked& blocked) {
    q_.lock();
    q_.push(&me);
    parked_.fetch_add(1, std::memory_order_seq_cst);
    if (!blocked()) {
      q_.remove(&me);
      parked_.fetch_sub(1, std::memory_order_relaxed);
      q_.unlock();
      return false;
    }
    q_.unlock();
    return true;
  }

  WaitQueue q_;
  alignas(cache_line_size) std::atomic<std::uint32_t> parked_{0};
};

}  // namespace weft::sync::detail
