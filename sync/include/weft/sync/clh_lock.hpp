#pragma once
// CLH queue lock (Craig 1993; Magnusson, Landin & Hagersten 1994), the lock
// of the Osci paper's "CLH" Fetch&Multiply baseline and H-Synch's global lock.
// A FIFO spin lock: acquire swaps the caller's node into Tail and waits on the
// predecessor's node; release clears the caller's node and the caller adopts
// its predecessor's node for next time, so nodes migrate between callers.
//
// ClhLock<Wait>           the lock, with per-caller ClhLock::Handle
// ClhObject<Seq, Wait>    a sequential object protected by a ClhLock (a
//                         CombiningObject, for benchmarks and tests)

#include <atomic>
#include <utility>

#include "weft/sync/combining.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/handle_base.hpp"
#include "weft/sync/detail/node_arena.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

template <WaitPolicy Wait = SpinWait>
class ClhLock {
  struct alignas(cache_line_size) Node {
    std::atomic<bool> locked{false};
  };

 public:
  // Per-caller state: the node to enqueue next and, while the lock is held,
  // the predecessor's node (which the caller adopts on unlock).
  class Handle : public detail::HandleBase<Handle, ClhLock> {
   public:
    Handle() = default;
    Handle(Handle&&) noexcept = default;
    Handle& operator=(Handle&&) noexcept = default;
    ~Handle() { this->release(); }

   private:
    friend class ClhLock;
    Handle(ClhLock* l, Node* n) : detail::HandleBase<Handle, ClhLock>(l), node_(n) {}
    Node* node_ = nullptr;
    Node* pred_ = nullptr;
  };

  ClhLock() { tail_.store(arena_.make(), std::memory_order_relaxed); }
  ClhLock(const ClhLock&) = delete;
  ClhLock& operator=(const ClhLock&) = delete;

  Handle handle() { return Handle(this, arena_.acquire()); }

  void lock(Handle& h) noexcept {
    h.node_->locked.store(true, std::memory_order_relaxed);
    Node* pred = tail_.exchange(h.node_, std::memory_order_acq_rel);
    wait_until<Wait>([&] { return !pred->locked.load(std::memory_order_acquire); });
    h.pred_ = pred;
  }

  void unlock(Handle& h) noexcept {
    Node* mine = h.node_;
    h.node_ = h.pred_;  // the predecessor's node is ours now
    mine->locked.store(false, std::memory_order_release);
  }

 private:
  friend class detail::HandleBase<Handle, ClhLock>;
  void release_handle(Handle& h) noexcept { arena_.recycle(h.node_); }  // not held: no one waits on node_

  alignas(cache_line_size) std::atomic<Node*> tail_{nullptr};
  detail::NodeArena<Node> arena_;
};

// A sequential object behind a CLH lock.
template <SequentialObject Seq, WaitPolicy Wait = SpinWait>
class ClhObject {
 public:
  using Sequential = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;
  using Handle = typename ClhLock<Wait>::Handle;

  ClhObject() : ClhObject(Seq{}) {}
  explicit ClhObject(Seq seq, CombiningConfig = {}) : seq_(std::move(seq)) {}

  Handle handle() { return lock_.handle(); }

  Result apply(Handle& h, const Op& op) {
    lock_.lock(h);
    Result r = seq_.apply(op);
    lock_.unlock(h);
    return r;
  }

  Seq& unsafe_object() noexcept { return seq_; }

 private:
  ClhLock<Wait> lock_;
  alignas(cache_line_size) Seq seq_;
};

}  // namespace weft::sync
