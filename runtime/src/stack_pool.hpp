#pragma once
// Per-worker pool of ULT stacks: mmap'd, with a PROT_NONE guard page below
// each, on the worker's NUMA node (sched::prefer_node), reused LIFO (the most
// recently used stack is the warmest in cache).

#include <cstddef>
#include <vector>

namespace weft::detail {

class StackPool {
 public:
  // os_node: the NUMA node new stacks prefer (-1: no preference).
  StackPool(std::size_t usable_bytes, std::size_t keep, int os_node);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  // Lowest usable byte of a stack of usable_bytes(); throws std::bad_alloc.
  char* acquire();
  // Takes back a stack from this runtime (any worker's pool).
  void release(char* lo);

  std::size_t usable_bytes() const { return usable_; }
  static std::size_t guard_bytes();

 private:
  std::size_t usable_;
  std::size_t keep_;
  int os_node_;
  std::vector<char*> free_;
};

}  // namespace weft::detail
