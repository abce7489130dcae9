#include "node_memory.hpp"

#include <numa.h>
#include <numaif.h>
#include <sys/mman.h>

#include <climits>
#include <new>

namespace weft::detail {

namespace {
bool numa_usable() noexcept {
  static const bool usable = numa_available() >= 0;
  return usable;
}
}  // namespace

int os_node_of_cpu(int os_cpu) noexcept {
  if (os_cpu < 0 || !numa_usable()) return -1;
  return numa_node_of_cpu(os_cpu);
}

bool prefer_node(void* addr, std::size_t bytes, int os_node) noexcept {
  if (os_node < 0 || !numa_usable()) return true;
  constexpr unsigned long kBits = sizeof(unsigned long) * CHAR_BIT;
  if (os_node >= 64 * static_cast<int>(kBits)) return false;
  unsigned long mask[64] = {};
  mask[static_cast<unsigned>(os_node) / kBits] = 1ul << (static_cast<unsigned>(os_node) % kBits);
  // maxnode counts bits and the kernel reads maxnode - 1 of them.
  return mbind(addr, bytes, MPOL_PREFERRED, mask, static_cast<unsigned long>(os_node) + 2, 0) == 0;
}

void* allocate_node_memory(std::size_t bytes, int os_node) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  prefer_node(p, bytes, os_node);
  return p;
}

void free_node_memory(void* p, std::size_t bytes) noexcept {
  if (p) munmap(p, bytes);
}

}  // namespace weft::detail
