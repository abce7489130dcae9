#pragma once
// A LIFO stack as one combining object over a fixed-capacity sequential stack
// (CC-Stack of Fatourou & Kallimanis PPoPP'12; OsciStack of the Osci paper,
// §6, is the same shape with Osci as the combiner). Push and pop both touch
// the top, so unlike the queue there is one instance.
//
//   weft::sync::CombiningStack<int> s(4096);   // CC-Synch; 2nd argument picks another algorithm
//   weft::sync::OsciStack<int> o(4096);        // Osci (YieldWait)
// PSimStack-x is in psim_stack.hpp: PSim copies its state, and BoundedStack
// owns heap storage.

#include <cstddef>
#include <optional>

#include "weft/sync/bounded_stack.hpp"
#include "weft/sync/ccsynch.hpp"
#include "weft/sync/combining.hpp"
#include "weft/sync/combining_queue.hpp"
#include "weft/sync/detail/optional_result.hpp"

namespace weft::sync {

template <class T, template <class> class Combiner = detail::DefaultCombiner>
class CombiningStack {
 public:
  using Object = Combiner<BoundedStack<T>>;
  using Sequential = BoundedStack<T>;
  using Op = StackOp<T>;
  using Result = StackResult<T>;
  using Handle = typename Object::Handle;

  explicit CombiningStack(std::size_t capacity = 1024, CombiningConfig cfg = {})
      : obj_(BoundedStack<T>(capacity), cfg) {}

  Handle handle() { return obj_.handle(); }
  // false when the stack is full.
  bool push(Handle& h, const T& v) { return obj_.apply(h, Op::push(v)).ok; }
  // std::nullopt when the stack is empty.
  std::optional<T> pop(Handle& h) { return detail::optional_value(obj_.apply(h, Op::pop())); }
  Result apply(Handle& h, const Op& op) { return obj_.apply(h, op); }
  Object& object() noexcept { return obj_; }

 private:
  Object obj_;
};

// OsciStack (Osci paper, §6): one Osci instance, waiting by fair yield.
// (OsciYieldCombiner is defined in combining_queue.hpp.)
template <class T>
using OsciStack = CombiningStack<T, OsciYieldCombiner>;

}  // namespace weft::sync
