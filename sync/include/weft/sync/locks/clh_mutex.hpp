#pragma once
// ClhMutex: the CLH queue lock (Craig 1993; Magnusson, Landin & Hagersten
// 1994; thesis Table 2.1) in Lockable form, waiting with spin-then-park. The
// algorithm is the one of weft/sync/clh_lock.hpp (which the combining
// baselines use with a per-caller handle and a pure spin policy): a caller
// swaps its node into the tail and waits on its predecessor's node; unlock
// marks the caller's own node released, and the successor then owns the
// predecessor's node. FIFO; the queue is implicit. Nodes come from a
// per-thread cache (detail/lock_queue_node.hpp).
//
// try_lock succeeds only when the tail node is released; in the rare case
// that this node was recycled and re-queued between its check and its swap
// (ABA), try_lock waits for it like lock() would (never breaks exclusion).

#include <atomic>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/lock_errors.hpp"
#include "weft/sync/detail/lock_queue_node.hpp"

namespace weft::sync {

class ClhMutex {
  using Node = detail::LockQueueNode;

 public:
  ClhMutex() {
    Node* n = detail::take_lock_queue_node();
    n->flag.set();  // released: the first caller does not wait
    tail_.store(n, std::memory_order_relaxed);
  }
  ~ClhMutex() { detail::give_lock_queue_node(tail_.load(std::memory_order_relaxed)); }
  ClhMutex(const ClhMutex&) = delete;
  ClhMutex& operator=(const ClhMutex&) = delete;

  void lock() {
    Node* me = detail::take_lock_queue_node();
    Node* pred = tail_.exchange(me, std::memory_order_acq_rel);
    pred->flag.wait();
    detail::give_lock_queue_node(pred);  // no one else references it now
    holder_ = me;
  }
  bool try_lock() {
    Node* pred = tail_.load(std::memory_order_acquire);
    if (!pred->flag.is_set()) return false;
    Node* me = detail::take_lock_queue_node();
    if (!tail_.compare_exchange_strong(pred, me, std::memory_order_acq_rel, std::memory_order_relaxed)) {
      detail::give_lock_queue_node(me);
      return false;
    }
    pred->flag.wait();  // set, unless recycled meanwhile (see above)
    detail::give_lock_queue_node(pred);
    holder_ = me;
    return true;
  }
  // Throws std::logic_error if the lock was not held.
  void unlock() {
    Node* me = holder_;
    if (me == nullptr) detail::throw_not_held("ClhMutex");
    holder_ = nullptr;
    me->flag.set();  // the successor (or the next caller) owns `me` from here
  }

 private:
  alignas(cache_line_size) std::atomic<Node*> tail_{nullptr};
  alignas(cache_line_size) Node* holder_ = nullptr;  // written and read by the holder
};

}  // namespace weft::sync
