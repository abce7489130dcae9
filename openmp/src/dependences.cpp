// Sibling task dependences; see dependences.hpp.
#include "dependences.hpp"

#include <algorithm>

#include "fatal.hpp"
#include "parking_lot.hpp"
#include "weft/sched/cpu.hpp"

namespace weft::omp {

void launch_deferred(DeferredTask* task);  // tasks.cpp

namespace {

constexpr std::uintptr_t kDependIn = 1, kDependOut = 2, kDependInout = 3, kDependMutexinoutset = 4,
                         kDependInoutset = 5;

class NodeLock {
 public:
  explicit NodeLock(std::atomic<bool>& f) : f_(f) {
    while (f_.exchange(true, std::memory_order_acquire))
      while (f_.load(std::memory_order_relaxed)) sched::cpu_relax();
  }
  ~NodeLock() { f_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool>& f_;
};

}  // namespace

// ------------------------------------------------------------------- DepNode

void DepNode::release() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void DepNode::depend_on(DepNode& pred) {
  if (&pred == this) return;  // a task naming one address twice
  NodeLock hold(pred.lock_);
  if (pred.finished_.load(std::memory_order_relaxed)) return;
  if (!pred.successors_.empty() && pred.successors_.back() == this) return;
  pred.successors_.push_back(this);
  blockers_.fetch_add(1, std::memory_order_relaxed);
}

void DepNode::registered() { unblock(); }

void DepNode::finish() {
  std::vector<DepNode*> next;
  {
    NodeLock hold(lock_);
    finished_.store(true, std::memory_order_release);
    next.swap(successors_);
  }
  for (DepNode* s : next) s->unblock();
}

void DepNode::unblock() {
  // Read before the count drops: the creator of an undeferred task (or of a
  // taskwait with depend) may see zero at once, without parking, and free
  // this node before the rest of this function runs.
  DeferredTask* const task = task_;
  if (blockers_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (task) launch_deferred(task);
  else unpark_all(&blockers_);  // the creator waits; the key is an address only (parking_lot.hpp)
}

// ------------------------------------------------------------------- parsing

std::vector<Dependence> parse_depend(void** depend) {
  std::vector<Dependence> out;
  const auto at = [depend](std::size_t i) { return reinterpret_cast<std::uintptr_t>(depend[i]); };
  if (std::size_t n = at(0)) {
    // GCC < 9: depend[1] out/inout clauses first, then the in ones.
    const std::size_t nout = at(1);
    for (std::size_t i = 0; i < n; ++i) out.push_back({depend[2 + i], i < nout});
    return out;
  }
  // depend[1] total, [2] out/inout, [3] mutexinoutset, [4] in, then the
  // addresses, then omp_depend_t objects {address, kind}.
  const std::size_t n = at(1), writes = at(2) + at(3), normal = writes + at(4);
  for (std::size_t i = 0; i < normal; ++i) out.push_back({depend[5 + i], i < writes});
  for (std::size_t i = normal; i < n; ++i) {
    void** obj = static_cast<void**>(depend[5 + i]);
    const auto kind = reinterpret_cast<std::uintptr_t>(obj[1]);
    if (kind < kDependIn || kind > kDependInoutset)
      fatal("GOMP_task", "unknown omp_depend_t dependence type " + std::to_string(kind));
    out.push_back({obj[0], kind != kDependIn});
  }
  (void)kDependOut;
  (void)kDependInout;
  (void)kDependMutexinoutset;
  return out;
}

// ------------------------------------------------------------------- graph

DependenceGraph::~DependenceGraph() { clear(); }

void DependenceGraph::clear() {
  for (auto& [address, e] : entries_) {
    if (e.writer) e.writer->release();
    for (DepNode* r : e.readers) r->release();
  }
  entries_.clear();
  if (all_memory_) all_memory_->release();
  all_memory_ = nullptr;
}

void DependenceGraph::edges(DepNode& node, const std::vector<Dependence>& deps) {
  if (all_memory_) node.depend_on(*all_memory_);
  for (const Dependence& d : deps) {
    if (!d.address && d.writes) {  // omp_all_memory: every earlier sibling with dependences
      for (auto& [address, e] : entries_) {
        if (e.writer) node.depend_on(*e.writer);
        for (DepNode* r : e.readers) node.depend_on(*r);
      }
      continue;
    }
    const auto it = entries_.find(d.address);
    if (it == entries_.end()) continue;
    if (it->second.writer) node.depend_on(*it->second.writer);
    if (d.writes)
      for (DepNode* r : it->second.readers) node.depend_on(*r);
  }
}

void DependenceGraph::add_edges_only(DepNode& node, const std::vector<Dependence>& deps) { edges(node, deps); }

void DependenceGraph::add(DepNode& node, const std::vector<Dependence>& deps) {
  edges(node, deps);
  const bool all_memory = std::any_of(deps.begin(), deps.end(), [](const Dependence& d) { return !d.address && d.writes; });
  if (all_memory) {
    // Every later sibling with dependences follows this one, which follows
    // every earlier one: the map's contents are implied by it.
    clear();
    node.retain();
    all_memory_ = &node;
    return;
  }
  for (const Dependence& d : deps) {
    Entry& e = entries_[d.address];
    if (d.writes) {
      if (e.writer != &node) {
        if (e.writer) e.writer->release();
        node.retain();
        e.writer = &node;
      }
      for (DepNode* r : e.readers) r->release();
      e.readers.clear();
      continue;
    }
    if (e.writer == &node) continue;  // also writes it: the stronger dependence is recorded
    if (e.writer && e.writer->finished()) {
      e.writer->release();
      e.writer = nullptr;
    }
    auto done = std::remove_if(e.readers.begin(), e.readers.end(), [](DepNode* r) {
      if (!r->finished()) return false;
      r->release();
      return true;
    });
    e.readers.erase(done, e.readers.end());
    if (std::find(e.readers.begin(), e.readers.end(), &node) != e.readers.end()) continue;
    node.retain();
    e.readers.push_back(&node);
  }
}

}  // namespace weft::omp
