#pragma once
// ConditionVariable: waits for a notification while releasing any Lockable
// (weft::Mutex, std::mutex, ...) like std::condition_variable_any, but parks
// the ULT instead of blocking its worker. Spurious wake-ups do not happen,
// but as with any condition variable, wait with a predicate. The timed waits
// use the worker's timer heap (a ULT) or a futex timeout (a plain thread).

#include <chrono>
#include <condition_variable>  // std::cv_status
#include <type_traits>
#include <utility>

#include "weft/runtime/detail/wait_queue.hpp"

namespace weft {

class ConditionVariable {
 public:
  ConditionVariable() = default;
  ConditionVariable(const ConditionVariable&) = delete;
  ConditionVariable& operator=(const ConditionVariable&) = delete;

  template <class Lock>
  void wait(Lock& lock) {
    detail::WaitQueue::Waiter me;
    waiters_.lock();
    waiters_.push(&me);
    waiters_.unlock();
    lock.unlock();
    detail::WaitQueue::wait(me);
    lock.lock();
  }
  template <class Lock, class Predicate>
  void wait(Lock& lock, Predicate ready) {
    while (!ready()) wait(lock);
  }

  // Waits for a notification or until `deadline`, whichever comes first.
  template <class Lock, class Clock, class Duration>
  std::cv_status wait_until(Lock& lock, const std::chrono::time_point<Clock, Duration>& deadline) {
    detail::WaitQueue::Waiter me;
    waiters_.lock();
    waiters_.push(&me);
    waiters_.unlock();
    lock.unlock();
    const bool notified = detail::WaitQueue::wait_until(waiters_, me, to_steady(deadline));
    lock.lock();
    return notified ? std::cv_status::no_timeout : std::cv_status::timeout;
  }
  template <class Lock, class Clock, class Duration, class Predicate>
  bool wait_until(Lock& lock, const std::chrono::time_point<Clock, Duration>& deadline, Predicate ready) {
    while (!ready())
      if (wait_until(lock, deadline) == std::cv_status::timeout) return ready();
    return true;
  }
  template <class Lock, class Rep, class Period>
  std::cv_status wait_for(Lock& lock, const std::chrono::duration<Rep, Period>& d) {
    return wait_until(lock, std::chrono::steady_clock::now() + d);
  }
  template <class Lock, class Rep, class Period, class Predicate>
  bool wait_for(Lock& lock, const std::chrono::duration<Rep, Period>& d, Predicate ready) {
    return wait_until(lock, std::chrono::steady_clock::now() + d, std::move(ready));
  }

  void notify_one();
  void notify_all();

 private:
  template <class Clock, class Duration>
  static std::chrono::steady_clock::time_point to_steady(const std::chrono::time_point<Clock, Duration>& t) {
    if constexpr (std::is_same_v<Clock, std::chrono::steady_clock>)
      return std::chrono::time_point_cast<std::chrono::steady_clock::duration>(t);
    else
      return std::chrono::steady_clock::now() +
             std::chrono::duration_cast<std::chrono::steady_clock::duration>(t - Clock::now());
  }

  detail::WaitQueue waiters_;
};

}  // namespace weft
