#pragma once
// A failed-or-value result of a bounded container operation (QueueResult,
// StackResult: `bool ok; T value;`) as the std::optional that dequeue() and
// pop() of the concurrent queues and stacks return.

#include <optional>
#include <utility>

namespace weft::sync::detail {

template <class R>
auto optional_value(R r) -> std::optional<decltype(r.value)> {
  if (!r.ok) return std::nullopt;
  return std::optional<decltype(r.value)>(std::move(r.value));
}

}  // namespace weft::sync::detail
