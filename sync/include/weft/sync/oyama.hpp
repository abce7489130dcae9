#pragma once
// Oyama, Taura & Yonezawa's combining algorithm ("Executing parallel programs
// with synchronization bottlenecks efficiently", PDSIA 1999; the Osci paper's
// "OyamaAlg" baseline, Tables 1-2). A caller pushes its request node on a
// lock-free LIFO announcement list (CAS on Tail), then tries a test-and-set
// lock. The lock holder repeatedly detaches the whole list with a Swap and
// serves every request in it, until the list is empty or h requests were
// served. Waiters watch their node's completed flag and the lock; when the
// lock is free and their request is still pending, they try to take it.

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
class Oyama {
 public:
  using Sequential = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;

 private:
  struct alignas(cache_line_size) Node {
    Node* next = nullptr;  // written before the publishing CAS, read after the detaching Swap
    std::atomic<bool> completed{false};
    Op op{};
    Result ret{};
  };

 public:
  // Per-caller state: the caller's announcement node.
  class Handle : public detail::HandleBase<Handle, Oyama> {
   public:
    Handle() = default;
    Handle(Handle&&) noexcept = default;
    Handle& operator=(Handle&&) noexcept = default;
    ~Handle() { this->release(); }

   private:
    friend class Oyama;
    Handle(Oyama* obj, Node* n) : detail::HandleBase<Handle, Oyama>(obj, &obj->bound_), node_(n) {}
    Node* node_ = nullptr;
  };

  Oyama() : Oyama(Seq{}) {}
  explicit Oyama(Seq seq, CombiningConfig cfg = {}) : seq_(std::move(seq)), bound_(cfg.max_combine) {}
  Oyama(const Oyama&) = delete;
  Oyama& operator=(const Oyama&) = delete;

  Handle handle() { return Handle(this, arena_.acquire()); }

  Result apply(Handle& h, const Op& op) {
    Node* my = h.node_;
    my->op = op;
    my->completed.store(false, std::memory_order_relaxed);
    // Announce: push on the list (Table 2 variant: wait between CAS attempts).
    Node* t = tail_.load(std::memory_order_relaxed);
    for (;;) {
      my->next = t;
      if (tail_.compare_exchange_weak(t, my, std::memory_order_release, std::memory_order_relaxed)) break;
      Wait w;
      w.pause();
    }
    std::uint64_t pauses = 0;  // before this call takes the lock (trace)
    for (;;) {
      if (!lock_.load(std::memory_order_relaxed) && !lock_.exchange(true, std::memory_order_acquire)) {
        // Combiner. Our node is either still in the list (the first Swap
        // takes it) or was served by a previous lock holder.
        detail::CombineRound round(stats_);
        round.waited<Wait>(pauses);
        const std::size_t h_bound = bound_.get();
        std::size_t counter = 0;
        Node* p;
        while (counter < h_bound && (p = tail_.exchange(nullptr, std::memory_order_acquire)) != nullptr) {
          while (p != nullptr) {
            ++counter;
            Node* nx = p->next;
            p->ret = seq_.apply(p->op);
            p->completed.store(true, std::memory_order_release);  // p's owner may reuse p now
            p = nx;
          }
        }
        round.served(counter);
        lock_.store(false, std::memory_order_release);
        return my->ret;
      }
      pauses += wait_until<Wait>([&] {
        return my->completed.load(std::memory_order_acquire) || !lock_.load(std::memory_order_relaxed);
      });
      if (my->completed.load(std::memory_order_acquire)) return my->ret;
    }
  }

  CombiningStats stats() const noexcept { return stats_.get(); }
  Seq& unsafe_object() noexcept { return seq_; }

 private:
  friend class detail::HandleBase<Handle, Oyama>;
  void release_handle(Handle& h) noexcept { arena_.recycle(h.node_); }  // completed: no combiner references it

  alignas(cache_line_size) std::atomic<bool> lock_{false};
  alignas(cache_line_size) std::atomic<Node*> tail_{nullptr};
  alignas(cache_line_size) Seq seq_;
  detail::CombineBound bound_;
  detail::StatsCounter stats_;
  detail::NodeArena<Node> arena_;
};

}  // namespace weft::sync
