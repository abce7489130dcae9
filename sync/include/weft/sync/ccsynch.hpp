#pragma once
// CC-Synch (Fatourou & Kallimanis, "Revisiting the combining synchronization
// technique", PPoPP 2012, Algorithm 1; the Osci paper's main baseline, §1-2).
//
// One list of announcement nodes doubles as a CLH-style queue lock. A caller
// swaps its spare node into Tail, writes its request into the node it got
// back (the old Tail), links the two and waits on that node. The first waiter
// whose node is not completed when released becomes the combiner: it walks
// the list applying requests (at most h of them) and releases each owner,
// then hands the combiner role to the first unserved node. One Swap per
// request; a caller's spare node migrates to the next caller.

#include <atomic>
#include <cstddef>
#include <utility>

#include "weft/sync/combining.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/handle_base.hpp"
#include "weft/sync/detail/node_arena.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

template <SequentialObject Seq, WaitPolicy Wait = SpinWait>
class CCSynch {
 public:
  using Sequential = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;

 private:
  struct alignas(cache_line_size) Node {
    std::atomic<Node*> next{nullptr};
    std::atomic<bool> wait{false};  // "locked" in the paper
    bool completed = false;         // written before wait.store(false, release)
    Op op{};                        // written before next.store(release) by the owner
    Result ret{};                   // written before wait.store(false, release) by the combiner
  };

 public:
  // Per-caller state: the caller's spare node.
  class Handle : public detail::HandleBase<Handle, CCSynch> {
   public:
    Handle() = default;
    Handle(Handle&&) noexcept = default;
    Handle& operator=(Handle&&) noexcept = default;
    ~Handle() { this->release(); }

   private:
    friend class CCSynch;
    Handle(CCSynch* obj, Node* n) : detail::HandleBase<Handle, CCSynch>(obj, &obj->bound_), node_(n) {}
    Node* node_ = nullptr;
  };

  CCSynch() : CCSynch(Seq{}) {}
  explicit CCSynch(Seq seq, CombiningConfig cfg = {})
      : seq_(std::move(seq)), bound_(cfg.max_combine) {
    tail_.store(arena_.make(), std::memory_order_relaxed);  // dummy, wait == false
  }
  CCSynch(const CCSynch&) = delete;
  CCSynch& operator=(const CCSynch&) = delete;

  Handle handle() { return Handle(this, arena_.acquire()); }

  Result apply(Handle& h, const Op& op) {
    // Algorithm 1 of CC-Synch (line numbers of the PPoPP'12 pseudocode).
    Node* next = h.node_;
    next->next.store(nullptr, std::memory_order_relaxed);  // lines 4-6
    next->wait.store(true, std::memory_order_relaxed);
    next->completed = false;
    Node* cur = tail_.exchange(next, std::memory_order_acq_rel);  // line 7
    cur->op = op;                                                  // line 8
    cur->next.store(next, std::memory_order_release);              // line 9
    h.node_ = cur;                                                 // line 10

    const std::uint64_t pauses = wait_until<Wait>([&] { return !cur->wait.load(std::memory_order_acquire); });  // line 11
    if (cur->completed) return cur->ret;  // lines 12-13: served by a combiner

    // Combiner (lines 14-23).
    detail::CombineRound round(stats_);
    round.waited<Wait>(pauses);
    const std::size_t h_bound = bound_.get();
    std::size_t counter = 0;
    Node* p = cur;
    Node* pn;
    while ((pn = p->next.load(std::memory_order_acquire)) != nullptr && counter < h_bound) {
      ++counter;
      p->ret = seq_.apply(p->op);
      p->completed = true;
      p->wait.store(false, std::memory_order_release);  // p's owner may now reuse p
      p = pn;
    }
    round.served(counter);  // before the hand-off: one writer at a time
    p->wait.store(false, std::memory_order_release);  // line 22: p's owner is the next combiner
    return cur->ret;
  }

  CombiningStats stats() const noexcept { return stats_.get(); }
  // The sequential object; only while no operation is in progress.
  Seq& unsafe_object() noexcept { return seq_; }

 private:
  friend class detail::HandleBase<Handle, CCSynch>;
  void release_handle(Handle& h) noexcept { arena_.recycle(h.node_); }  // after apply() returns the node is ours alone

  alignas(cache_line_size) std::atomic<Node*> tail_{nullptr};
  alignas(cache_line_size) Seq seq_;
  detail::CombineBound bound_;
  detail::StatsCounter stats_;
  detail::NodeArena<Node> arena_;
};

}  // namespace weft::sync
