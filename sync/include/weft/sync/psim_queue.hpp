#pragma once
// PSimQueue-x (Fatourou & Kallimanis, "Lock Oscillation", OPODIS 2017, §6:
// "a version of SimQueue [SPAA 2011] that uses user level threads") and, with
// PSimConfig{.yield_after_announce = false}, SimQueue itself (Fatourou &
// Kallimanis, "A highly-efficient wait-free universal construction", SPAA
// 2011, §5): an unbounded FIFO queue.
//
// SimQueue's design: a singly linked list whose first node is a dummy, and
// two PSim instances (detail/psim_engine.hpp), so that enqueuers and
// dequeuers combine in parallel and an operation copies a few words, never
// the queue:
// - the enqueuers' state is {tail, first, last}. A combiner copies it, first
//   completes the link the copied state still asks for (first->next = last,
//   in case its installer has not done it yet), then serves every active
//   enqueue by appending one new node to a private chain (ours first), and
//   tries to install {tail: the chain's last node, first: the old tail,
//   last: the chain's first node}. After a successful SC it links the chain
//   after the old tail; anyone who needs the link before that helps. So at
//   most the newest batch is ever unlinked;
// - the dequeuers' state is {head}. A combiner serves each active dequeue by
//   moving head to head->next and returning the value stored there (that
//   node becomes the dummy); when head->next is null it first links the
//   enqueuers' pending batch (read from their installed state, validated),
//   and reports "empty" only if head->next is still null.
// Linearization: an enqueue at the SC that installs its batch; the dequeues
// of a successful attempt in the combiner's order, each when it reads its
// node (or, for "empty", when it re-reads null after the helping step: every
// enqueue installed by then is linked), all within that attempt, during
// which the dequeuers' state does not change.
//
// Node reuse (SimQueue never gives dequeued nodes back; here the nodes are
// pooled, detail/psim_queue_nodes.hpp, and nothing is allocated in steady
// state). A dequeue combiner whose SC succeeded retires the nodes its state
// moved head past: they are unreachable from the installed states of both
// instances (a node is passed only once its next is linked, so it is not
// the enqueuers' tail), and any later reader of one is stale:
// - combiners of either instance read nodes only from a copy of a state that
//   was installed when they validated it; a dequeue combiner holding a head
//   that has since been retired will fail its SC (the dequeuers' state
//   changed when it was retired), so what it read from reused nodes is
//   discarded; the values it reads are atomic words and every `next` it
//   follows is a node of the pool (or null), so those reads are harmless;
// - the only shared writes to nodes are the links, and a link is a CAS from
//   the unlinked mark of the generation recorded with `first` in the state
//   that asks for it: it fails once that node was linked or recycled.
// Node addresses stay valid for the queue's life (blocks are freed with it),
// so no reader ever touches freed memory. This is PSim's own seqlock
// argument (SP's version moves whenever a state is installed) carried over
// to the nodes; it needs no epochs or hazard pointers, and ULTs that are
// switched out in the middle of an attempt simply fail it.
//
// Progress: the combining is PSim's, wait-free (at most two attempts per
// operation, detail/psim_engine.hpp). The node pool adds bounded work to an
// attempt (a batch handover scans at most 2n + 8 entries) and calls
// operator new only when no recycled node is at hand: while the queue grows
// beyond its previous peak, or right after start-up. So an operation is
// wait-free once the pool covers the queue's largest size, and waits only in
// the allocator before that (SimQueue's nodes always come from the
// allocator). Memory: the nodes of the largest queue length reached, plus
// at most 2 x 64 per slot and 64 per exchange entry of free nodes
// (nodes_allocated()); no bound on the queue's length but memory.
//
// T must be trivially copyable (nodes and responses hold it as atomic words).
//
//   weft::sync::PSimQueue<std::uint64_t> q;      // PSimQueue-x
//   auto h = q.handle();
//   q.enqueue(h, 7);
//   std::optional<std::uint64_t> v = q.dequeue(h);

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>

#include "weft/sync/bounded_queue.hpp"
#include "weft/sync/combining.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/optional_result.hpp"
#include "weft/sync/detail/psim_engine.hpp"
#include "weft/sync/detail/psim_queue_nodes.hpp"
#include "weft/sync/detail/psim_slots.hpp"
#include "weft/sync/psim_config.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

