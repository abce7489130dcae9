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
