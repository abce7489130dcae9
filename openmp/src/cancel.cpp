// The cancel construct and cancellation points (GOMP_cancel,
// GOMP_cancellation_point, GOMP_barrier_cancel). See cancel.hpp.
#include "cancel.hpp"

#include <string>

#include "fatal.hpp"
#include "icv.hpp"
#include "parking_lot.hpp"

namespace weft::omp {
namespace {

// `which`, as GCC passes it (gcc/include/gomp-constants.h).
inline constexpr int kCancelParallel = 1, kCancelLoop = 2, kCancelSections = 4, kCancelTaskgroup = 8;

}  // namespace
}  // namespace weft::omp

using namespace weft::omp;

extern "C" {

bool GOMP_cancellation_point(int which) {
  if (!cancel_var) return false;
  const TaskContext& c = current();
  const Team& t = *c.team;
  if (which & (kCancelLoop | kCancelSections)) return t.ws_cancelled.load(std::memory_order_acquire);
  // cancel parallel cancels the region's explicit tasks too.
  if ((which & kCancelTaskgroup) && taskgroup_cancelled(innermost_taskgroup(c))) return true;
  return t.cancelled.load(std::memory_order_acquire);
}

// `do_cancel` is the cancel construct's if clause: false makes it a
// cancellation point.
bool GOMP_cancel(int which, bool do_cancel) {
  if (!cancel_var) return false;
  if (!do_cancel) return GOMP_cancellation_point(which);
  TaskContext& c = current();
  Team& t = *c.team;
  if (which & (kCancelLoop | kCancelSections)) {
    t.ws_cancelled.store(true, std::memory_order_release);
    return true;
  }
  if (which & kCancelTaskgroup) {
    if (Taskgroup* g = innermost_taskgroup(c)) {
      if (g->workshare && g->prev) g = g->prev;
      g->cancelled.store(true, std::memory_order_release);
    }
    return true;
  }
  if (!(which & kCancelParallel)) fatal("GOMP_cancel", "unknown construct kind " + std::to_string(which));
  t.cancelled.store(true, std::memory_order_release);
  unpark_all(&t.barrier_word);  // members parked in a cancellable barrier leave it
  return true;
}

bool GOMP_barrier_cancel() { return cancellable_team_barrier(implicit_task("GOMP_barrier_cancel")); }

}  // extern "C"
