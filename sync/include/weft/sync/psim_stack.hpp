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
#include "weft/sync/psim.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

template <class T, std::size_t MaxCapacity = 1024, WaitPolicy Wait = YieldWait>
class PSimStack {
 public:
  using Sequential = InlineStack<T, MaxCapacity>;
  using Object = PSim<Sequential, Wait>;
  using Op = typename Sequential::Op;
  using Result = typename Sequential::Result;
  using Handle = typename Object::Handle;

  explicit PSimStack(std::size_t capacity = MaxCapacity, PSimConfig cfg = {})
      : obj_(Sequential(capacity), cfg), capacity_(capacity) {}
  PSimStack(std::size_t capacity, CombiningConfig) : PSimStack(capacity) {}
  PSimStack(const PSimStack&) = delete;
  PSimStack& operator=(const PSimStack&) = delete;

  Handle handle() { return obj_.handle(); }
  Result apply(Handle& h, const Op& op) { return obj_.apply(h, op); }

  // false when the stack is full.
  bool push(Handle& h, const T& v) { return apply(h, Op::push(v)).ok; }
  // std::nullopt when the stack is empty.
  std::optional<T> pop(Handle& h) { return detail::optional_value(apply(h, Op::pop())); }

  std::size_t capacity() const noexcept { return capacity_; }
  CombiningStats stats() const noexcept { return obj_.stats(); }
  Object& object() noexcept { return obj_; }

 private:
  Object obj_;
  std::size_t capacity_;
};

}  // namespace weft::sync
