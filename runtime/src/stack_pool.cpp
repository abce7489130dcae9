#include "stack_pool.hpp"

#include "weft/sched/numa_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace weft::detail {

std::size_t StackPool::guard_bytes() {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

StackPool::StackPool(std::size_t usable_bytes, std::size_t keep, int os_node) : keep_(keep), os_node_(os_node) {
  std::size_t page = guard_bytes();
  usable_ = (usable_bytes + page - 1) / page * page;
  free_.reserve(keep_);
}

StackPool::~StackPool() {
  for (char* lo : free_) munmap(lo - guard_bytes(), usable_ + guard_bytes());
}

char* StackPool::acquire() {
  if (!free_.empty()) {
    char* lo = free_.back();
    free_.pop_back();
    return lo;
  }
  std::size_t guard = guard_bytes();
  void* base = mmap(nullptr, usable_ + guard, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  if (mprotect(base, guard, PROT_NONE) != 0) {
    munmap(base, usable_ + guard);
    throw std::bad_alloc();
  }
  sched::prefer_node(static_cast<char*>(base) + guard, usable_, os_node_);
  return static_cast<char*>(base) + guard;
}

void StackPool::release(char* lo) {
  if (free_.size() < keep_) {
    free_.push_back(lo);
    return;
  }
  munmap(lo - guard_bytes(), usable_ + guard_bytes());
}

}  // namespace weft::detail
