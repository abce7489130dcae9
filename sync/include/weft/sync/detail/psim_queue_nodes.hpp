#pragma once
// The nodes of PSimQueue's linked list and the pool that recycles them
// (psim_queue.hpp says why reuse is safe there).
//
// A node's `next` word is either a pointer to the next node or, while the
// node is the last of the list, an odd "unlinked" mark carrying the node's
// generation (how many times it was handed out). Linking first -> last is a
// CAS from first's unlinked mark of generation g, the generation recorded
// with `first` in the state that asks for the link; once the node has been
// recycled (generation g + 1) or linked, that CAS fails. Every field another
// thread may read while the node is reused is an atomic word.
//
// The pool: each handle slot keeps a private free list (no synchronization:
// one combiner per slot at a time); dequeue combiners put the nodes they
// retire on their own list, enqueue combiners take from theirs. Lists that
// grow beyond 2 x kBatch hand kBatch nodes to a shared exchange of K entries
// (a CAS into an empty entry; when all are full, the list keeps them and
// tries again kBatch nodes later); an empty list takes a whole batch back from it
// (an exchange of a full entry with null: no ABA, the taker owns what it
// got), and allocates a new block of kBatch nodes only when the exchange has
// none. Both scans are bounded (K entries), so taking and giving back never
// wait; only the allocation of a new block calls operator new. Blocks are
// freed with the pool.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/psim_engine.hpp"

namespace weft::sync::detail {

template <class T>
struct QueueNode {
  // A pointer to the next node, or unlinked(gen) while this one is the last.
  std::atomic<std::uintptr_t> next{0};
  psim::AWord value[psim::value_words<T> ? psim::value_words<T> : 1];
  // Held by the slot that holds the node (in its free list or its chain).
  std::uint64_t gen = 0;
  QueueNode* free_next = nullptr;

  static constexpr std::uintptr_t unlinked(std::uint64_t gen) noexcept {
    return static_cast<std::uintptr_t>(gen << 1) | 1u;
  }
  // The next node; nullptr while unlinked.
  QueueNode* next_node() const noexcept {
    const std::uintptr_t v = next.load(std::memory_order_acquire);
    return (v & 1u) ? nullptr : reinterpret_cast<QueueNode*>(v);
  }
  // Links `last` after `first`, unless first (of generation `gen`) was
  // already linked or has been recycled since.
  static void link(QueueNode* first, std::uint64_t gen, QueueNode* last) noexcept {
    if (first == nullptr) return;
    std::uintptr_t expected = unlinked(gen);
    if (first->next.load(std::memory_order_relaxed) != expected) return;  // the common case: no locked op
    first->next.compare_exchange_strong(expected, reinterpret_cast<std::uintptr_t>(last), std::memory_order_release,
                                        std::memory_order_relaxed);
  }
};

template <class Node>
class QueueNodePool {
 public:
  static constexpr std::size_t kBatch = 64;

  // `slots` private free lists; an exchange of 2 x slots + 8 batches.
  explicit QueueNodePool(std::size_t slots)
      : slots_(std::make_unique<SlotPool[]>(slots)),
        exchange_size_(2 * slots + 8),
        exchange_(std::make_unique<std::atomic<Node*>[]>(exchange_size_)) {}
  QueueNodePool(const QueueNodePool&) = delete;
  QueueNodePool& operator=(const QueueNodePool&) = delete;

  // A node nobody else references, for slot `slot`: its generation advanced
  // and its `next` unlinked.
  Node* take(std::size_t slot) {
    SlotPool& p = slots_[slot];
    if (p.free == nullptr) refill(p);
    Node* n = p.free;
    p.free = n->free_next;
    --p.count;
    ++n->gen;
    n->next.store(Node::unlinked(n->gen), std::memory_order_relaxed);
    return n;
  }

  // Gives back a node that slot `slot` took or retired and nobody will
  // dereference again (stale readers only read it, see psim_queue.hpp).
  void put(std::size_t slot, Node* n) {
    SlotPool& p = slots_[slot];
    n->free_next = p.free;
    p.free = n;
    if (++p.count >= p.spill_at) spill(p);
  }

  // Nodes ever allocated (the pool's memory, in nodes).
  std::size_t allocated() const noexcept { return allocated_.load(std::memory_order_relaxed); }

 private:
  struct alignas(cache_line_size) SlotPool {
    Node* free = nullptr;  // private free list (free_next)
    std::size_t count = 0;
    std::size_t spill_at = 2 * kBatch;  // hand a batch to the exchange at this count
    std::size_t cursor = 0;             // where the next exchange scan starts
    std::vector<std::unique_ptr<Node[]>> blocks;
  };

  void refill(SlotPool& p) {
    for (std::size_t i = 0; i < exchange_size_; ++i) {
      std::atomic<Node*>& e = exchange_[(p.cursor + i) % exchange_size_];
      if (e.load(std::memory_order_relaxed) == nullptr) continue;
      if (Node* batch = e.exchange(nullptr, std::memory_order_acquire)) {
        p.cursor = (p.cursor + i + 1) % exchange_size_;
        p.free = batch;
        p.count = kBatch;
        return;
      }
    }
    p.blocks.push_back(std::make_unique<Node[]>(kBatch));
    Node* block = p.blocks.back().get();
    for (std::size_t i = 0; i + 1 < kBatch; ++i) block[i].free_next = &block[i + 1];
    block[kBatch - 1].free_next = nullptr;
    p.free = block;
    p.count = kBatch;
    allocated_.fetch_add(kBatch, std::memory_order_relaxed);
  }

  // Moves kBatch nodes of p's list to an empty exchange entry, if any.
  void spill(SlotPool& p) {
    Node* first = p.free;
    Node* last = first;
    for (std::size_t i = 1; i < kBatch; ++i) last = last->free_next;
    Node* rest = last->free_next;
    last->free_next = nullptr;
    for (std::size_t i = 0; i < exchange_size_; ++i) {
      std::atomic<Node*>& e = exchange_[(p.cursor + i) % exchange_size_];
      Node* expected = nullptr;
      if (e.load(std::memory_order_relaxed) == nullptr &&
          e.compare_exchange_strong(expected, first, std::memory_order_release, std::memory_order_relaxed)) {
        p.free = rest;
        p.count -= kBatch;
        p.spill_at = 2 * kBatch;
        return;
      }
    }
    last->free_next = rest;  // the exchange is full: keep them, try again kBatch puts later
    p.spill_at = p.count + kBatch;
  }

  std::unique_ptr<SlotPool[]> slots_;
  const std::size_t exchange_size_;
  std::unique_ptr<std::atomic<Node*>[]> exchange_;  // each entry: null or a chain of kBatch nodes
  std::atomic<std::size_t> allocated_{0};
};

}  // namespace weft::sync::detail
