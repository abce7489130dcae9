#pragma once
// What PSimQueue and PSimStack share: ONE PSim instance whose state is a
// bounded inline container (InlineQueue, InlineStack: room for MaxCapacity
// elements, capacity fixed at construction), with the CombiningObject
// surface (handle, apply) and the container's capacity. The public classes
// add their operations (enqueue/dequeue, push/pop) on top of apply().

#include <cstddef>

#include "weft/sync/combining.hpp"
#include "weft/sync/psim.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync::detail {

template <class Seq, WaitPolicy Wait>
class PSimContainer {
 public:
  using Sequential = Seq;
  using Object = PSim<Sequential, Wait>;
  using Op = typename Sequential::Op;
  using Result = typename Sequential::Result;
  using Handle = typename Object::Handle;

  PSimContainer(const PSimContainer&) = delete;
  PSimContainer& operator=(const PSimContainer&) = delete;

  Handle handle() { return obj_.handle(); }
  Result apply(Handle& h, const Op& op) { return obj_.apply(h, op); }

  std::size_t capacity() const noexcept { return capacity_; }
  CombiningStats stats() const noexcept { return obj_.stats(); }
  Object& object() noexcept { return obj_; }

 protected:
  PSimContainer(std::size_t capacity, PSimConfig cfg) : obj_(Sequential(capacity), cfg), capacity_(capacity) {}

 private:
  Object obj_;
  std::size_t capacity_;
};

}  // namespace weft::sync::detail
