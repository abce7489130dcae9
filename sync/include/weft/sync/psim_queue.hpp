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

#include "weft/sync/bounded_queue.hpp"
#include "weft/sync/combining.hpp"
#include "weft/sync/detail/optional_result.hpp"
#include "weft/sync/detail/psim_container.hpp"
#include "weft/sync/psim.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

template <class T, std::size_t MaxCapacity = 1024, WaitPolicy Wait = YieldWait>
class PSimQueue : public detail::PSimContainer<InlineQueue<T, MaxCapacity>, Wait> {
  using Base = detail::PSimContainer<InlineQueue<T, MaxCapacity>, Wait>;

 public:
  using typename Base::Handle;
  using typename Base::Op;

  explicit PSimQueue(std::size_t capacity = MaxCapacity, PSimConfig cfg = {}) : Base(capacity, cfg) {}
  PSimQueue(std::size_t capacity, CombiningConfig) : PSimQueue(capacity) {}

  // false when the queue is full.
  bool enqueue(Handle& h, const T& v) { return this->apply(h, Op::enqueue(v)).ok; }
  // std::nullopt when the queue is empty.
  std::optional<T> dequeue(Handle& h) { return detail::optional_value(this->apply(h, Op::dequeue())); }
};

}  // namespace weft::sync
