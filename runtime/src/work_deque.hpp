#pragma once
// Chase–Lev work-stealing deque of unstarted ULTs (Lê, Pop, Cohen, Zappa
// Nardelli, "Correct and Efficient Work-Stealing for Weak Memory Models",
// PPoPP'13). The owner pushes and pops at the bottom; the owner and thieves
// take the oldest entry at the top. Each slot also carries the entry's ticket
// (its place in the worker's FIFO order), readable without touching the task.
// The slot arrays live on the owner's NUMA node (NodeMemoryCache).

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "task.hpp"
#include "node_memory_cache.hpp"
#include "weft/sched/cpu.hpp"

namespace weft::detail {

class WorkDeque {
 public:
  struct Entry {
    Task* task = nullptr;
    std::uint32_t ticket = 0;
  };

  // capacity: a power of two; os_node: where the arrays live (-1: anywhere).
  explicit WorkDeque(std::size_t capacity = 1024, int os_node = -1) : os_node_(os_node) {
    Array* a = Array::make(capacity, os_node_);
    array_.store(a, std::memory_order_relaxed);
    arrays_.emplace_back(a);
  }

  // Owner only.
  void push(Task* t, std::uint32_t ticket) {
    std::int64_t b = bottom_.load(std::memory_order_relaxed);
    std::int64_t top = top_.load(std::memory_order_acquire);
    Array* a = array_.load(std::memory_order_relaxed);
    if (b - top > static_cast<std::int64_t>(a->mask)) a = grow(a, top, b);
    a->put(b, t, ticket);
    bottom_.store(b + 1, std::memory_order_release);
  }

  // Owner only: the newest entry, or null.
  Task* pop() { return pop_entry().task; }

