// Slow paths of the blocking primitives. Rule kept throughout: whoever
// completes a wait (last count_down, last arrival, last finished ULT of a
// group) does everything that touches the object under the queue's lock, and a
// waiter passes through that lock before returning, so a waiter may destroy
// the object as soon as its wait returns.

#include <thread>

#include "futex.hpp"
#include "runtime_impl.hpp"
#include "spin_briefly.hpp"
#include "worker.hpp"
#include "weft/runtime/barrier.hpp"
#include "weft/runtime/condition_variable.hpp"
#include "weft/runtime/latch.hpp"
#include "weft/runtime/mutex.hpp"
#include "weft/runtime/semaphore.hpp"
#include "weft/runtime/task_group.hpp"
#include "weft/runtime/this_ult.hpp"

namespace weft {

namespace detail {

bool WaitQueue::remove(Waiter* w) noexcept {
  Waiter* prev = nullptr;
  for (Waiter* cur = head_; cur; prev = cur, cur = cur->next) {
    if (cur != w) continue;
    (prev ? prev->next : head_) = cur->next;
    if (tail_ == cur) tail_ = prev;
    return true;
  }
  return false;
}

void WaitQueue::wait(Waiter& w) {
  while (!w.signaled.load(std::memory_order_acquire)) park();
}

bool WaitQueue::wait_until(WaitQueue& q, Waiter& w, std::chrono::steady_clock::time_point deadline) {
  while (!w.signaled.load(std::memory_order_acquire)) {
    if (park_until(deadline)) continue;
    q.lock();
    const bool still_queued = q.remove(&w);
    q.unlock();
    if (still_queued) return false;
    wait(w);  // popped by a notifier whose signal is on its way
    return true;
  }
  return true;
}

void WaitQueue::signal(Waiter* w) {
  TaskBase* t = w->task;
  retain(t);  // the waiter may return and finish as soon as it sees `signaled`
  w->signaled.store(true, std::memory_order_release);
  unpark(UltRef(t));
  release(t, 1);
}

void WaitQueue::signal_all(Waiter* list) {
  while (list) {
    Waiter* next = list->next;  // read before signal: the node dies with its waiter
    if (next) __builtin_prefetch(next);  // on its waiter's stack: likely cold
    signal(list);
    list = next;
  }
}


}  // namespace detail

// ------------------------------------------------------------------ Mutex

void Mutex::lock_slow() {
  if (detail::spin_briefly([&] {
        std::uint32_t expected = 0;
        return state_.load(std::memory_order_relaxed) == 0 &&
               state_.compare_exchange_strong(expected, 1, std::memory_order_acquire,
                                              std::memory_order_relaxed);
      }))
    return;
  while (true) {
    detail::WaitQueue::Waiter me;
    waiters_.lock();
    // Marking the lock "maybe waiters" and queueing happen atomically with
    // respect to wake_one(), so an unlock between them cannot be missed.
    if (state_.exchange(2, std::memory_order_acquire) == 0) {
      waiters_.unlock();
      return;
    }
    waiters_.push(&me);
    waiters_.unlock();
    detail::WaitQueue::wait(me);
    if (state_.exchange(2, std::memory_order_acquire) == 0) return;
  }
}

void Mutex::wake_one() {
  waiters_.lock();
  detail::WaitQueue::Waiter* w = waiters_.pop();
  waiters_.unlock();
  if (w) detail::WaitQueue::signal(w);
}

// ------------------------------------------------------------------ ConditionVariable

void ConditionVariable::notify_one() {
  waiters_.lock();
  detail::WaitQueue::Waiter* w = waiters_.pop();
  waiters_.unlock();
  if (w) detail::WaitQueue::signal(w);
}

void ConditionVariable::notify_all() {
  waiters_.lock();
  detail::WaitQueue::Waiter* list = waiters_.pop_all();
  waiters_.unlock();
  detail::WaitQueue::signal_all(list);
}

// ------------------------------------------------------------------ Semaphore

void Semaphore::release(std::int64_t n) {
  detail::WaitQueue::Waiter* handed = nullptr;
  detail::WaitQueue::Waiter** tail = &handed;
  waiters_.lock();
  for (; n > 0; --n) {
    detail::WaitQueue::Waiter* w = waiters_.pop();
    if (!w) break;
    *tail = w;  // this permit goes straight to w
    tail = &w->next;
  }
  *tail = nullptr;
  if (n > 0) count_.fetch_add(n, std::memory_order_release);
  waiters_.unlock();
  detail::WaitQueue::signal_all(handed);
}

void Semaphore::acquire_slow() {
  if (detail::spin_briefly([&] { return try_acquire(); })) return;
  detail::WaitQueue::Waiter me;
  waiters_.lock();
  if (try_acquire()) {
    waiters_.unlock();
    return;
  }
  waiters_.push(&me);
  waiters_.unlock();
  detail::WaitQueue::wait(me);  // woken with a permit handed over
}

// ------------------------------------------------------------------ Latch

void Latch::count_down(std::int64_t n) {
  std::int64_t c = count_.load(std::memory_order_relaxed);
  while (c > n)  // not the last: no waiter to wake, the lock is not needed
    if (count_.compare_exchange_weak(c, c - n, std::memory_order_release, std::memory_order_relaxed)) return;
  waiters_.lock();
  std::int64_t left = count_.fetch_sub(n, std::memory_order_acq_rel) - n;
  detail::WaitQueue::Waiter* list = left == 0 ? waiters_.pop_all() : nullptr;
  waiters_.unlock();
  detail::WaitQueue::signal_all(list);
}

void Latch::wait() {
  if (!detail::spin_briefly([&] { return try_wait(); })) {
    detail::WaitQueue::Waiter me;
    waiters_.lock();
    if (try_wait()) {
      waiters_.unlock();
      return;
    }
    waiters_.push(&me);
    waiters_.unlock();
    detail::WaitQueue::wait(me);
    return;
  }
  waiters_.lock();  // let the last count_down leave the latch first
  waiters_.unlock();
}

// ------------------------------------------------------------------ Barrier

Barrier::Barrier(std::int64_t participants, std::function<void()> on_completion)
    : expected_(participants), remaining_(participants), on_completion_(std::move(on_completion)) {}

bool Barrier::arrive_locked(bool drop) {
  if (drop) --expected_;
  if (--remaining_ > 0) return false;
  if (on_completion_) on_completion_();
  remaining_ = expected_;
  phase_.fetch_add(1, std::memory_order_release);
  return true;
}

std::uint64_t Barrier::arrive_and_wait() {
  waiters_.lock();
  std::uint64_t phase = phase_.load(std::memory_order_relaxed);
  if (arrive_locked(false)) {
    detail::WaitQueue::Waiter* list = waiters_.pop_all();
    waiters_.unlock();
    detail::WaitQueue::signal_all(list);
    return phase;
  }
  waiters_.unlock();
  auto passed = [&] { return phase_.load(std::memory_order_acquire) != phase; };
  if (detail::spin_briefly(passed)) {
    waiters_.lock();  // the completer may still hold the lock
    waiters_.unlock();
    return phase;
  }
  detail::WaitQueue::Waiter me;
  waiters_.lock();
  if (passed()) {
    waiters_.unlock();
    return phase;
  }
  waiters_.push(&me);
  waiters_.unlock();
  detail::WaitQueue::wait(me);
  return phase;
}

void Barrier::arrive_and_drop() {
  waiters_.lock();
  detail::WaitQueue::Waiter* list = arrive_locked(true) ? waiters_.pop_all() : nullptr;
  waiters_.unlock();
  detail::WaitQueue::signal_all(list);
}

// ------------------------------------------------------------------ TaskGroup

void TaskGroup::record(std::exception_ptr e) {
  waiters_.lock();
  if (!error_) error_ = std::move(e);
  waiters_.unlock();
}

void TaskGroup::finish_one() {
  waiters_.lock();
  detail::WaitQueue::Waiter* list =
      pending_.fetch_sub(1, std::memory_order_acq_rel) == 1 ? waiters_.pop_all() : nullptr;
  waiters_.unlock();
  detail::WaitQueue::signal_all(list);
}

void TaskGroup::wait_quietly() {
  while (pending_.load(std::memory_order_acquire) != 0) {
    detail::WaitQueue::Waiter me;
    waiters_.lock();
    if (pending_.load(std::memory_order_acquire) == 0) {
      waiters_.unlock();
      break;
    }
    waiters_.push(&me);
    waiters_.unlock();
    detail::WaitQueue::wait(me);
  }
  waiters_.lock();  // the last finisher leaves the group before we return
  waiters_.unlock();
}

void TaskGroup::wait() {
  wait_quietly();
  waiters_.lock();
  std::exception_ptr e = std::exchange(error_, nullptr);
  waiters_.unlock();
  if (e) std::rethrow_exception(e);
}

}  // namespace weft
