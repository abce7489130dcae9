// Where a ULT parks and is unparked, and the calling ULT's queries
// (this_ult). The park token (Task::wake, task.hpp's ParkState) works like a
// binary semaphore:
//   park():   kToken -> kNoToken, return at once (an unpark came first);
//             else switch away and, once the context is saved (the post-switch
//             action in worker.cpp), kNoToken -> kParked.
//   unpark(): kNoToken -> kToken (the next park returns at once);
//             kParked -> kNoToken, and the ULT goes back on its worker's ready
//             FIFO (its own worker) or inbox (any other thread);
//             kToken stays kToken (by a read-modify-write all the same:
//             see unpark()).
// A plain thread parks on the same token with a futex (park_thread).

#include "park.hpp"

#include <sched.h>

#include <thread>

#include "futex.hpp"
#include "runtime_impl.hpp"
#include "weft/runtime/this_ult.hpp"
#include "worker.hpp"

namespace weft {
namespace detail {

// Statistics: the unparking worker counts it; a plain thread, the ULT's runtime.
// `resumed`: t was parked and is made ready now (the unpark a trace shows).
static void count_unpark(const Task* t, bool resumed) {
  if (Worker* w = tls_worker) {
    ++w->unparks;
    if (resumed && w->tracing()) [[unlikely]] w->trace_unpark(t);
  } else {
    t->runtime->external_unparks.fetch_add(1, std::memory_order_relaxed);
  }
}

bool park_thread(std::chrono::steady_clock::time_point deadline) {
  using clock = std::chrono::steady_clock;
  Task* self = as_task(current_task());
  if (self->wake.exchange(kNoToken, std::memory_order_acq_rel) == kToken) return true;
  // Spin first, about 20 us: an unpark now costs the unparker no futex wake.
  // After every round the CPU is offered to other threads (sched_yield): the
  // ULT that will unpark us may be on a worker that shares this CPU.
  for (int round = 0; round < 32; ++round) {
    for (int i = 0; i < 64; ++i) {
      // Acquire on the load itself, not a fence after it: ThreadSanitizer
      // does not see fences.
      if (self->wake.load(std::memory_order_acquire) == kToken) {
        self->wake.store(kNoToken, std::memory_order_relaxed);
        return true;
      }
      cpu_relax();
    }
    if (deadline != clock::time_point::max() && clock::now() >= deadline) return false;
    sched_yield();
  }
  std::uint32_t expected = kNoToken;
  if (!self->wake.compare_exchange_strong(expected, kParked, std::memory_order_acq_rel)) {
    self->wake.store(kNoToken, std::memory_order_relaxed);  // an unpark slipped in
    return true;
  }
  while (self->wake.load(std::memory_order_acquire) == kParked) {
    if (deadline == clock::time_point::max()) {
      futex_wait(&self->wake, kParked);
      continue;
    }
    const auto left = deadline - clock::now();
    if (left <= clock::duration::zero()) {
      std::uint32_t parked = kParked;
      if (self->wake.compare_exchange_strong(parked, kNoToken, std::memory_order_acq_rel)) return false;
      break;  // unparked just now
    }
    futex_wait(&self->wake, kParked, std::chrono::duration_cast<std::chrono::nanoseconds>(left));
  }
  self->wake.store(kNoToken, std::memory_order_relaxed);
  return true;
}

}  // namespace detail

void park() {
  if (detail::Worker* w = detail::tls_worker)
    w->park_current();
  else
    detail::park_thread(std::chrono::steady_clock::time_point::max());
}

bool park_until(std::chrono::steady_clock::time_point deadline) {
  detail::Worker* w = detail::tls_worker;
  if (!w) return detail::park_thread(deadline);
  if (std::chrono::steady_clock::now() >= deadline) return false;
  // A started ULT stays on its worker, so the timer is armed and cancelled
  // on the same (owner-only) heap.
  detail::TimerEntry entry{deadline, w->current()};
  w->add_timer(&entry);
  w->park_current();
  if (entry.fired) return false;
  w->cancel_timer(&entry);
  return true;
}

void unpark(UltRef ref) {
  using namespace detail;
  Task* t = as_task(static_cast<TaskBase*>(ref.raw()));
  if (t->kind == TaskKind::external) {
    if (t->wake.exchange(kToken, std::memory_order_acq_rel) == kParked) futex_wake(&t->wake, 1);
    return;
  }
  std::uint32_t v = t->wake.load(std::memory_order_relaxed);
  for (;;) {
    if (v == kToken) {
      // A token is already pending, but this unpark must still be a
      // read-modify-write of `wake`, not a load: what the caller wrote before
      // it (a waiter's `signaled`) must reach a parker whose exchange in
      // park() takes the token after this. With a plain load, the caller's
      // store could still sit in its store buffer when the parker, having
      // taken the (older) token, reads `signaled`, finds it unset and parks
      // for good: a lost wake-up (ConditionVariableBoundedBuffer hung about
      // one run in eight on 2 workers).
      if (t->wake.compare_exchange_weak(v, kToken, std::memory_order_acq_rel)) return;
      continue;
    }
    if (v == kNoToken) {
      if (t->wake.compare_exchange_weak(v, kToken, std::memory_order_acq_rel)) {
        count_unpark(t, false);
        return;
      }
      continue;
    }
    if (t->wake.compare_exchange_weak(v, kNoToken, std::memory_order_acq_rel)) break;  // parked: ours to resume
  }
  count_unpark(t, true);
  Worker* home = t->home;
  if (tls_worker == home)
    home->make_ready(t);
  else
    home->enqueue_remote(t);
}

namespace this_ult {

void sleep_for(std::chrono::nanoseconds d) {
  detail::Worker* w = detail::tls_worker;
  if (!w) {
    std::this_thread::sleep_for(d);
    return;
  }
  detail::TimerEntry entry{std::chrono::steady_clock::now() + d, w->current()};
  w->add_timer(&entry);
  while (!entry.fired) park();
}

bool inside() { return detail::tls_worker != nullptr; }
int num_workers() { return detail::tls_worker ? detail::tls_worker->runtime()->num_workers() : 0; }
std::uint64_t id() { return detail::tls_worker ? detail::tls_worker->current()->id : 0; }
UltRef ref() { return UltRef(detail::current_task()); }

}  // namespace this_ult
}  // namespace weft
