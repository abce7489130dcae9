#pragma once
// A worker's timers (internal): sleeping ULTs and timed parks, a min-heap on
// the deadline. Owner-thread only. An entry lives on its ULT's stack for as
// long as the ULT waits (a started ULT never leaves its worker, so the same
// heap arms and cancels it).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace weft::detail {

struct Task;

struct TimerEntry {
  std::chrono::steady_clock::time_point deadline;
  Task* task = nullptr;
  bool fired = false;
};

class TimerHeap {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

  void add(TimerEntry* e) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  // Removes an entry that has not fired; false if it is not here (fired).
  bool cancel(TimerEntry* e) {
    if (e->fired) return false;
    auto it = std::find(heap_.begin(), heap_.end(), e);
    if (it == heap_.end()) return false;
    heap_.erase(it);
    std::make_heap(heap_.begin(), heap_.end(), later);
    return true;
  }
  // Marks every entry due at `now` fired, earliest first, and hands it to fire(entry).
  template <class Fire>
  std::size_t fire_due(time_point now, Fire fire) {
    std::size_t n = 0;
    while (!heap_.empty() && heap_.front()->deadline <= now) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      TimerEntry* e = heap_.back();
      heap_.pop_back();
      e->fired = true;
      fire(e);
      ++n;
    }
    return n;
  }
  // Time until the earliest deadline (0 if due); negative when empty.
  std::chrono::nanoseconds time_to_next(time_point now) const {
    if (heap_.empty()) return std::chrono::nanoseconds(-1);
    return std::max(std::chrono::duration_cast<std::chrono::nanoseconds>(heap_.front()->deadline - now),
                    std::chrono::nanoseconds(0));
  }

 private:
  static bool later(const TimerEntry* a, const TimerEntry* b) { return a->deadline > b->deadline; }
  std::vector<TimerEntry*> heap_;
};

}  // namespace weft::detail
