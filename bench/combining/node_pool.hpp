// A type-stable node pool with tagged indices, for the lock-free baselines
// (ms_queue.hpp, treiber_stack.hpp). Nodes live in one array for the pool's
// whole lifetime and are never returned to the allocator, so a thread may
// still read a node that another thread freed and reused (it reads a stale
// but valid object and its CAS then fails). References to nodes are 32-bit
// indices packed with a 32-bit modification counter into one 64-bit word
// (the "counted pointers" of Michael & Scott, PODC'96, §2, at a width every
// x86-64 CAS handles), which prevents the ABA problem as long as a thread is
// not delayed across 2^32 modifications of one word.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>

namespace weft::bench::combining {

// {index, tag} packed in a word.
struct Tagged {
  static constexpr std::uint32_t kNil = 0xFFFFFFFFu;
  static constexpr std::uint64_t pack(std::uint32_t idx, std::uint32_t tag) noexcept {
    return (static_cast<std::uint64_t>(tag) << 32) | idx;
  }
  static constexpr std::uint32_t idx(std::uint64_t w) noexcept { return static_cast<std::uint32_t>(w); }
  static constexpr std::uint32_t tag(std::uint64_t w) noexcept { return static_cast<std::uint32_t>(w >> 32); }
};

// Node needs a member `std::atomic<std::uint32_t> pool_next` (the free list's
// link, kept apart from the structure's own links).
template <class Node>
class NodePool {
 public:
  explicit NodePool(std::size_t capacity) : cap_(capacity), nodes_(std::make_unique<Node[]>(capacity)) {
    if (capacity == 0 || capacity >= Tagged::kNil) throw std::invalid_argument("NodePool capacity");
    for (std::size_t i = 0; i < capacity; ++i)
      nodes_[i].pool_next.store(i + 1 < capacity ? static_cast<std::uint32_t>(i + 1) : Tagged::kNil,
                                std::memory_order_relaxed);
    free_.store(Tagged::pack(0, 0), std::memory_order_relaxed);
  }
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;

  Node& operator[](std::uint32_t i) noexcept { return nodes_[i]; }

  // A free node's index, or kNil when the pool is exhausted. Treiber pop.
  std::uint32_t alloc() noexcept {
    std::uint64_t top = free_.load(std::memory_order_acquire);
    for (;;) {
      const std::uint32_t i = Tagged::idx(top);
      if (i == Tagged::kNil) return Tagged::kNil;
      const std::uint32_t next = nodes_[i].pool_next.load(std::memory_order_relaxed);  // may be stale: the CAS decides
      if (free_.compare_exchange_weak(top, Tagged::pack(next, Tagged::tag(top) + 1), std::memory_order_acq_rel,
                                      std::memory_order_acquire))
        return i;
    }
  }

  // Gives node i back. Treiber push.
  void free(std::uint32_t i) noexcept {
    std::uint64_t top = free_.load(std::memory_order_relaxed);
    for (;;) {
      nodes_[i].pool_next.store(Tagged::idx(top), std::memory_order_relaxed);
      if (free_.compare_exchange_weak(top, Tagged::pack(i, Tagged::tag(top) + 1), std::memory_order_acq_rel,
                                      std::memory_order_relaxed))
        return;
    }
  }

  std::size_t capacity() const noexcept { return cap_; }

 private:
  std::size_t cap_;
  std::unique_ptr<Node[]> nodes_;
  alignas(64) std::atomic<std::uint64_t> free_;
};

}  // namespace weft::bench::combining
