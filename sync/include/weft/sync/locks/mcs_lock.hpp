#pragma once
// McsLock: the MCS queue lock (Mellor-Crummey & Scott 1991; thesis Table
// 2.1): a caller swaps its node onto the tail, links it behind its
// predecessor and waits on its own node; unlock hands the lock to the
// successor's node, or swings the tail back to empty. FIFO, one remote write
// per handoff. Lockable form: lock() takes a node from a per-thread cache
// (detail/lock_queue_node.hpp), the holder's node is remembered in the lock.
// A waiter spins on its own node for its budget, then parks (ULT) or sleeps
// (thread); the releaser wakes it only if it parked (ParkingFlag).

#include <atomic>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/lock_errors.hpp"
#include "weft/sync/detail/lock_queue_node.hpp"
#include "weft/sync/detail/spin_then_park.hpp"

namespace weft::sync {

class McsLock {
  using Node = detail::LockQueueNode;

 public:
  McsLock() = default;
  McsLock(const McsLock&) = delete;
  McsLock& operator=(const McsLock&) = delete;

  void lock() {
    Node* me = detail::take_lock_queue_node();
    if (Node* pred = tail_.exchange(me, std::memory_order_acq_rel)) {
      pred->next.store(me, std::memory_order_release);
      me->flag.wait();
    }
    holder_ = me;
  }
  bool try_lock() {
    if (tail_.load(std::memory_order_relaxed) != nullptr) return false;
    Node* me = detail::take_lock_queue_node();
    Node* expected = nullptr;
    if (!tail_.compare_exchange_strong(expected, me, std::memory_order_acquire, std::memory_order_relaxed)) {
      detail::give_lock_queue_node(me);
      return false;
    }
    holder_ = me;
    return true;
  }
  // Throws std::logic_error if the lock was not held.
  void unlock() {
    Node* me = holder_;
    if (me == nullptr) detail::throw_not_held("McsLock");
    holder_ = nullptr;
    Node* succ = me->next.load(std::memory_order_acquire);
    if (succ == nullptr) {
      Node* expected = me;
      if (tail_.compare_exchange_strong(expected, nullptr, std::memory_order_release, std::memory_order_relaxed)) {
        detail::give_lock_queue_node(me);
        return;
      }
      // A successor swapped itself in and is about to link: a few
      // instructions, unless its thread was descheduled in between.
      detail::spin_briefly([&] { return (succ = me->next.load(std::memory_order_acquire)) != nullptr; });
      while ((succ = me->next.load(std::memory_order_acquire)) == nullptr) weft::this_ult::yield();
    }
    succ->flag.set();
    detail::give_lock_queue_node(me);
  }

  // True while callers other than the holder wait (a cohort lock's
  // "alone?" test); call while holding the lock.
  bool has_waiters() const noexcept {
    return holder_->next.load(std::memory_order_relaxed) != nullptr ||
           tail_.load(std::memory_order_relaxed) != holder_;
  }

 private:
  alignas(cache_line_size) std::atomic<Node*> tail_{nullptr};
  alignas(cache_line_size) Node* holder_ = nullptr;  // written and read by the holder
};

}  // namespace weft::sync
