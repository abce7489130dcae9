#pragma once
// A spinlock-protected FIFO of waiting ULTs (or threads): the building block
// of every blocking primitive in weft. Critical sections are a few pointer
// moves and never switch context, so the spinlock cannot deadlock with a ULT
// of the same worker.

#include <atomic>
#include <chrono>
#include <cstdint>

#include "weft/runtime/detail/task.hpp"
#include "weft/sched/cpu.hpp"

namespace weft::detail {

class SpinLock {
 public:
  void lock() noexcept {
    while (flag_.exchange(true, std::memory_order_acquire))
      while (flag_.load(std::memory_order_relaxed)) sched::cpu_relax();
  }
  bool try_lock() noexcept { return !flag_.exchange(true, std::memory_order_acquire); }
  void unlock() noexcept { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

class WaitQueue {
 public:
  // Lives on the waiter's stack while it waits.
  struct Waiter {
    TaskBase* task = current_task();
    std::atomic<bool> signaled{false};
    Waiter* next = nullptr;
    std::uint64_t tag = 0;  // primitive-specific (e.g. a barrier phase)
  };

  void lock() noexcept { lock_.lock(); }
  void unlock() noexcept { lock_.unlock(); }
  bool empty() const noexcept { return head_ == nullptr; }  // under the lock

  void push(Waiter* w) noexcept {  // under the lock
    w->next = nullptr;
    if (tail_) tail_->next = w;
    else head_ = w;
    tail_ = w;
  }
  Waiter* pop() noexcept {  // under the lock
    Waiter* w = head_;
    if (w) {
      head_ = w->next;
      if (!head_) tail_ = nullptr;
    }
    return w;
  }
  Waiter* pop_all() noexcept {  // under the lock; a list linked by `next`
    Waiter* w = head_;
    head_ = tail_ = nullptr;
    return w;
  }
  bool remove(Waiter* w) noexcept;  // under the lock; false if not queued

  // Parks until signal(w) (a pending park token cannot fool it).
  static void wait(Waiter& w);
  // wait() with a deadline: true if signaled; false if the deadline passed
  // first, in which case `w` has been taken out of `q` (locks q).
  static bool wait_until(WaitQueue& q, Waiter& w, std::chrono::steady_clock::time_point deadline);
  // Wakes a popped waiter (outside the lock). `w` may be gone once this returns.
  static void signal(Waiter* w);
  static void signal_all(Waiter* list);

 private:
  SpinLock lock_;
  Waiter* head_ = nullptr;
  Waiter* tail_ = nullptr;
};

}  // namespace weft::detail
