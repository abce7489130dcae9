#pragma once
// A FIFO queue built from two combining objects, as the Osci paper's
// OsciQueue (§6) and CC-Queue (Fatourou & Kallimanis PPoPP'12) do after
// Michael & Scott's two-lock queue: enqueuers combine on one instance,
// dequeuers on another, so the two ends proceed in parallel. The "locks" of
// the two-lock queue are the two combiner roles; what they protect is a
// fixed-capacity ring (allocated at construction, so no operation
// allocates) with one writer end per role — the enqueue combiner is its only
// producer and the dequeue combiner its only consumer.
//
//   weft::sync::CombiningQueue<std::uint64_t> q(4096);              // CC-Synch
//   weft::sync::CombiningQueue<std::uint64_t, MyAlias> q2(4096);     // other algorithm:
//   template <class S> using MyAlias = weft::sync::DSMSynch<S, weft::sync::YieldWait>;
//
// It is itself a CombiningObject over QueueOp/QueueResult. OsciQueue (below)
// is this queue with Osci as the combiner. PSim cannot be the combiner: the
// ends write the shared ring from apply(), which PSim would run
// speculatively in several threads (see psim_queue.hpp for PSimQueue-x).

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "weft/sync/bounded_queue.hpp"
#include "weft/sync/ccsynch.hpp"
#include "weft/sync/combining.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/optional_result.hpp"
#include "weft/sync/osci.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {
namespace detail {

template <class S>
using DefaultCombiner = CCSynch<S, SpinWait>;

// Single-producer single-consumer ring; head and tail are published with
// release and read with acquire, so each end's combiner sees the slots the
// other end wrote.
template <class T>
struct SpscRing {
  explicit SpscRing(std::size_t capacity) : cap(capacity), slots(std::make_unique<T[]>(capacity)) {
    if (capacity == 0) throw std::invalid_argument("CombiningQueue capacity must be > 0");
  }
  const std::size_t cap;
  std::unique_ptr<T[]> slots;
  alignas(cache_line_size) std::atomic<std::size_t> head{0};  // written by the dequeue combiner
  alignas(cache_line_size) std::atomic<std::size_t> tail{0};  // written by the enqueue combiner
};

// The enqueue end as a sequential object (run by one combiner at a time).
template <class T>
struct EnqueueEnd {
  using Op = T;
  using Result = bool;  // false: full
  // apply() writes the shared ring: needs a mutually exclusive combiner
  // (PSimState rejects it).
  static constexpr bool external_state = true;
  SpscRing<T>* ring = nullptr;
  bool apply(const T& v) {
    const std::size_t t = ring->tail.load(std::memory_order_relaxed);
    if (t - ring->head.load(std::memory_order_acquire) == ring->cap) return false;
    ring->slots[t % ring->cap] = v;
    ring->tail.store(t + 1, std::memory_order_release);  // linearization point
    return true;
  }
};

struct DequeueRequest {
  friend bool operator==(const DequeueRequest&, const DequeueRequest&) = default;
};

// The dequeue end as a sequential object.
template <class T>
struct DequeueEnd {
  using Op = DequeueRequest;
  using Result = QueueResult<T>;
  static constexpr bool external_state = true;  // see EnqueueEnd
  SpscRing<T>* ring = nullptr;
  Result apply(const DequeueRequest&) {
    const std::size_t h = ring->head.load(std::memory_order_relaxed);
    if (h == ring->tail.load(std::memory_order_acquire)) return {};  // empty
    Result r{true, std::move(ring->slots[h % ring->cap])};
    ring->head.store(h + 1, std::memory_order_release);  // linearization point
    return r;
  }
};

}  // namespace detail

template <class T, template <class> class Combiner = detail::DefaultCombiner>
class CombiningQueue {
 public:
  using Sequential = BoundedQueue<T>;  // the specification it implements
  using Op = QueueOp<T>;
  using Result = QueueResult<T>;
  using EnqueueObject = Combiner<detail::EnqueueEnd<T>>;
  using DequeueObject = Combiner<detail::DequeueEnd<T>>;

  // Per-caller state: one handle for each of the two combining instances.
  class Handle {
   public:
    Handle() = default;

   private:
    friend class CombiningQueue;
    Handle(typename EnqueueObject::Handle e, typename DequeueObject::Handle d)
        : enq_(std::move(e)), deq_(std::move(d)) {}
    typename EnqueueObject::Handle enq_;
    typename DequeueObject::Handle deq_;
  };

  explicit CombiningQueue(std::size_t capacity = 1024, CombiningConfig cfg = {})
      : ring_(capacity),
        enq_(detail::EnqueueEnd<T>{&ring_}, cfg),
        deq_(detail::DequeueEnd<T>{&ring_}, cfg) {}
  CombiningQueue(const CombiningQueue&) = delete;
  CombiningQueue& operator=(const CombiningQueue&) = delete;

  Handle handle() { return Handle(enq_.handle(), deq_.handle()); }

  // false when the queue is full.
  bool enqueue(Handle& h, const T& v) { return enq_.apply(h.enq_, v); }
  // std::nullopt when the queue is empty.
  std::optional<T> dequeue(Handle& h) { return detail::optional_value(deq_.apply(h.deq_, detail::DequeueRequest{})); }

  Result apply(Handle& h, const Op& op) {
    if (op.kind == Op::Kind::enqueue) return {enqueue(h, op.value), T{}};
    return deq_.apply(h.deq_, detail::DequeueRequest{});
  }

  std::size_t capacity() const noexcept { return ring_.cap; }
  EnqueueObject& enqueue_object() noexcept { return enq_; }
  DequeueObject& dequeue_object() noexcept { return deq_; }

 private:
  detail::SpscRing<T> ring_;
  EnqueueObject enq_;
  DequeueObject deq_;
};

// OsciQueue (Osci paper, §6): the two-lock queue shape with two Osci
// instances, waiting by weft's fair yield.
template <class S>
using OsciYieldCombiner = Osci<S, YieldWait>;
template <class T>
using OsciQueue = CombiningQueue<T, OsciYieldCombiner>;

}  // namespace weft::sync
