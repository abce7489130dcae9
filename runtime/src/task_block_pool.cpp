#include "task_block_pool.hpp"

#include <algorithm>
#include <mutex>
#include <new>
#include <vector>

#include "task.hpp"
#include "weft/sched/numa_memory.hpp"

namespace weft::detail {

namespace {

// A node's first chunk is 1 MiB of ordinary pages: a program with a few
// thousand ULTs touches only the pages it carves. Every later chunk is one
// 2 MiB transparent huge page: a program that has more than 4096 ULTs alive
// at once walks its blocks in no page order, and with 4 KiB pages a TLB miss
// every 16 blocks made a batch of 10^5 create+joins ~1.3x slower on the AMD
// dev VM (bench/results/ult-2core.md, 2026-11-26 evening).
constexpr std::size_t kFirstChunkBytes = std::size_t{1} << 20;
constexpr std::size_t kHugeChunkBytes = sched::kHugePageBytes;
constexpr std::size_t kPlainThreadCarve = 32;  // blocks carved at once for plain threads

// Process-wide: batches of free blocks, and the chunks they come from
// (never unmapped; intentionally never destroyed, see the header).
class Depot {
 public:
  static Depot& get() {
    static auto* depot = new Depot;
    return *depot;
  }

  struct Batch {
    void* head;
    std::size_t size;
  };

  void give(Batch b) {
    std::lock_guard lock(mutex_);
    batches_.push_back(b);
  }
  // `count` blocks from the untouched rest of the newest chunk of `os_node`
  // (a new chunk when it is used up), linked as one batch. Only the blocks
  // carved are written, so a runtime that runs a few ULTs touches a few
  // pages, not the whole megabyte (linking a whole chunk at once cost a cold
  // start ~0.3 ms of page faults: `weft-bench startup`).
  Batch carve(int os_node, std::size_t count) {
    Fresh* fresh = nullptr;
    for (Fresh& f : fresh_)
      if (f.os_node == os_node) fresh = &f;
    if (!fresh) fresh = &fresh_.emplace_back(Fresh{os_node, nullptr, nullptr});
    if (static_cast<std::size_t>(fresh->end - fresh->next) < kTaskBlockBytes) {  // throws std::bad_alloc
      const bool first = fresh->next == nullptr;  // nothing mapped for this node yet
      const std::size_t bytes = first ? kFirstChunkBytes : kHugeChunkBytes;
      fresh->next = static_cast<char*>(first ? sched::allocate_node_memory(bytes, os_node)
                                             : sched::allocate_node_memory_huge(bytes, os_node));
      fresh->end = fresh->next + bytes;
    }
    count = std::min(count, static_cast<std::size_t>(fresh->end - fresh->next) / kTaskBlockBytes);
    void* head = nullptr;
    for (std::size_t i = count; i-- > 0;) {
      void* block = fresh->next + i * kTaskBlockBytes;
      *static_cast<void**>(block) = head;
      head = block;
    }
    fresh->next += count * kTaskBlockBytes;
    return {head, count};
  }

  // A batch for a worker's list: freed blocks first, else fresh ones.
  Batch take_batch(int os_node) {
    std::lock_guard lock(mutex_);
    if (!batches_.empty()) {
      Batch b = batches_.back();
      batches_.pop_back();
      return b;
    }
    return carve(os_node, TaskBlockPool::kBatch);
  }

  // Blocks of plain threads, one at a time.
  void* take_one() {
    std::lock_guard lock(mutex_);
    if (loose_.empty()) {
      if (batches_.empty()) batches_.push_back(carve(-1, kPlainThreadCarve));
      Batch& b = batches_.back();
      void* block = b.head;
      b.head = *static_cast<void**>(block);
      if (--b.size == 0) batches_.pop_back();
      return block;
    }
    void* block = loose_.back();
    loose_.pop_back();
    return block;
  }
  void give_one(void* block) {
    std::lock_guard lock(mutex_);
    loose_.push_back(block);
    if (loose_.size() >= TaskBlockPool::kBatch) {
      void* head = nullptr;
      for (void* b : loose_) {
        *static_cast<void**>(b) = head;
        head = b;
      }
      batches_.push_back({head, loose_.size()});
      loose_.clear();
    }
  }

 private:
  std::mutex mutex_;
  std::vector<Batch> batches_;
  std::vector<void*> loose_;
  // Per NUMA node (-1: anywhere), the part of its newest chunk not yet handed out.
  struct Fresh {
    int os_node;
    char* next;
    char* end;
  };
  std::vector<Fresh> fresh_;
};

}  // namespace

TaskBlockPool::~TaskBlockPool() {
  if (head_) Depot::get().give({head_, size_});
}

void* TaskBlockPool::refill() {
  const Depot::Batch b = Depot::get().take_batch(os_node_);
  head_ = static_cast<Free*>(b.head);
  size_ = b.size;
  return allocate();
}

void TaskBlockPool::spill() {
  // The first kBatch blocks (the most recently freed) stay, the rest go.
  Free* keep_tail = head_;
  for (std::size_t i = 1; i < kBatch; ++i) keep_tail = keep_tail->next;
  Depot::get().give({keep_tail->next, size_ - kBatch});
  keep_tail->next = nullptr;
  size_ = kBatch;
}

void* TaskBlockPool::allocate_shared() {
  if constexpr (!kPoolTaskBlocks) return ::operator new(kTaskBlockBytes, std::align_val_t{64});
  return Depot::get().take_one();
}

void TaskBlockPool::free_shared(void* block) {
  if constexpr (!kPoolTaskBlocks) {
    ::operator delete(block, std::align_val_t{64});
    return;
  }
  Depot::get().give_one(block);
}

}  // namespace weft::detail
