#pragma once
// A sequential FIFO queue with fixed capacity (a ring buffer allocated once,
// at construction), to be wrapped by a combining object: operations never
// allocate. Operations are values (QueueOp) so that they can be announced in
// combining nodes and recorded in linearizability histories.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>

namespace weft::sync {

template <class T>
struct QueueOp {
  enum class Kind : std::uint8_t { enqueue, dequeue };
  Kind kind = Kind::dequeue;
  T value{};  // enqueue only
  static QueueOp enqueue(T v) { return {Kind::enqueue, std::move(v)}; }
  static QueueOp dequeue() { return {Kind::dequeue, T{}}; }
  friend bool operator==(const QueueOp&, const QueueOp&) = default;
};

// enqueue: ok == false when full. dequeue: ok == false when empty, else value.
template <class T>
struct QueueResult {
  bool ok = false;
  T value{};
  friend bool operator==(const QueueResult&, const QueueResult&) = default;
};

template <class T>
class BoundedQueue {
 public:
  using Op = QueueOp<T>;
  using Result = QueueResult<T>;

  explicit BoundedQueue(std::size_t capacity = 1024)
      : cap_(capacity), slots_(std::make_unique<T[]>(capacity)) {
    if (capacity == 0) throw std::invalid_argument("BoundedQueue capacity must be > 0");
  }

  Result apply(const Op& op) {
    if (op.kind == Op::Kind::enqueue) return {enqueue(op.value), T{}};
    Result r;
    r.ok = dequeue(r.value);
    return r;
  }

  bool enqueue(const T& v) {
    if (size_ == cap_) return false;
    slots_[(head_ + size_) % cap_] = v;
    ++size_;
    return true;
  }
  bool dequeue(T& out) {
    if (size_ == 0) return false;
    out = std::move(slots_[head_]);
    head_ = (head_ + 1) % cap_;
    --size_;
    return true;
  }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return cap_; }

 private:
  std::size_t cap_;
  std::unique_ptr<T[]> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace weft::sync