  // Owner only: the newest entry with its ticket ({null, 0} if empty).
  Entry pop_entry() {
    std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    Array* a = array_.load(std::memory_order_relaxed);
    // The paper's "store bottom; seq_cst fence; load top" as one seq_cst
    // exchange and a seq_cst load (xchg + mov on x86: cheaper than mfence).
    bottom_.exchange(b, std::memory_order_seq_cst);
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    if (t > b) {
      bottom_.store(b + 1, std::memory_order_relaxed);
      return {};
    }
    Entry x{a->task(b), a->ticket(b)};
    if (t == b) {  // last entry: race with thieves for it
      if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                        std::memory_order_relaxed))
        x = {};
      bottom_.store(b + 1, std::memory_order_relaxed);
    }
    return x;
  }

  // Owner only: the newest entry without removing it (null if empty).
  Task* peek_bottom() const {
    std::int64_t b = bottom_.load(std::memory_order_relaxed);
    std::int64_t t = top_.load(std::memory_order_acquire);
    if (t >= b) return nullptr;
    return array_.load(std::memory_order_relaxed)->task(b - 1);
  }

  // Any thread: the oldest entry's ticket and the number of entries; false
  // if empty (a racy hint).
  bool peek_top(std::uint32_t& ticket, std::int64_t& entries) const {
    std::int64_t t = top_.load(std::memory_order_acquire);
    std::int64_t b = bottom_.load(std::memory_order_acquire);
    if (t >= b) return false;
    ticket = array_.load(std::memory_order_acquire)->ticket(t);
    entries = b - t;
    return true;
  }

  // The same without the count (yield's and pick_next's question).
  bool peek_top_ticket(std::uint32_t& ticket) const {
    std::int64_t entries = 0;  // unused: the inlined count is dropped
    return peek_top(ticket, entries);
  }

  // Owner only: takes the oldest entry if it is `t`; false if the oldest is
  // another ULT or a thief took it first. (A joiner running the child it
  // joins in creation order: see Worker::try_run_unstarted.) No fence, unlike
  // steal(): only the owner moves the bottom, so no pop can race with it.
  bool take_top_if(const Task* t) {
    std::int64_t top = top_.load(std::memory_order_acquire);
    const std::int64_t b = bottom_.load(std::memory_order_relaxed);
    if (top >= b || array_.load(std::memory_order_relaxed)->task(top) != t) return false;
    return top_.compare_exchange_strong(top, top + 1, std::memory_order_seq_cst, std::memory_order_relaxed);
  }

  // Entries between top and bottom (exact for the owner, a hint for others).
  std::size_t size() const {
    const std::int64_t n = bottom_.load(std::memory_order_acquire) - top_.load(std::memory_order_acquire);
    return n > 0 ? static_cast<std::size_t>(n) : 0;
  }

  enum class StealResult { ok, empty, lost_race };

  // Any thread: takes the oldest entry.
  StealResult steal(Task*& out) {
    std::int64_t t = top_.load(std::memory_order_acquire);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::int64_t b = bottom_.load(std::memory_order_acquire);
    if (t >= b) return StealResult::empty;
    Task* x = array_.load(std::memory_order_acquire)->task(t);
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                      std::memory_order_relaxed))
      return StealResult::lost_race;
    out = x;
    return StealResult::ok;
  }

  bool empty() const {
    return top_.load(std::memory_order_acquire) >= bottom_.load(std::memory_order_acquire);
  }

 private:
  // A header and its slots in one node-local mapping. The slots are plain
  // words accessed through std::atomic_ref, so that a fresh mapping (the
  // kernel's zero pages) needs no constructor: writing all 16 KiB of a new
  // deque was three quarters of building a Worker, page faults on the
  // runtime constructor's path (perf, 2-core VM); a slot's page is now first
  // touched by the owner's first push, on its own thread.
  struct Array {
    struct Slot {
      Task* task;
      std::uint32_t ticket;
    };
    static constexpr std::size_t kSlotsOffset = 64;

    static Array* make(std::size_t capacity, int os_node) {
      const std::size_t bytes = kSlotsOffset + capacity * sizeof(Slot);
      bool zeroed = false;
      void* mem = NodeMemoryCache::allocate(bytes, os_node, &zeroed);
      auto* a = ::new (mem) Array(capacity, bytes, os_node);
      if (!zeroed) std::memset(static_cast<void*>(a->slots), 0, capacity * sizeof(Slot));
      return a;
    }
    struct Free {
      void operator()(Array* a) const noexcept { NodeMemoryCache::release(a, a->bytes, a->node); }
    };

    Task* task(std::int64_t i) const {
      return std::atomic_ref<Task*>(slots[i & mask].task).load(std::memory_order_relaxed);
    }
    std::uint32_t ticket(std::int64_t i) const {
      return std::atomic_ref<std::uint32_t>(slots[i & mask].ticket).load(std::memory_order_relaxed);
    }
    void put(std::int64_t i, Task* t, std::uint32_t ticket) {
      std::atomic_ref<Task*>(slots[i & mask].task).store(t, std::memory_order_relaxed);
      std::atomic_ref<std::uint32_t>(slots[i & mask].ticket).store(ticket, std::memory_order_relaxed);
    }
    std::size_t mask;
    std::size_t bytes;
    int node;
    Slot* slots;

   private:
    Array(std::size_t capacity, std::size_t total_bytes, int os_node)
        : mask(capacity - 1),
          bytes(total_bytes),
          node(os_node),
          slots(reinterpret_cast<Slot*>(reinterpret_cast<char*>(this) + kSlotsOffset)) {}
  };
  static_assert(sizeof(Array) <= Array::kSlotsOffset);
  static_assert(alignof(Array::Slot) >= std::atomic_ref<Task*>::required_alignment &&
                Array::kSlotsOffset % alignof(Array::Slot) == 0);

  Array* grow(Array* old, std::int64_t top, std::int64_t bottom) {
    Array* a = Array::make((old->mask + 1) * 2, os_node_);
    for (std::int64_t i = top; i < bottom; ++i) a->put(i, old->task(i), old->ticket(i));
    arrays_.emplace_back(a);  // old arrays stay alive: thieves may still read them
    array_.store(a, std::memory_order_release);
    return a;
  }

  alignas(sched::cache_line_size) std::atomic<std::int64_t> top_{0};
  alignas(sched::cache_line_size) std::atomic<std::int64_t> bottom_{0};
  alignas(sched::cache_line_size) std::atomic<Array*> array_{nullptr};
  std::vector<std::unique_ptr<Array, Array::Free>> arrays_;
  int os_node_;
};

}  // namespace weft::detail
