// Support of the lock family (weft/sync/locks/): the queue locks' node cache
// (detail/lock_queue_node.hpp) and the CPU -> socket table of the hierarchical
// locks (detail/cpu_clusters.hpp).
#include <sched.h>

#include <mutex>
#include <vector>

#include "weft/runtime/runtime.hpp"
#include "weft/sched/topology.hpp"
#include "weft/sync/detail/cpu_clusters.hpp"
#include "weft/sync/detail/lock_queue_node.hpp"

namespace weft::sync::detail {

namespace {

// Nodes no thread caches: overflow of the thread caches and the caches of
// exited threads. Never freed (type-stable memory, see lock_queue_node.hpp).
struct SharedNodes {
  std::mutex m;
  std::vector<LockQueueNode*> free;
};
SharedNodes& shared_nodes() {
  static auto* s = new SharedNodes;  // outlives every thread_local destructor
  return *s;
}

constexpr std::size_t kThreadCacheSize = 16;

struct ThreadNodeCache {
  LockQueueNode* nodes[kThreadCacheSize];
  std::size_t size = 0;
  ~ThreadNodeCache() {
    if (size == 0) return;
    SharedNodes& s = shared_nodes();
    std::lock_guard lk(s.m);
    s.free.insert(s.free.end(), nodes, nodes + size);
  }
};
thread_local ThreadNodeCache t_cache;

LockQueueNode* fresh(LockQueueNode* n) {
  n->flag.reset();
  n->next.store(nullptr, std::memory_order_relaxed);
  return n;
}

}  // namespace

__attribute__((noinline)) LockQueueNode* take_lock_queue_node() {
  ThreadNodeCache& c = t_cache;
  if (c.size > 0) return fresh(c.nodes[--c.size]);
  SharedNodes& s = shared_nodes();
  {
    std::lock_guard lk(s.m);
    if (!s.free.empty()) {
      LockQueueNode* n = s.free.back();
      s.free.pop_back();
      return fresh(n);
    }
  }
  return new LockQueueNode;
}

__attribute__((noinline)) void give_lock_queue_node(LockQueueNode* node) noexcept {
  ThreadNodeCache& c = t_cache;
  if (c.size < kThreadCacheSize) {
    c.nodes[c.size++] = node;
    return;
  }
  SharedNodes& s = shared_nodes();
  std::lock_guard lk(s.m);
  try {
    s.free.push_back(node);
  } catch (...) {
    // Out of memory for the list: the node stays allocated (type-stable), unlisted.
  }
}

std::vector<int> socket_of_each_cpu() {
  auto table = [](const sched::Topology& topo) {
    std::vector<int> socket;
    for (int c = 0; c < topo.num_contexts(); ++c) {
      const int cpu = topo.os_cpu(c);
      if (cpu < 0) continue;
      if (static_cast<std::size_t>(cpu) >= socket.size()) socket.resize(static_cast<std::size_t>(cpu) + 1, -1);
      socket[static_cast<std::size_t>(cpu)] = topo.socket_of(c);
    }
    return socket;
  };
  if (Runtime* rt = Runtime::current()) return table(rt->topology());
  static const std::vector<int> discovered = table(sched::Topology::discover());
  return discovered;
}

__attribute__((noinline)) int current_cpu() noexcept {
  // sched_getcpu() is a vDSO call (dearer on some VMs) and the cluster is
  // only a locality hint, so a thread re-reads it every 64 calls.
  struct Hint {
    int cpu = -1;
    unsigned uses = 0;
  };
  static thread_local Hint hint;
  if (hint.cpu < 0 || ++hint.uses >= 64) {
    hint.uses = 0;
    const int cpu = sched_getcpu();
    hint.cpu = cpu < 0 ? 0 : cpu;
  }
  return hint.cpu;
}

}  // namespace weft::sync::detail
