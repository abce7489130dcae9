#pragma once
// What an OpenMP "thread" and "task" are on weft (internal).
//
// A TaskContext is one OpenMP task: an implicit task (one team member's
// share of a parallel region, a ULT of its own or the encountering thread
// itself for member 0) or an explicit task (a ULT of its own, or run inline
// when undeferred). The calling ULT's (or plain thread's) context is found in
// a thread-local pointer: the ULTs of one worker share its thread-local
// storage, so every entry point that starts OpenMP code on a ULT sets it, and
// every wait that may switch ULTs restores it afterwards (ContextGuard; all
// such waits are in wait.hpp). A ULT never leaves its worker once started,
// so the pointer is read from the right thread.
//
// A plain thread (main(), or a thread the program made) starts with the
// initial task of its own: level 0, a team of one, the ICVs from the
// environment.

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "child_ults.hpp"
#include "countdown.hpp"
#include "icv.hpp"

namespace weft::omp {

struct Team;
struct WorkShare;
class DependenceGraph;
struct Taskgroup;
struct DeferredTask;

// The iteration space of one worksharing loop (or sections construct),
// numbered 0 .. count-1 whatever the loop's type and direction.
struct IterSpace {
  std::uint64_t count = 0;  // iterations
  std::uint64_t start = 0;  // value of iteration 0 (bits of a long or unsigned long long)
  std::uint64_t incr = 0;   // the step (two's complement)
  std::uint64_t end = 0;    // the loop's bound, returned as the last chunk's end
  std::uint64_t value(std::uint64_t i) const noexcept { return start + i * incr; }
  std::uint64_t bound(std::uint64_t i) const noexcept { return i == count ? end : value(i); }
};

// A team member's progress through the worksharing constructs of its region.
struct MemberState {
  std::uint64_t constructs = 0;  // worksharing constructs met that use a shared slot
  std::uint64_t singles = 0;     // `single` constructs met (GOMP_single_start)
  WorkShare* ws = nullptr;       // the construct in progress (shared slot), if any
  std::uint64_t ws_number = 0;   // its number among `constructs`
  // The loop in progress.
  IterSpace space;
  SchedKind kind = SchedKind::static_;
  std::uint64_t chunk = 0;
  std::uint64_t trip = 0;           // static schedule: chunks taken
  std::uint64_t lo = 0, hi = 0;     // the chunk being run (ordered loops pass the turn on at hi)
  bool ordered = false;
  bool has_chunk = false;
  bool took_last_chunk = false;     // nonmonotonic:dynamic: it ran the loop's last chunk (and takes no more)
  void reset(std::uint64_t first_construct) noexcept {
    constructs = first_construct;
    singles = 0;
    ws = nullptr;
    has_chunk = false;
  }
};

class TaskContext {
 public:
  Team* team = nullptr;              // binding team; level 0 has a team of one
  int thread_num = 0;                // member number (implicit task, or a task run inline by a member)
  bool explicit_task = false;
  bool on_own_ult = false;           // a deferred explicit task: its thread number is its worker's member
  bool final_task = false;           // omp_in_final()
  bool children_inline = false;      // a task its plain-thread creator runs: its children run at once
  MemberState* member = nullptr;     // implicit tasks only: worksharing state
  Icv icv;
  Countdown children;                // unfinished child tasks (taskwait and this task's end wait)
  ChildUlts child_ults;              // the ULTs of the children it spawned itself
  std::vector<DeferredTask*> claimable;  // on a plain thread: its children it may run itself
  Taskgroup* taskgroup = nullptr;    // innermost taskgroup this task began
  Taskgroup* enclosing_taskgroup = nullptr;  // the innermost one its creator was in (cancellation)
  std::uintptr_t* reductions = nullptr;    // task reductions of the enclosing constructs (in_reduction)
  DependenceGraph* dependences = nullptr;  // between this task's children, made on first use
  Team* cached_team = nullptr;       // the team object of this task's last region, reused
  std::unique_ptr<TaskContext> included_context;  // what its included tasks run in (run_task_inline)
};

// The thread-local pointer behind current() (set by the entry points that
// start OpenMP code on a ULT).
extern __attribute__((tls_model("initial-exec"))) constinit thread_local TaskContext* tls_context;

// The initial task of the calling plain thread (level 0, a team of one),
// made on first use; it becomes the thread's current context.
TaskContext& initial_context();

// The context of the calling ULT or thread (the initial task of a plain
// thread, made on first use). Inline: every entry point asks.
inline TaskContext& current() {
  if (TaskContext* c = tls_context) [[likely]]
    return *c;
  return initial_context();
}

inline TaskContext* set_current(TaskContext* c) noexcept {
  TaskContext* old = tls_context;
  tls_context = c;
  return old;
}

// Restores the calling ULT's context on scope exit (around anything that
// may run other ULTs on this worker).
class ContextGuard {
 public:
  ContextGuard() noexcept : saved_(tls_context) {}
  ~ContextGuard() { tls_context = saved_; }
  ContextGuard(const ContextGuard&) = delete;
  ContextGuard& operator=(const ContextGuard&) = delete;

 private:
  TaskContext* saved_;
};

// The thread number OpenMP reports for `c`: the member number of an implicit
// task; for a deferred explicit task, the member of its team that lives on
// the worker running it (defined in team.cpp).
int thread_num_of(const TaskContext& c) noexcept;

}  // namespace weft::omp
