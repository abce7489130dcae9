#pragma once
// A sequential LIFO stack with fixed capacity (allocated once, at
// construction), to be wrapped by a combining object: operations never
// allocate. Operations are values (StackOp) for announcement and histories.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>

namespace weft::sync {

template <class T>
struct StackOp {
  enum class Kind : std::uint8_t { push, pop };
  Kind kind = Kind::pop;
  T value{};  // push only
  static StackOp push(T v) { return {Kind::push, std::move(v)}; }
  static StackOp pop() { return {Kind::pop, T{}}; }
  friend bool operator==(const StackOp&, const StackOp&) = default;
};

// push: ok == false when full. pop: ok == false when empty, else value.
template <class T>
struct StackResult {
  bool ok = false;
  T value{};
  friend bool operator==(const StackResult&, const StackResult&) = default;
};

template <class T>
class BoundedStack {
 public:
  using Op = StackOp<T>;
  using Result = StackResult<T>;

  explicit BoundedStack(std::size_t capacity = 1024)
      : cap_(capacity), slots_(std::make_unique<T[]>(capacity)) {
    if (capacity == 0) throw std::invalid_argument("BoundedStack capacity must be > 0");
  }

  Result apply(const Op& op) {
    if (op.kind == Op::Kind::push) return {push(op.value), T{}};
    Result r;
    r.ok = pop(r.value);
    return r;
  }

  bool push(const T& v) {
    if (size_ == cap_) return false;
    slots_[size_++] = v;
    return true;
  }
  bool pop(T& out) {
    if (size_ == 0) return false;
    out = std::move(slots_[--size_]);
    return true;
  }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return cap_; }

 private:
  std::size_t cap_;
  std::unique_ptr<T[]> slots_;
  std::size_t size_ = 0;
};

}  // namespace weft::sync
