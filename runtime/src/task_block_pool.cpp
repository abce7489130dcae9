#include "task_block_pool.hpp"

#include <mutex>
#include <new>
#include <vector>

#include "task.hpp"
#include "weft/sched/numa_memory.hpp"

namespace weft::detail {

namespace {

constexpr std::size_t kBlocksPerChunk = 4096;

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

  bool take(Batch& out) {
    std::lock_guard lock(mutex_);
    if (batches_.empty()) return false;
    out = batches_.back();
    batches_.pop_back();
    return true;
  }
  void give(Batch b) {
    std::lock_guard lock(mutex_);
    batches_.push_back(b);
  }
  // A new chunk as one batch of linked blocks.
  static Batch map_chunk(int os_node) {
    const std::size_t bytes = kBlocksPerChunk * kTaskBlockBytes;
    auto* base = static_cast<char*>(sched::allocate_node_memory(bytes, os_node));  // throws std::bad_alloc
    void* head = nullptr;
    for (std::size_t i = kBlocksPerChunk; i-- > 0;) {
      void* block = base + i * kTaskBlockBytes;
      *static_cast<void**>(block) = head;
      head = block;
    }
    return {head, kBlocksPerChunk};
  }

  // Blocks of plain threads, one at a time.
  void* take_one() {
    std::lock_guard lock(mutex_);
    if (loose_.empty()) {
      if (batches_.empty()) batches_.push_back(map_chunk(-1));
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
};

}  // namespace

TaskBlockPool::~TaskBlockPool() {
  if (head_) Depot::get().give({head_, size_});
}

void* TaskBlockPool::refill() {
  Depot::Batch b;
  if (!Depot::get().take(b)) b = Depot::map_chunk(os_node_);
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
