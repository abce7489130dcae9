#pragma once
// PSimStack-x (Fatourou & Kallimanis, "Lock Oscillation", OPODIS 2017, §6:
// "Based on Osci and PSim-x, we derive implementations for concurrent stacks,
// called OsciStack and PSimStack-x") and, with
// PSimConfig{.yield_after_announce = false}, its PSim baseline (SimStack's
// shape: one PSim instance, since push and pop both touch the top).
//
// A bounded LIFO stack: the PSim state is an InlineStack (room for
// MaxCapacity elements, capacity fixed at construction); push fails iff the
// stack holds `capacity` elements, pop fails iff it is empty. Wait-free; no
// operation allocates. SimStack keeps the state small (a top pointer) by
// pushing nodes that each combiner allocates privately; here the elements
// are in the state itself and PSim copies only the occupied part, so an
// attempt costs O(size + n): meant for stacks that stay small (the paper's
// push/pop pairs), not for holding many elements. Not an alias of
// CombiningStack<T, PSimX>: CombiningStack's BoundedStack owns heap storage,
// which PSim cannot copy.
//
//   weft::sync::PSimStack<int, 256> s;
//   auto h = s.handle();
//   s.push(h, 1);
//   std::optional<int> top = s.pop(h);

#include <cstddef>
#include <optional>

#include "weft/sync/bounded_stack.hpp"
#include "weft/sync/combining.hpp"
#include "weft/sync/detail/optional_result.hpp"
#include "weft/sync/detail/psim_container.hpp"
#include "weft/sync/psim.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

template <class T, std::size_t MaxCapacity = 1024, WaitPolicy Wait = YieldWait>
class PSimStack : public detail::PSimContainer<InlineStack<T, MaxCapacity>, Wait> {
  using Base = detail::PSimContainer<InlineStack<T, MaxCapacity>, Wait>;

 public:
  using typename Base::Handle;
  using typename Base::Op;

  explicit PSimStack(std::size_t capacity = MaxCapacity, PSimConfig cfg = {}) : Base(capacity, cfg) {}
  PSimStack(std::size_t capacity, CombiningConfig) : PSimStack(capacity) {}

  // false when the stack is full.
  bool push(Handle& h, const T& v) { return this->apply(h, Op::push(v)).ok; }
  // std::nullopt when the stack is empty.
  std::optional<T> pop(Handle& h) { return detail::optional_value(this->apply(h, Op::pop())); }
};

}  // namespace weft::sync
