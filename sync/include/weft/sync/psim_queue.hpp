#pragma once
// PSimQueue-x (Fatourou & Kallimanis, "Lock Oscillation", OPODIS 2017, §6:
// "a version of SimQueue [SPAA 2011] that uses user level threads") and, with
// PSimConfig{.yield_after_announce = false}, its PSim baseline.
//
// A bounded FIFO queue simulated by ONE PSim instance whose state is an
// InlineQueue (a ring with room for MaxCapacity elements, capacity fixed at
// construction): enqueue fails iff the queue holds `capacity` elements,
// dequeue fails iff it is empty. Wait-free; no operation allocates (all pool
// copies are made at construction; PSim copies only the ring's occupied
// slots, so an attempt costs O(size + n)).
//
// How this differs from SimQueue, and why:
// - SimQueue runs two PSim instances, one for enqueuers (state: tail and the
//   last batch of new nodes) and one for dequeuers (state: head), over an
//   unbounded linked list whose nodes each combiner allocates privately and
//   never frees. PSim runs apply() speculatively, on private copies, in
//   several threads at once; the list makes that safe because a combiner
//   writes only nodes nobody else has seen yet. Without allocation and with
//   node reuse, that no longer holds: a delayed helper that links (or copies)
//   a batch it read long ago can overwrite storage that has since been
//   dequeued and reused, and splitting a bounded queue over two instances
//   also cannot decide "full" (or "empty") linearizably for a batch that
//   only partly fits, since the other end's counter is read before the SC
//   that linearizes the batch. So here both ends live in one state: exact
//   bounded semantics, no allocation, at the price of enqueuers and dequeuers
//   combining together (as PSimStack does in the paper) instead of in
//   parallel.
// - For the same reason this is not an alias of CombiningQueue<T, PSimX>:
//   CombiningQueue's two ends write a shared ring from inside apply(), which
//   only a mutually exclusive combiner may do (they are marked
//   `external_state` and PSim rejects them).
//
//   weft::sync::PSimQueue<std::uint64_t, 4096> q;      // PSimQueue-x, capacity 4096
//   auto h = q.handle();
//   q.enqueue(h, 7);
//   std::optional<std::uint64_t> v = q.dequeue(h);

#include <cstddef>
#include <optional>
#include <utility>

#include "weft/sync/bounded_queue.hpp"
#include "weft/sync/combining.hpp"
#include "weft/sync/psim.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

template <class T, std::size_t MaxCapacity = 1024, WaitPolicy Wait = YieldWait>
class PSimQueue {
 public:
  using Sequential = InlineQueue<T, MaxCapacity>;
  using Object = PSim<Sequential, Wait>;
  using Op = QueueOp<T>;
  using Result = QueueResult<T>;
  using Handle = typename Object::Handle;

  explicit PSimQueue(std::size_t capacity = MaxCapacity, PSimConfig cfg = {}) : obj_(Sequential(capacity), cfg), capacity_(capacity) {}
  PSimQueue(std::size_t capacity, CombiningConfig) : PSimQueue(capacity) {}
  PSimQueue(const PSimQueue&) = delete;
  PSimQueue& operator=(const PSimQueue&) = delete;

  Handle handle() { return obj_.handle(); }
  // false when the queue is full.
  bool enqueue(Handle& h, const T& v) { return obj_.apply(h, Op::enqueue(v)).ok; }
  // std::nullopt when the queue is empty.
  std::optional<T> dequeue(Handle& h) {
    Result r = obj_.apply(h, Op::dequeue());
    if (!r.ok) return std::nullopt;
    return std::optional<T>(std::move(r.value));
  }
  Result apply(Handle& h, const Op& op) { return obj_.apply(h, op); }

  std::size_t capacity() const noexcept { return capacity_; }
  CombiningStats stats() const noexcept { return obj_.stats(); }
  Object& object() noexcept { return obj_; }

 private:
  Object obj_;
  std::size_t capacity_;
};

}  // namespace weft::sync
