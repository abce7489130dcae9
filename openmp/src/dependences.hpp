#pragma once
// Task dependences between sibling tasks (OpenMP 5.2 §15.9.5; internal).
//
// Each task that creates dependent children keeps a DependenceGraph: for
// every address its children named, the last task that wrote it (out,
// inout, mutexinoutset and inoutset all count as writes here, which orders
// more than OpenMP requires and never less) and the readers since. A new
// task depends on the last writer of each address it reads, and on the last
// writer and every reader since of each address it writes; depend(inout:
// omp_all_memory) depends on every earlier sibling with dependences, and
// every later one depends on it. Only the parent's own code creates
// siblings, so the map needs no lock; the nodes are shared with the
// children that finish, under a per-node spin lock.
//
// A node is released when its task has finished: each successor's count of
// unfinished predecessors drops, and the one that reaches zero is launched
// (a deferred task: its ULT is spawned; an undeferred one: its creator,
// waiting, is woken).

#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace weft::omp {

struct DeferredTask;

class DepNode {
 public:
  // A node for `task` (null: an undeferred task whose creator waits).
  explicit DepNode(DeferredTask* task) : task_(task) {}

  bool finished() const noexcept { return finished_.load(std::memory_order_acquire); }
  // Unfinished predecessors (+1 while the node is being registered).
  bool blocked() const noexcept { return blockers_.load(std::memory_order_acquire) != 0; }
  const void* blockers_key() const noexcept { return &blockers_; }

  void retain() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  void release();

  // `this` runs after `pred` unless pred has finished.
  void depend_on(DepNode& pred);
  // Registration done: launches the task now if nothing blocks it.
  void registered();
  // The task finished: successors may run.
  void finish();

 private:
  void unblock();
  std::atomic<int> refs_{1};       // the task's own, plus one per graph entry
  std::atomic<int> blockers_{1};
  std::atomic<bool> finished_{false};
  std::atomic<bool> lock_{false};
  std::vector<DepNode*> successors_;
  DeferredTask* task_;
};

// The depend clause array GOMP_task receives, as (address, writes) pairs.
struct Dependence {
  void* address;
  bool writes;
};
std::vector<Dependence> parse_depend(void** depend);

class DependenceGraph {
 public:
  DependenceGraph() = default;
  DependenceGraph(const DependenceGraph&) = delete;
  DependenceGraph& operator=(const DependenceGraph&) = delete;
  ~DependenceGraph();

  // Records `node` (its task's dependences) and the edges from the earlier
  // siblings it must follow.
  void add(DepNode& node, const std::vector<Dependence>& deps);
  // Only the edges (taskwait depend: wait, do not record).
  void add_edges_only(DepNode& node, const std::vector<Dependence>& deps);

 private:
  struct Entry {
    DepNode* writer = nullptr;
    std::vector<DepNode*> readers;
  };
  void edges(DepNode& node, const std::vector<Dependence>& deps);
  void clear();
  std::unordered_map<void*, Entry> entries_;
  DepNode* all_memory_ = nullptr;  // the last depend(inout: omp_all_memory) task
};

}  // namespace weft::omp
