#pragma once
// NUMA-local memory: a buffer whose pages live on one memory node (libnuma),
// and the MCTOP enrichment plugins (thesis §7.4) that measure per-node memory
// latency (random pointer chase) and read bandwidth (one thread and all of the
// node's local contexts).

#include <cstddef>
#include <functional>

#include "weft/sched/topology.hpp"

namespace weft::sched {

// A page-aligned buffer allocated on one OS NUMA node (numa_alloc_onnode);
// where libnuma is unavailable, plain page-aligned memory (on_node() false).
// Move-only. Costs one mmap; pages are touched by the first writer.
class NodeBuffer {
 public:
  NodeBuffer() = default;
  NodeBuffer(std::size_t bytes, int os_node);  // throws std::bad_alloc
  ~NodeBuffer();
  NodeBuffer(NodeBuffer&& other) noexcept;
  NodeBuffer& operator=(NodeBuffer&& other) noexcept;
  NodeBuffer(const NodeBuffer&) = delete;
  NodeBuffer& operator=(const NodeBuffer&) = delete;

  void* data() const { return data_; }
  std::size_t size() const { return size_; }
  int node() const { return node_; }
  bool on_node() const { return numa_; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
  int node_ = -1;
  bool numa_ = false;
};

// Memory that *prefers* a node (MPOL_PREFERRED) rather than being bound to
// it as NodeBuffer is: used for memory a thread lives on (the runtime's ULT
// stacks, deques and worker objects), where a full node must fall back to
// another instead of failing a page fault. The policy is set on a fresh,
// untouched mapping, so its pages come from the node whichever thread faults
// them in first.

// The OS NUMA node of an OS CPU; -1 when unknown (no libnuma, no NUMA
// support, or os_cpu < 0).
int os_node_of_cpu(int os_cpu) noexcept;
// Gives [addr, addr + bytes) (page-aligned, not yet touched) the preferred
// policy for `os_node`. No-op for os_node < 0. Returns false if the kernel
// refused (the memory is still usable, with the default policy).
bool prefer_node(void* addr, std::size_t bytes, int os_node) noexcept;
// A page-granular anonymous mapping preferring `os_node` (any node if < 0).
// Throws std::bad_alloc. Free with free_node_memory and the same size.
void* allocate_node_memory(std::size_t bytes, int os_node);
void free_node_memory(void* p, std::size_t bytes) noexcept;

// Spread [addr, addr + bytes) (page-aligned, not yet touched) over the memory
// nodes the calling thread may allocate on: page by page (MPOL_INTERLEAVE),
// or in one contiguous part per node, in node order, each preferring its node
// (the OpenMP allocators' interleaved and blocked partitions). Without NUMA
// support, no-ops. Return false if the kernel refused (the memory is still
// usable, with the default policy).
bool interleave_over_nodes(void* addr, std::size_t bytes) noexcept;
bool block_over_nodes(void* addr, std::size_t bytes) noexcept;

// The same for large arrays whose objects are reached in no particular page
// order (the runtime's ULT control blocks): `bytes` is rounded up to whole
// 2 MiB huge pages, the mapping is aligned to one, and transparent huge
// pages are asked for (madvise MADV_HUGEPAGE; the kernel may still use 4 KiB
// pages). With 4 KiB pages, 10^5 blocks of 256 bytes span 6250 pages, more
// than a core's TLB holds. Each huge page is zeroed at its first touch
// (~2 MiB at once), so use it where much of the memory will be used. Free
// with free_node_memory and huge_page_bytes(bytes).
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
constexpr std::size_t huge_page_bytes(std::size_t bytes) {
  return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}
void* allocate_node_memory_huge(std::size_t bytes, int os_node);

// Small and quick by default (well under a second per node on a small box).
struct MemoryProbeOptions {
  std::size_t chase_bytes = 64u << 20;   // pointer-chase working set (bigger than common LLCs)
  std::size_t chase_steps = 1u << 21;    // dependent loads timed
  std::size_t stream_bytes = 32u << 20;  // per-thread sequential read buffer
  int passes = 2;                        // sequential passes (best one counts)
  int max_threads = 0;                   // cap on threads for the all-contexts bandwidth; 0 = all local contexts
  std::function<void(int node)> progress;  // called before each node
};

// Measures one node from the contexts of the sockets whose local node it is
// (or, if none, from context 0). Pins and then restores the calling thread.
MemoryInfo measure_node_memory(const Topology& topo, int os_node, const MemoryProbeOptions& options = {});
// A copy of topo with every node's memory figures measured.
Topology measure_memory(const Topology& topo, const MemoryProbeOptions& options = {});

}  // namespace weft::sched
