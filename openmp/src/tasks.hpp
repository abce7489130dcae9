#pragma once
// Explicit tasks (internal): GOMP_task, taskwait, taskgroup, taskyield,
// detach events. See tasks.cpp for the mapping onto weft's ULTs.

#include <atomic>
#include <cstdint>
#include <vector>

#include "context.hpp"
#include "countdown.hpp"
#include "dependences.hpp"

namespace weft::omp {

// A taskgroup region begun by a task (GOMP_taskgroup_start, or the implicit
// one of a worksharing construct with task reductions).
struct Taskgroup {
  Taskgroup* prev = nullptr;
  std::size_t first_child_ult = 0;        // the owner's child ULTs from here on were spawned inside
  std::size_t first_claimable = 0;        // the same for the children of a plain thread
  Countdown pending;                      // its tasks not finished
  std::uintptr_t* reductions = nullptr;   // task reductions visible inside it
  bool workshare = false;
  std::atomic<bool> cancelled{false};     // cancel taskgroup (cancel.hpp)
};

// The task reductions a task sees (its innermost taskgroup's, else the
// enclosing construct's).
inline std::uintptr_t* visible_reductions(const TaskContext& c) {
  return c.taskgroup ? c.taskgroup->reductions : c.reductions;
}

void begin_taskgroup(TaskContext& c, bool workshare = false);
void end_taskgroup(TaskContext& c);

// taskwait: waits for the task's children (running the unstarted ones).
void wait_children(TaskContext& c);
// A task's end (and a region's implicit barrier): wait_children, then frees
// what only its children used. Most tasks make no children: then there is
// nothing to wait for or free, and no call (three of the ~19 ns an included
// task cost).
void finish_task_children_slow(TaskContext& c);
inline void finish_task_children(TaskContext& c) {
  if (!c.children.done() || c.child_ults.size() || !c.claimable.empty() || c.dependences || c.cached_team)
    finish_task_children_slow(c);
}

// Runs fn(arg) as an included or undeferred task of `parent`, on the caller.
void run_task_inline(TaskContext& parent, void (*fn)(void*), void* arg, bool final_task);

// Whether a new task of `parent` (`more` of them) runs at once instead of as
// a ULT: if(false), inside a final task, a team of one on a plain thread, or
// too many of the parent's children pending (libgomp's throttle: 64 per
// member).
bool runs_undeferred(const TaskContext& parent, bool if_clause, std::int64_t more);

// A deferred task in two steps (taskloop adjusts its data in between): its
// record with a copy of `data` (cpyfn, else memcpy of arg_size bytes); then
// counted as a child of `parent` and started once `deps` allow.
struct DeferredTask;
DeferredTask* new_deferred_task(TaskContext& parent, void (*fn)(void*), void* data, void (*cpyfn)(void*, void*),
                                long arg_size, long arg_align, bool final_task, void* detach);
void* task_data(DeferredTask* d);
void start_deferred_task(TaskContext& parent, DeferredTask* d, const std::vector<Dependence>& deps);

}  // namespace weft::omp
