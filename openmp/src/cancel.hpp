#pragma once
// Cancellation (OpenMP 5.2 §16; internal). With cancel-var true
// (OMP_CANCELLATION=true) a cancel construct activates the cancellation of
// its binding region, and the threads and tasks bound to that region leave
// it at their next cancellation point: a `cancellation point`, a `cancel`, a
// barrier of the region, the end of a loop or sections construct. With
// cancel-var false (the default) `cancel` does nothing and cancellation
// points never fire. What is cancelled, and where it is recorded, follows
// libgomp:
//  * cancel parallel: Team::cancelled. Every cancellable barrier of the team
//    returns at once (its waiters are woken), and so do cancellation points;
//    GCC's code then jumps to the end of the region, whose join (a countdown
//    of the members, not the barrier) still waits for every member. Tasks of
//    the team that have not started are discarded, and no new one is made.
//  * cancel for, cancel sections: Team::ws_cancelled, read by cancellation
//    points of those kinds. The members leave the construct for its ending
//    barrier, which completes as usual (every member arrives) and clears it.
//  * cancel taskgroup: the innermost taskgroup of the encountering task (the
//    one around it when that is a worksharing construct's implicit one).
//    Its tasks that have not started, their descendants too, are discarded;
//    the running ones leave at their cancellation points.
// A discarded task's body does not run; the rest of its end does (its
// dependences are released, its taskgroup and parent counted down). A
// detach event is still waited for: its creator may still fulfill it.

#include <atomic>

#include "context.hpp"
#include "tasks.hpp"
#include "team.hpp"

namespace weft::omp {

// The taskgroup a task is in: the innermost one it began, else the one its
// creator was in when it made the task.
inline Taskgroup* innermost_taskgroup(const TaskContext& c) noexcept {
  return c.taskgroup ? c.taskgroup : c.enclosing_taskgroup;
}

// Whether taskgroup `g` is cancelled: itself, or, when it is a worksharing
// construct's implicit taskgroup, the one around it.
inline bool taskgroup_cancelled(const Taskgroup* g) noexcept {
  if (!g) return false;
  if (g->cancelled.load(std::memory_order_acquire)) return true;
  return g->workshare && g->prev && g->prev->cancelled.load(std::memory_order_acquire);
}

// Whether a task of team `t` in taskgroup `g` is to be discarded (asked only
// when cancel_var is true).
inline bool task_cancelled(const Team& t, const Taskgroup* g) noexcept {
  return t.cancelled.load(std::memory_order_acquire) || taskgroup_cancelled(g);
}

}  // namespace weft::omp