template <class T, WaitPolicy Wait = YieldWait>
class PSimQueue {
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "PSimQueue: elements are copied as words; T must be trivially copyable");

 public:
  // The specification: a FIFO queue whose enqueue never fails (a
  // BoundedQueue whose capacity no run reaches).
  using Sequential = BoundedQueue<T>;
  using Op = QueueOp<T>;
  using Result = QueueResult<T>;
  static constexpr std::size_t default_max_handles = 128;

  // Per-caller state: one slot, the same in both instances.
  using Handle = detail::SlotHandle<PSimQueue>;

  explicit PSimQueue(PSimConfig cfg = {})
      : slots_(cfg.max_handles ? cfg.max_handles : default_max_handles),
        ctx_(std::make_unique<SlotContext[]>(slots_.size())),
        pool_(slots_.size()),
        guard_(pool_.take(0)),
        enq_(enq_sim_, EnqState{guard_, guard_->gen, nullptr, 0, nullptr}, slots_.size(), cfg.yield_after_announce),
        deq_(deq_sim_, DeqState{guard_}, slots_.size(), cfg.yield_after_announce) {}
  PSimQueue(const PSimQueue&) = delete;
  PSimQueue& operator=(const PSimQueue&) = delete;

  // Takes a free slot; throws std::length_error when all max_handles are in use.
  Handle handle() {
    const std::size_t i = slots_.take("weft::sync::PSimQueue");
    enq_.slot_taken(i);
    deq_.slot_taken(i);
    return Handle(this, i);
  }

  void enqueue(Handle& h, const T& v) { enq_.apply(h.slot(), v); }
  // std::nullopt when the queue is empty.
  std::optional<T> dequeue(Handle& h) { return detail::optional_value(deq_.apply(h.slot(), Empty{})); }

  // The CombiningObject surface: an enqueue always succeeds (ok = true).
  Result apply(Handle& h, const Op& op) {
    if (op.kind == Op::Kind::enqueue) {
      enqueue(h, op.value);
      return {true, T{}};
    }
    return deq_.apply(h.slot(), Empty{});
  }

  // Both instances: rounds = successful SCs, requests = operations served.
  CombiningStats stats() const noexcept {
    const CombiningStats e = enq_.stats(), d = deq_.stats();
    return {e.rounds + d.rounds, e.requests + d.requests};
  }
  PSimStats enqueue_stats() const noexcept { return enq_.psim_stats(); }
  PSimStats dequeue_stats() const noexcept { return deq_.psim_stats(); }
  // List nodes ever allocated: the queue's memory, in nodes.
  std::size_t nodes_allocated() const noexcept { return pool_.allocated(); }
  std::size_t max_handles() const noexcept { return slots_.size(); }

 private:
  using Node = detail::QueueNode<T>;
  struct Empty {};

  struct EnqState {
    Node* tail;               // the last node
    std::uint64_t tail_gen;   // its generation
    Node* first;              // the tail before this state's batch: first->next = last is pending
    std::uint64_t first_gen;  // its generation when it was the tail
    Node* last;               // the first node of this state's batch
  };
  struct DeqState {
    Node* head;  // the dummy; the front element is in head->next
  };

  // What one combiner (by slot) is doing in its current attempt.
  struct alignas(cache_line_size) SlotContext {
    Node* chain_first = nullptr;  // enqueue: the private chain of new nodes
    Node* chain_last = nullptr;
    Node* old_head = nullptr;  // dequeue: head of the copied state
  };

  // The enqueuers' instance.
  struct EnqueueSim {
    using State = EnqState;
    using Op = T;
    using Result = Empty;
    PSimQueue* q;

    void begin_attempt(State& st, std::size_t me) {
      Node::link(st.first, st.first_gen, st.last);  // the copied state's batch, before ours
      q->ctx_[me].chain_first = q->ctx_[me].chain_last = nullptr;
    }
    Result apply(State&, const T& v, std::size_t me) {
      SlotContext& c = q->ctx_[me];
      Node* n = q->pool_.take(me);
      detail::psim::store_value(n->value, v);
      if (c.chain_last)
        c.chain_last->next.store(reinterpret_cast<std::uintptr_t>(n), std::memory_order_relaxed);
      else
        c.chain_first = n;
      c.chain_last = n;
      return {};
    }
    void end_attempt(State& st, std::size_t me) {
      const SlotContext& c = q->ctx_[me];
      st.first = st.tail;
      st.first_gen = st.tail_gen;
      st.last = c.chain_first;
      st.tail = c.chain_last;
      st.tail_gen = c.chain_last->gen;
    }
    void committed(const State& st, std::size_t me) {
      Node::link(st.first, st.first_gen, st.last);
      q->ctx_[me].chain_first = q->ctx_[me].chain_last = nullptr;
    }
    void abandoned(std::size_t me) {  // the chain was never visible: back to the pool
      SlotContext& c = q->ctx_[me];
      for (Node* n = c.chain_first; n != nullptr;) {
        Node* next = n == c.chain_last ? nullptr : reinterpret_cast<Node*>(n->next.load(std::memory_order_relaxed));
        q->pool_.put(me, n);
        n = next;
      }
      c.chain_first = c.chain_last = nullptr;
    }
  };

  // The dequeuers' instance.
  struct DequeueSim {
    using State = DeqState;
    using Op = Empty;
    using Result = QueueResult<T>;
    PSimQueue* q;

    void begin_attempt(State& st, std::size_t me) { q->ctx_[me].old_head = st.head; }
    Result apply(State& st, const Empty&, std::size_t) {
      Node* next = st.head->next_node();
      if (next == nullptr) {
        q->help_link();
        next = st.head->next_node();
        if (next == nullptr) return {};  // empty
      }
      Result r{true, T{}};
      detail::psim::load_value(r.value, next->value);
      st.head = next;
      return r;
    }
    void committed(const State& st, std::size_t me) {
      // Retire the nodes head moved past: ours alone (the SC that unlinked
      // them from the dequeuers' state was ours).
      for (Node* n = q->ctx_[me].old_head; n != st.head;) {
        Node* next = n->next_node();
        q->pool_.put(me, n);
        n = next;
      }
    }
  };

  // A dequeuer found the list's end: link the enqueuers' newest batch. If
  // their state changes while it is read, its installer linked the batch
  // that was current (see the linearization note above): nothing to do.
  void help_link() {
    EnqState s;
    if (enq_.read_state(s)) Node::link(s.first, s.first_gen, s.last);
  }

  friend class detail::HandleBase<Handle, PSimQueue>;
  void release_handle(Handle& h) noexcept { slots_.give_back(h.slot()); }

  detail::PSimSlots slots_;
  std::unique_ptr<SlotContext[]> ctx_;
  detail::QueueNodePool<Node> pool_;
  Node* guard_;  // the first dummy
  EnqueueSim enq_sim_{this};
  DequeueSim deq_sim_{this};
  detail::PSimEngine<EnqueueSim, Wait> enq_;
  detail::PSimEngine<DequeueSim, Wait> deq_;
};

}  // namespace weft::sync
