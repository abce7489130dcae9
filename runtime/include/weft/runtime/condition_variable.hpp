#pragma once
// ConditionVariable: waits for a notification while releasing any Lockable
// (weft::Mutex, std::mutex, ...) like std::condition_variable_any, but parks
// the ULT instead of blocking its worker. Spurious wake-ups do not happen,
// but as with any condition variable, wait with a predicate.

#include <chrono>

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

  void notify_one();
  void notify_all();

 private:
  detail::WaitQueue waiters_;
};

}  // namespace weft
