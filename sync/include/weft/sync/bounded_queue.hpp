#pragma once
// A sequential FIFO queue with fixed capacity (a ring buffer allocated once,
// at construction), to be wrapped by a combining object: operations never
// allocate. Operations are values (QueueOp) so that they can be announced in
// combining nodes and recorded in linearizability histories.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <type_traits>
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

namespace detail {

// The ring buffer that BoundedQueue and InlineQueue share. Slots is the
// storage: std::unique_ptr<T[]> (allocated here) or an inline array T[N];
// Index is the type of the capacity and the counters.
template <class T, class Slots, class Index>
class RingQueue {
 public:
  using Op = QueueOp<T>;
  using Result = QueueResult<T>;

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

 protected:
  explicit RingQueue(Index capacity) : cap_(capacity) {
    if constexpr (!std::is_array_v<Slots>) slots_ = std::make_unique<T[]>(capacity);
  }

  Index cap_;
  Index head_ = 0;
  Index size_ = 0;
  Slots slots_{};
};

}  // namespace detail

template <class T>
class BoundedQueue : public detail::RingQueue<T, std::unique_ptr<T[]>, std::size_t> {
 public:
  explicit BoundedQueue(std::size_t capacity = 1024)
      : detail::RingQueue<T, std::unique_ptr<T[]>, std::size_t>(capacity) {
    if (capacity == 0) throw std::invalid_argument("BoundedQueue capacity must be > 0");
  }
};

// The same queue stored inline, with room for MaxCapacity elements and a
// capacity (<= MaxCapacity) chosen at construction: trivially copyable when T
// is, for constructions that copy the state (PSim, LockFreeObject-style
// copies). It tells PSim which bytes are live (the header and the occupied
// slots), so a copy costs O(size), not O(MaxCapacity).
template <class T, std::size_t MaxCapacity>
class InlineQueue : public detail::RingQueue<T, T[MaxCapacity], std::uint32_t> {
  static_assert(MaxCapacity > 0 && MaxCapacity <= 0xFFFFFFFFu);

 public:
  explicit InlineQueue(std::size_t capacity = MaxCapacity)
      : detail::RingQueue<T, T[MaxCapacity], std::uint32_t>(static_cast<std::uint32_t>(capacity)) {
    if (capacity == 0 || capacity > MaxCapacity)
      throw std::invalid_argument("InlineQueue capacity must be in 1..MaxCapacity");
  }

  // PSim: the three header words come first; then the occupied slots (one or
  // two ranges). Clamped, since PSim may call it on a torn copy.
  static constexpr std::size_t psim_header_bytes = 3 * sizeof(std::uint32_t);
  template <class F>
  void psim_live_ranges(F&& range) const {
    const std::size_t cap = this->cap_ == 0 || this->cap_ > MaxCapacity ? MaxCapacity : this->cap_;
    const std::size_t head = this->head_ % cap;
    const std::size_t n = this->size_ < cap ? this->size_ : cap;
    const std::size_t first = n < cap - head ? n : cap - head;
    if (first) range(offset_of(head), first * sizeof(T));
    if (n > first) range(offset_of(0), (n - first) * sizeof(T));
  }

 private:
  std::size_t offset_of(std::size_t i) const noexcept {
    return static_cast<std::size_t>(reinterpret_cast<const char*>(&this->slots_[i]) -
                                    reinterpret_cast<const char*>(this));
  }
};

}  // namespace weft::sync
