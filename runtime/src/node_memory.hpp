#pragma once
// Memory on a worker's NUMA node (issue: "per-worker structures and ULT
// stacks are allocated on the worker's NUMA node"). A worker's stacks, its
// Worker object and its deque arrays are fresh mappings given the
// MPOL_PREFERRED policy for the node of the worker's CPU before anything
// touches them, so their pages come from that node whichever thread faults
// them in first. Preferred, not bound: when the node is full the kernel falls
// back to another node instead of killing the process on a stack fault.

#include <cstddef>

namespace weft::detail {

// The OS NUMA node of an OS CPU; -1 when unknown (no libnuma, no NUMA
// support, or cpu < 0 because workers are not pinned).
int os_node_of_cpu(int os_cpu) noexcept;

// Gives [addr, addr + bytes) (page-aligned, not yet touched) the preferred
// policy for `os_node`. No-op for os_node < 0. Returns false if the kernel
// refused (the memory is still usable, with the default policy).
bool prefer_node(void* addr, std::size_t bytes, int os_node) noexcept;

// A page-granular anonymous mapping preferring `os_node` (any node if < 0).
// Throws std::bad_alloc. Free with free_node_memory and the same size.
void* allocate_node_memory(std::size_t bytes, int os_node);
void free_node_memory(void* p, std::size_t bytes) noexcept;

}  // namespace weft::detail
