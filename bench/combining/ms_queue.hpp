// The Michael & Scott lock-free queue: M. M. Michael and M. L. Scott,
// "Simple, Fast, and Practical Non-Blocking and Blocking Concurrent Queue
// Algorithms", PODC 1996, Figure 1 (the non-blocking queue). A singly linked
// list with a dummy head node; Head and Tail are counted pointers, the
// enqueuer links its node at the end with a CAS on the last node's next and
// then swings Tail (any thread that sees Tail lagging helps), the dequeuer
// swings Head to the next node and reads the value from it.
//
// Memory: as the paper, nodes come from a free list and are never given back
// to the allocator (type-stable, node_pool.hpp), and every shared link is a
// counted pointer <index, count> updated with CAS, so a node recycled between
// a thread's read and its CAS makes that CAS fail (ABA). One deviation: when a
// node is (re)initialized its next count is incremented rather than kept
// (the paper keeps it); more increments only make CASes stricter. Fixed
// capacity: enqueue returns false when the pool is exhausted.
#pragma once

#include <atomic>
#include <cstdint>

#include "node_pool.hpp"

namespace weft::bench::combining {

class MsQueue {
  struct Node {
    std::atomic<std::uint64_t> next{Tagged::pack(Tagged::kNil, 0)};  // counted pointer
    std::atomic<std::uint64_t> value{0};  // atomic: a stale reader may race with a recycler
    std::atomic<std::uint32_t> pool_next{Tagged::kNil};
  };

 public:
  // `capacity` items at most (plus the dummy and one node per in-flight op).
  explicit MsQueue(std::size_t capacity) : pool_(capacity + 1024) {
    const std::uint32_t dummy = pool_.alloc();  // E1-E3 of initialize(): a dummy node
    init(dummy);
    head_.store(Tagged::pack(dummy, 0), std::memory_order_relaxed);
    tail_.store(Tagged::pack(dummy, 0), std::memory_order_relaxed);
  }

  bool enqueue(std::uint64_t v) noexcept {
    const std::uint32_t node = pool_.alloc();  // E1
    if (node == Tagged::kNil) return false;
    pool_[node].value.store(v, std::memory_order_relaxed);  // E2
    init(node);                                             // E3
    std::uint64_t tail;
    for (;;) {                                                                     // E4
      tail = tail_.load(std::memory_order_acquire);                                // E5
      std::uint64_t next = pool_[Tagged::idx(tail)].next.load(std::memory_order_acquire);  // E6
      if (tail != tail_.load(std::memory_order_acquire)) continue;                 // E7
      if (Tagged::idx(next) == Tagged::kNil) {                                     // E8
        if (pool_[Tagged::idx(tail)].next.compare_exchange_weak(                   // E9
                next, Tagged::pack(node, Tagged::tag(next) + 1), std::memory_order_acq_rel,
                std::memory_order_relaxed))
          break;  // E10
      } else {    // E12-E13: Tail lags, swing it
        tail_.compare_exchange_weak(tail, Tagged::pack(Tagged::idx(next), Tagged::tag(tail) + 1),
                                    std::memory_order_acq_rel, std::memory_order_relaxed);
      }
    }
    // E17: swing Tail to the inserted node (may fail: someone helped).
    tail_.compare_exchange_strong(tail, Tagged::pack(node, Tagged::tag(tail) + 1), std::memory_order_acq_rel,
                                  std::memory_order_relaxed);
    return true;
  }

  bool dequeue(std::uint64_t& out) noexcept {
    std::uint64_t head;
    std::uint64_t value;
    for (;;) {                                                                     // D1
      head = head_.load(std::memory_order_acquire);                                // D2
      const std::uint64_t tail = tail_.load(std::memory_order_acquire);            // D3
      const std::uint64_t next = pool_[Tagged::idx(head)].next.load(std::memory_order_acquire);  // D4
      if (head != head_.load(std::memory_order_acquire)) continue;                 // D5
      if (Tagged::idx(head) == Tagged::idx(tail)) {                                // D6
        if (Tagged::idx(next) == Tagged::kNil) return false;                       // D7-D8: empty
        std::uint64_t t = tail;                                                    // D9-D10: Tail lags
        tail_.compare_exchange_weak(t, Tagged::pack(Tagged::idx(next), Tagged::tag(tail) + 1),
                                    std::memory_order_acq_rel, std::memory_order_relaxed);
      } else {
        // D12: read the value before the CAS: afterwards another dequeuer may
        // free the node.
        value = pool_[Tagged::idx(next)].value.load(std::memory_order_relaxed);
        if (head_.compare_exchange_weak(head, Tagged::pack(Tagged::idx(next), Tagged::tag(head) + 1),
                                        std::memory_order_acq_rel, std::memory_order_relaxed))  // D13
          break;  // D14
      }
    }
    pool_.free(Tagged::idx(head));  // D19: the old dummy
    out = value;
    return true;
  }

 private:
  void init(std::uint32_t node) noexcept {  // next.ptr = NULL (count bumped)
    auto& n = pool_[node].next;
    n.store(Tagged::pack(Tagged::kNil, Tagged::tag(n.load(std::memory_order_relaxed)) + 1),
            std::memory_order_relaxed);
  }

  NodePool<Node> pool_;
  alignas(64) std::atomic<std::uint64_t> head_;
  alignas(64) std::atomic<std::uint64_t> tail_;
};

}  // namespace weft::bench::combining
