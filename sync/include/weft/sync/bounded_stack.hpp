#pragma once
// A sequential LIFO stack with fixed capacity (allocated once, at
// construction), to be wrapped by a combining object: operations never
// allocate. Operations are values (StackOp) for announcement and histories.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <type_traits>
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

namespace detail {

// The array stack that BoundedStack and InlineStack share. Slots is the
// storage: std::unique_ptr<T[]> (allocated here) or an inline array T[N];
// Index is the type of the capacity and the size.
template <class T, class Slots, class Index>
class ArrayStack {
 public:
  using Op = StackOp<T>;
  using Result = StackResult<T>;

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

 protected:
  explicit ArrayStack(Index capacity) : cap_(capacity) {
    if constexpr (!std::is_array_v<Slots>) slots_ = std::make_unique<T[]>(capacity);
  }

  Index cap_;
  Index size_ = 0;
  Slots slots_{};
};

}  // namespace detail

template <class T>
class BoundedStack : public detail::ArrayStack<T, std::unique_ptr<T[]>, std::size_t> {
 public:
  explicit BoundedStack(std::size_t capacity = 1024)
      : detail::ArrayStack<T, std::unique_ptr<T[]>, std::size_t>(capacity) {
    if (capacity == 0) throw std::invalid_argument("BoundedStack capacity must be > 0");
  }
};

// The same stack stored inline, with room for MaxCapacity elements and a
// capacity (<= MaxCapacity) chosen at construction: trivially copyable when T
// is, for PSim. Only the header and the occupied slots are live, so PSim
// copies O(size) bytes.
template <class T, std::size_t MaxCapacity>
class InlineStack : public detail::ArrayStack<T, T[MaxCapacity], std::uint32_t> {
  static_assert(MaxCapacity > 0 && MaxCapacity <= 0xFFFFFFFFu);

 public:
  explicit InlineStack(std::size_t capacity = MaxCapacity)
      : detail::ArrayStack<T, T[MaxCapacity], std::uint32_t>(static_cast<std::uint32_t>(capacity)) {
    if (capacity == 0 || capacity > MaxCapacity)
      throw std::invalid_argument("InlineStack capacity must be in 1..MaxCapacity");
  }

  // PSim: the two header words come first; then slots [0, size).
  static constexpr std::size_t psim_header_bytes = 2 * sizeof(std::uint32_t);
  template <class F>
  void psim_live_ranges(F&& range) const {
    const std::size_t n = this->size_ < MaxCapacity ? this->size_ : MaxCapacity;
    if (n) range(static_cast<std::size_t>(reinterpret_cast<const char*>(&this->slots_[0]) -
                                          reinterpret_cast<const char*>(this)),
                 n * sizeof(T));
  }
};

}  // namespace weft::sync
