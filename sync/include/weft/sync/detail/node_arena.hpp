#pragma once
// Owner of the nodes an algorithm hands around between callers. Nodes migrate
// between handles (CC-Synch, CLH), so ownership is tracked by the object, not
// by the handle: the arena frees every node it ever made when the object dies.
// acquire()/recycle() take a mutex: they run when handles are made/destroyed,
// never during an operation.

#include <memory>
#include <mutex>
#include <vector>

namespace weft::sync::detail {

template <class Node>
class NodeArena {
 public:
  NodeArena() = default;
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;

  // A node no one else references: a recycled one, or a new one.
  Node* acquire() {
    std::lock_guard lk(m_);
    if (!free_.empty()) {
      Node* n = free_.back();
      free_.pop_back();
      return n;
    }
    return make_locked();
  }

  // A new node, never a recycled one.
  Node* make() {
    std::lock_guard lk(m_);
    return make_locked();
  }

  // Gives back a node that no thread references any more.
  void recycle(Node* n) {
    std::lock_guard lk(m_);
    free_.push_back(n);
  }

 private:
  Node* make_locked() {
    all_.push_back(std::make_unique<Node>());
    free_.reserve(all_.size());  // recycle() then never throws
    return all_.back().get();
  }

  std::mutex m_;
  std::vector<std::unique_ptr<Node>> all_;
  std::vector<Node*> free_;
};

}  // namespace weft::sync::detail
