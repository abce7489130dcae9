#pragma once
// Memory for ULT control blocks (internal): fixed-size blocks carved from
// large chunks, a free list per worker in front of a process-wide depot.
// A block may be freed by any thread (whoever drops the last reference);
// it goes to that thread's worker's list, or to the depot from a plain
// thread, and lists longer than a limit spill batches to the depot, where
// any worker refills from. Chunks are never unmapped: a handle may outlive
// its runtime, and the peak number of blocks is kept for reuse (256 bytes
// a ULT; docs/runtime.md "Memory").

#include <cstddef>
#include <new>

namespace weft::detail {

#if defined(WEFT_ASAN)
// Under AddressSanitizer every block is its own heap allocation, freed at
// once, so that a use after the last release is reported, not hidden by reuse.
inline constexpr bool kPoolTaskBlocks = false;
#else
inline constexpr bool kPoolTaskBlocks = true;
#endif

class TaskBlockPool {
 public:
  // keep: blocks kept on this list before batches spill to the depot.
  // os_node: where chunks this pool maps prefer to live (-1: anywhere).
  TaskBlockPool(std::size_t keep, int os_node) : keep_(keep), os_node_(os_node) {}
  ~TaskBlockPool();  // everything goes to the depot
  TaskBlockPool(const TaskBlockPool&) = delete;
  TaskBlockPool& operator=(const TaskBlockPool&) = delete;

  void* allocate() {
    if constexpr (!kPoolTaskBlocks) return allocate_shared();
    if (head_) [[likely]] {
      Free* b = head_;
      head_ = b->next;
      --size_;
      return b;
    }
    return refill();
  }
  void free(void* block) {
    if constexpr (!kPoolTaskBlocks) return free_shared(block);
    auto* b = static_cast<Free*>(block);
    b->next = head_;
    head_ = b;
    if (++size_ > keep_ + kBatch) [[unlikely]] spill();
  }

  // Whether allocate() can be served from this list.
  bool has_free() const { return kPoolTaskBlocks && head_ != nullptr; }

  // For threads without a pool (plain threads): straight from/to the depot.
  static void* allocate_shared();
  static void free_shared(void* block);

  static constexpr std::size_t kBatch = 256;  // blocks moved to/from the depot at once

 private:
  struct Free {
    Free* next;
  };
  void* refill();
  void spill();

  Free* head_ = nullptr;
  std::size_t size_ = 0;
  std::size_t keep_;
  int os_node_;
};

}  // namespace weft::detail
