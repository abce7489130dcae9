#pragma once
// Node-local memory the runtime takes and gives back whole with each Runtime
// (internal): Worker objects and the first arrays of their deques. A runtime
// started after another one stopped reuses those mappings instead of mapping
// them again (and unmapping them cost a TLB shootdown on every CPU the
// process runs on: a fifth of a warm create+destroy). Keeps a few dozen
// mappings at most; contents are not cleared.

#include <cstddef>
#include <mutex>
#include <vector>

#include "weft/sched/numa_memory.hpp"

namespace weft::detail {

class NodeMemoryCache {
 public:
  static void* allocate(std::size_t bytes, int os_node) {
    {
      std::lock_guard lock(mutex());
      auto& kept = entries();
      for (std::size_t i = kept.size(); i-- > 0;)
        if (kept[i].bytes == bytes && kept[i].node == os_node) {
          void* p = kept[i].p;
          kept.erase(kept.begin() + static_cast<long>(i));
          return p;
        }
    }
    return sched::allocate_node_memory(bytes, os_node);  // throws std::bad_alloc
  }
  static void release(void* p, std::size_t bytes, int os_node) noexcept {
    if (!p) return;
    {
      std::lock_guard lock(mutex());
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
  static constexpr std::size_t kMaxKept = 64;
  struct Entry {
    void* p;
    std::size_t bytes;
    int node;
  };
  // Never destroyed: a runtime may be released during static destruction.
  static std::mutex& mutex() {
    static auto* m = new std::mutex;
    return *m;
  }
  static std::vector<Entry>& entries() {
    static auto* v = new std::vector<Entry>;
    return *v;
  }
};

}  // namespace weft::detail
