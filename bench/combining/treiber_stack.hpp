// Treiber's lock-free stack (R. K. Treiber, "Systems Programming: Coping with
// Parallelism", IBM Almaden RJ 5118, 1986): a singly linked list whose Top is
// swung with CAS by push and pop. The ABA problem of pop (Top changes to
// another node and back between the read of Top->next and the CAS) is
// prevented as in the Michael-Scott queue: Top is a counted pointer
// <index, count> and nodes are type-stable (node_pool.hpp). Fixed capacity:
// push returns false when the pool is exhausted.
#pragma once

#include <atomic>
#include <cstdint>

#include "node_pool.hpp"

namespace weft::bench::combining {

class TreiberStack {
  struct Node {
    std::atomic<std::uint32_t> next{Tagged::kNil};
    std::atomic<std::uint64_t> value{0};
    std::atomic<std::uint32_t> pool_next{Tagged::kNil};
  };

 public:
  explicit TreiberStack(std::size_t capacity) : pool_(capacity + 1024) {}

  bool push(std::uint64_t v) noexcept {
    const std::uint32_t node = pool_.alloc();
    if (node == Tagged::kNil) return false;
    pool_[node].value.store(v, std::memory_order_relaxed);
    std::uint64_t top = top_.load(std::memory_order_relaxed);
    for (;;) {
      pool_[node].next.store(Tagged::idx(top), std::memory_order_relaxed);
      if (top_.compare_exchange_weak(top, Tagged::pack(node, Tagged::tag(top) + 1), std::memory_order_acq_rel,
                                     std::memory_order_relaxed))
        return true;
    }
  }

  bool pop(std::uint64_t& out) noexcept {
    std::uint64_t top = top_.load(std::memory_order_acquire);
    for (;;) {
      const std::uint32_t i = Tagged::idx(top);
      if (i == Tagged::kNil) return false;
      const std::uint32_t next = pool_[i].next.load(std::memory_order_relaxed);  // may be stale: the CAS decides
      if (top_.compare_exchange_weak(top, Tagged::pack(next, Tagged::tag(top) + 1), std::memory_order_acq_rel,
                                     std::memory_order_acquire)) {
        out = pool_[i].value.load(std::memory_order_relaxed);  // ours now
        pool_.free(i);
        return true;
      }
    }
  }

 private:
  NodePool<Node> pool_;
  alignas(64) std::atomic<std::uint64_t> top_{Tagged::pack(Tagged::kNil, 0)};
};

}  // namespace weft::bench::combining
