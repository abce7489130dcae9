#pragma once
// DSM-Synch (Fatourou & Kallimanis, PPoPP 2012, Algorithm 2; listed in the
// Osci paper's Table 1/Table 2). The variant of CC-Synch for machines without
// coherent caches: every caller spins on a node it owns. Each caller owns two
// nodes and alternates between them, so the node a combiner may still read
// after releasing its owner is never the one the owner is writing. Tail is
// NULL when no request is pending; the last combiner CASes it back to NULL.

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
class DSMSynch {
 public:
  using Sequential = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;

 private:
  struct alignas(cache_line_size) Node {
    std::atomic<Node*> next{nullptr};
    std::atomic<bool> wait{false};
    bool completed = false;
    Op op{};
    Result ret{};
  };

 public:
  // Per-caller state: the caller's two nodes and the toggle between them.
  // On destruction the nodes are retired, not reused: a combiner or Tail may
  // still point at the last one (the two-node argument needs the owner's next
  // operations), so they live until the object dies.
  class Handle : public detail::HandleBase<Handle, DSMSynch> {
   public:
    Handle() = default;
    Handle(Handle&&) noexcept = default;
    Handle& operator=(Handle&&) noexcept = default;
    ~Handle() { this->release(); }

   private:
    friend class DSMSynch;
    Handle(DSMSynch* obj, Node* a, Node* b) : detail::HandleBase<Handle, DSMSynch>(obj, &obj->bound_), nodes_{a, b} {}
    Node* nodes_[2] = {nullptr, nullptr};
    unsigned toggle_ = 0;
  };

  DSMSynch() : DSMSynch(Seq{}) {}
  explicit DSMSynch(Seq seq, CombiningConfig cfg = {}) : seq_(std::move(seq)), bound_(cfg.max_combine) {}
  DSMSynch(const DSMSynch&) = delete;
  DSMSynch& operator=(const DSMSynch&) = delete;

  Handle handle() {
    Node* a = arena_.make();
    Node* b = arena_.make();
    return Handle(this, a, b);
  }

  Result apply(Handle& h, const Op& op) {
    h.toggle_ ^= 1u;  // lines 4-5
    Node* my = h.nodes_[h.toggle_];
    my->next.store(nullptr, std::memory_order_relaxed);  // lines 6-9
    my->wait.store(true, std::memory_order_relaxed);
    my->completed = false;
    my->op = op;
    Node* pred = tail_.exchange(my, std::memory_order_acq_rel);  // line 10
    std::uint64_t pauses = 0;
    if (pred != nullptr) {                                        // line 11
      pred->next.store(my, std::memory_order_release);            // line 12
      pauses = wait_until<Wait>([&] { return !my->wait.load(std::memory_order_acquire); });  // line 13
      if (my->completed) return my->ret;                          // line 14
    }
    // Combiner (lines 16-31).
    detail::CombineRound round(stats_);
    round.waited<Wait>(pauses);
    const std::size_t h_bound = bound_.get();
    std::size_t counter = 0;
    Node* p = my;
    Node* pn;
    for (;;) {
      ++counter;
      p->ret = seq_.apply(p->op);
      p->completed = true;
      p->wait.store(false, std::memory_order_release);
      pn = p->next.load(std::memory_order_acquire);
      // Stop at the end of the list, before the last node (whose owner will
      // find Tail pointing at it), or after h requests (line 22).
      if (pn == nullptr || pn->next.load(std::memory_order_acquire) == nullptr || counter >= h_bound) break;
      p = pn;
    }
    round.served(counter);
    if (pn == nullptr) {  // line 25
      Node* expected = p;
      if (tail_.load(std::memory_order_relaxed) == p &&
          tail_.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel,
                                        std::memory_order_relaxed)) {
        return my->ret;  // line 26: the list is empty again
      }
      // Someone swapped Tail but has not linked its node yet (line 27).
      wait_until<Wait>([&] { return (pn = p->next.load(std::memory_order_acquire)) != nullptr; });
    }
    pn->wait.store(false, std::memory_order_release);  // line 29: pn's owner combines next
    return my->ret;
  }

  CombiningStats stats() const noexcept { return stats_.get(); }
  Seq& unsafe_object() noexcept { return seq_; }

 private:
  friend class detail::HandleBase<Handle, DSMSynch>;
  void release_handle(Handle&) noexcept {}  // the nodes are retired (see Handle)

  alignas(cache_line_size) std::atomic<Node*> tail_{nullptr};
  alignas(cache_line_size) Seq seq_;
  detail::CombineBound bound_;
  detail::StatsCounter stats_;
  detail::NodeArena<Node> arena_;
};

}  // namespace weft::sync
