#pragma once
// Node-local memory the runtime takes and gives back whole with each Runtime
// (internal): Worker objects and the first arrays of their deques. A runtime
// started after another one stopped reuses those mappings instead of mapping
// them again (and unmapping them cost a TLB shootdown on every CPU the
// process runs on: a fifth of a warm create+destroy). Contents are not
// cleared.
//
// Small blocks (a Worker, a deque's first array) are cut from 1 MiB chunks
// mapped per node, not mapped one by one: a 16-worker start made 32 mmaps and
// 32 mbinds of them, which took turns on the process's mmap lock with its
// new threads' own mappings (bench/results/16core-2026-11-27b.md). Such a
// block is never unmapped (it is part of a chunk): it is kept for the next
// block of its size, so they are as many as were ever in use at once. Larger
// blocks are mappings of their own, a few dozen of them kept at most.

#include <cstddef>
#include <mutex>
#include <vector>

#include "weft/sched/numa_memory.hpp"

namespace weft::detail {

class NodeMemoryCache {
 public:
  // Throws std::bad_alloc. *zeroed (if given): whether the block is new,
  // never written (the kernel's zero pages), rather than a kept one.
  static void* allocate(std::size_t bytes, int os_node, bool* zeroed = nullptr) {
    if (zeroed) *zeroed = false;
    {
      std::lock_guard lock(mutex());
      auto& kept = is_small(bytes) ? small_entries() : entries();
      for (std::size_t i = kept.size(); i-- > 0;)
        if (kept[i].bytes == bytes && kept[i].node == os_node) {
          void* p = kept[i].p;
          kept.erase(kept.begin() + static_cast<long>(i));
          return p;
        }
      if (is_small(bytes)) {
        void* p = cut(lines(bytes), os_node);
        if (zeroed) *zeroed = true;
        return p;
      }
    }
    void* p = sched::allocate_node_memory(bytes, os_node);
    if (zeroed) *zeroed = true;
    return p;
  }
  static void release(void* p, std::size_t bytes, int os_node) noexcept {
    if (!p) return;
    {
      std::lock_guard lock(mutex());
      if (is_small(bytes)) {
        try {
          small_entries().push_back({p, bytes, os_node});
        } catch (...) {  // no memory for the entry: the block stays unused
        }
        return;
      }
      auto& kept = entries();
      if (kept.size() < kMaxKept) {
        try {
          kept.push_back({p, bytes, os_node});
          return;
        } catch (...) {  // no memory for the entry: unmap instead
        }
      }
    }
    sched::free_node_memory(p, bytes);
  }

 private:
  static constexpr std::size_t kMaxKept = 64;  // large blocks kept at most
  static constexpr std::size_t kPage = 4096;
  static constexpr std::size_t kLinePair = 128;
  static constexpr std::size_t kChunk = 1u << 20;
  static constexpr std::size_t kMaxSmall = 64 * 1024;
  struct Entry {
    void* p;
    std::size_t bytes;
    int node;
  };
  struct Chunk {
    int node;
    char* next;
    std::size_t left;
  };
  static bool is_small(std::size_t bytes) { return pages(bytes) <= kMaxSmall; }
  static std::size_t pages(std::size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }
  // Small blocks are cut in 128-byte steps (two cache lines: the adjacent-
  // line prefetcher's pair), not pages: four 1 KiB Workers share a page, one
  // page fault on the constructor's path instead of four.
  static std::size_t lines(std::size_t bytes) { return (bytes + kLinePair - 1) / kLinePair * kLinePair; }
  // The next `size` bytes of the node's chunk (a new chunk when it is used up).
  static void* cut(std::size_t size, int os_node) {
    auto& chunks = chunks_in_use();
    auto it = chunks.begin();
    while (it != chunks.end() && it->node != os_node) ++it;
    if (it == chunks.end()) it = chunks.insert(chunks.end(), Chunk{os_node, nullptr, 0});
    if (it->left < size) {  // the rest of the old chunk stays unused (never touched: no memory)
      it->next = static_cast<char*>(sched::allocate_node_memory(kChunk, os_node));
      it->left = kChunk;
    }
    void* p = it->next;
    it->next += size;
    it->left -= size;
    return p;
  }
  // Never destroyed: a runtime may be released during static destruction.
  static std::mutex& mutex() {
    static auto* m = new std::mutex;
    return *m;
  }
  static std::vector<Entry>& entries() {
    static auto* v = new std::vector<Entry>;
    return *v;
  }
  static std::vector<Entry>& small_entries() {
    static auto* v = new std::vector<Entry>;
    return *v;
  }
  static std::vector<Chunk>& chunks_in_use() {
    static auto* v = new std::vector<Chunk>;
    return *v;
  }
};

}  // namespace weft::detail
