#pragma once
// The top-down frontier (internal): GAPBS's SlidingQueue and QueueBuffer. A
// queue of capacity n holds every vertex a search appends; the window
// [begin, end) is the current frontier, and slide_window() makes whatever
// was appended since the next one. Workers append through their own
// QueueBuffer, which reserves room in the queue with one fetch_add per
// flush (not per vertex).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <vector>

#include "weft/apps/graph/array.hpp"

namespace weft::graph::detail {

template <class T>
class SlidingQueue {
 public:
  explicit SlidingQueue(std::size_t capacity) : data_(capacity) {}

  // Serial append (the source vertex).
  void push_back(T value) { data_[tail_.fetch_add(1, std::memory_order_relaxed)] = value; }
  // Reserves `count` slots at the tail (any worker), returning the first.
  T* reserve(std::size_t count) { return data_.data() + tail_.fetch_add(count, std::memory_order_relaxed); }

  std::size_t window_begin() const noexcept { return begin_; }
  std::size_t window_end() const noexcept { return end_; }
  std::size_t size() const noexcept { return end_ - begin_; }
  bool empty() const noexcept { return begin_ == end_; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  const T* begin() const noexcept { return data_.data() + begin_; }
  const T* end() const noexcept { return data_.data() + end_; }

  // The vertices appended since the last slide become the window.
  void slide_window() noexcept {
    begin_ = end_;
    end_ = tail_.load(std::memory_order_relaxed);
  }
  void reset() noexcept {
    tail_.store(0, std::memory_order_relaxed);
    begin_ = end_ = 0;
  }

 private:
  Array<T> data_;
  std::atomic<std::size_t> tail_{0};
  std::size_t begin_ = 0, end_ = 0;
};

// One worker's appends to a SlidingQueue, flushed in batches.
template <class T>
class QueueBuffer {
 public:
  static constexpr std::size_t kCapacity = 16384;
  explicit QueueBuffer(SlidingQueue<T>& queue) : queue_(queue) { local_.reserve(kCapacity); }
  QueueBuffer(const QueueBuffer&) = delete;
  QueueBuffer& operator=(const QueueBuffer&) = delete;

  void push_back(T value) {
    if (local_.size() == kCapacity) flush();
    local_.push_back(value);
  }
  void flush() {
    if (local_.empty()) return;
    std::memcpy(queue_.reserve(local_.size()), local_.data(), local_.size() * sizeof(T));
    local_.clear();
  }

 private:
  SlidingQueue<T>& queue_;
  std::vector<T> local_;
};

}  // namespace weft::graph::detail
