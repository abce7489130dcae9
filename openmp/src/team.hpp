#pragma once
// A team (internal): the members of one parallel region, their barrier, the
// `single` arbitration, the worksharing slots and where explicit tasks run.
//
// Member 0 is the encountering thread itself (a plain thread or a ULT), the
// others are ULTs pinned to workers (spawn_on). Which workers:
//  * from a plain thread, member k >= 1 on worker k - 1 (the runtime has one
//    worker per CPU besides the initial thread's, omp_runtime.hpp);
//  * from a ULT on worker c, member k on worker (c + k) mod W;
//  * proc_bind(spread|close|primary) (or OMP_PROC_BIND) spreads or packs
//    them over that order of workers (sched::omp_thread_places, one place
//    per worker);
//  * weft's extension omp_set_binding_policy (MCTOP_MP, thesis §7.7.4):
//    sched::place(topology, policy, n) chooses the CPUs, each member runs on
//    the worker pinned there; the policy may change from region to region.
//
// Explicit tasks of the team are ULTs. When the team has a member on every
// worker they are stealable by any worker; otherwise they are spread over
// the team's own workers (OpenMP runs a team's tasks on its threads, and a
// task's omp_get_thread_num() must not collide with a concurrent one's). A
// team of one on a plain thread runs its tasks at once (undeferred).
//
// Members 1..n-1 are ULTs that stay docked after a region: they wait (spin,
// yielding to the worker's other ULTs, for the runtime's idle spin; then
// park) for the team's next region, so a region that repeats with the same
// size and placement costs a store to start (libgomp keeps its threads the
// same way); a different size or placement retires them and starts new ones.
//
// The barrier (GOMP_barrier, and the end of worksharing constructs) is a
// 64-bit word, the phase in its high half, which the last arrival bumps and
// the others wait on (spin, then park). A team of up to 4 counts arrivals in
// the word's low half (one line: fewest transfers); a larger one in a
// combining tree of counters (arrival_tree.hpp), so that arrivals neither
// queue for one line nor take it from the waiters. A member first waits for
// its own child tasks (each task waits for its children before it finishes,
// so every task of the team is done once all members passed), then arrives,
// then waits. The end of the region is a countdown of members 1..n-1 that
// member 0 waits for.

#include <atomic>
#include <cstdint>

#include "arrival_tree.hpp"
#include "context.hpp"
#include "countdown.hpp"
#include "omp_runtime.hpp"
#include "workshare.hpp"

namespace weft::omp {

struct alignas(sched::cache_line_size) Member {
  TaskContext ctx;
  MemberState state;
};

struct Team {
  // The region.
  void (*fn)(void*) = nullptr;
  void* data = nullptr;
  int nthreads = 1;
  int level = 0;                 // omp_get_level() inside
  int active_level = 0;          // omp_get_active_level() inside
  Team* parent = nullptr;        // the encountering task's team
  int parent_thread_num = 0;     // the encountering task's thread number in it
  // The initial team of a league (teams.cpp) this team is, or descends from.
  int team_num = 0;              // omp_get_team_num()
  int num_teams = 1;             // omp_get_num_teams()
  TaskContext* encountering = nullptr;
  bool from_plain_thread = true;
  // Under Runtime::host (omp_runtime.hpp): begun by the initial thread's
  // hosted member 0, or nested in such a region. Only such teams may place
  // members (and tasks) on the hosted worker, which runs only meanwhile.
  bool under_host = false;
  Icv member_icv;                // what the members' ICVs start as
  std::uintptr_t* reductions = nullptr;  // GOMP_parallel_reductions' registered reductions
  bool preset_loop = false;      // GOMP_parallel_loop_*: construct 0 was set up before the members started
  // Where its explicit tasks run.
  bool tasks_inline = false;     // a team of one on a plain thread
  bool tasks_stealable = false;  // a member on every worker
  int task_worker_count = 0;
  int* task_workers = nullptr;   // [task_worker_count] distinct workers of the members
  int* member_on_worker = nullptr;  // [workers] a member living there, or -1
  int* worker_of = nullptr;      // [nthreads] member k's worker (-1: member 0 on a plain thread)
  struct PlacementKey {          // what worker_of was computed for (reused when a region repeats)
    int nthreads = -1, caller_worker = -2, bind = -1;
    sched::Policy policy = sched::Policy::None;
    bool under_host = false;
    bool operator==(const PlacementKey&) const = default;
  } placed_for;
  std::atomic<std::uint32_t> next_task_worker{0};
  // Synchronisation.
  // The barrier: its phase in the high half of the word; the arrivals in
  // its low half (up to ArrivalTree::kFanIn members) or in the tree.
  alignas(sched::cache_line_size) std::atomic<std::uint64_t> barrier_word{0};
  ArrivalTree arrivals;          // nodes in the team's block
  // Cancellation (cancel.hpp), read at every cancellation point, so on a
  // line of their own: the region was cancelled (cancel parallel), the
  // worksharing construct in progress was (cancel for, cancel sections; the
  // next completed barrier clears it). Cleared when a region begins.
  alignas(sched::cache_line_size) std::atomic<bool> cancelled{false};
  std::atomic<bool> ws_cancelled{false};
  alignas(sched::cache_line_size) std::atomic<std::uint64_t> single_next{0};
  alignas(sched::cache_line_size) Countdown joined;  // members 1..n-1 still running
  // The crew: members 1..crew-1 stay docked between regions (ULTs waiting
  // for the next `generation`), so a region that repeats with the same
  // members on the same workers starts with one store.
  alignas(sched::cache_line_size) std::atomic<std::uint64_t> generation{0};
  int crew = 0;                  // members the docked ULTs serve (0: none)
  int* crew_worker = nullptr;    // [capacity] the worker of docked member k
  Countdown crew_alive;          // docked ULTs that have not left
  WorkShare ws[kRing];
  // Storage.
  int capacity = 0;              // members the block has room for
  int workers = 0;               // entries of member_on_worker
  Member* members = nullptr;

  static Team* create(int capacity, int workers);
  static void destroy(Team* t);
};

// Starts a region: resolves nothing (num_threads is final), sets the team up
// for `encountering`, starts members 1..n-1 and makes the caller member 0
// (current() is its implicit task). `prepare(team)`, when given, runs before
// the members start (GOMP_parallel_loop_*: the loop's slot 0).
Team* begin_region(TaskContext& encountering, void (*fn)(void*), void* data, int nthreads, unsigned flags,
                   void (*prepare)(Team&, void*) = nullptr, void* prepare_arg = nullptr);
// Ends it on member 0: its tasks, the other members, then the encountering
// task is current again. The members stay docked for the next region.
void end_region(Team& team);

// Makes the caller the initial thread of a new initial team (a team of one
// at level 0, OpenMP 5.2 §1.2.2) whose implicit task has the ICVs `icv`:
// a member of a league region for its team (teams.cpp), or the thread that
// encounters a target region, for the region's host fallback (target.cpp).
// Its team number and league size are `team_num` and `num_teams`. Ended by
// end_region.
Team* begin_initial_team(TaskContext& enc, const Icv& icv, int team_num, int num_teams);

// Runs `region` (begin_region, member 0's share, end_region) for a team of
// `n`: on the initial thread, outside every region, as a ULT on the hosted
// worker that the thread runs meanwhile (omp_runtime.hpp), so that member 0
// waits as a ULT and its CPU runs the team's tasks; elsewhere on the caller.
template <class Region>
void run_region(int n, const Region& region) {
  if (n > 1 && initial_thread_hosts()) {
    ContextGuard keep;  // the ULTs the thread ran set their own contexts
    runtime().host([&region] { region(); });
  } else {
    region();
  }
}

// GOMP's num_threads resolution (OpenMP 5.2 §10.1.1): `specified` = the
// clause (0 when absent; 1 for if(false)), `count` = sections (dyn-var).
int resolve_num_threads(const TaskContext& encountering, unsigned specified, unsigned count = 0);

// The team barrier, for an implicit task `self` (waits for its child tasks first).
void team_barrier(TaskContext& self);
// The same barrier as a cancellation point (GOMP_barrier_cancel, the end of a
// loop or sections construct that may be cancelled): true, without waiting
// for the others, once the region is cancelled (OpenMP 5.2 §16.1).
bool cancellable_team_barrier(TaskContext& self);

// Stops the program: `entry` was called inside an explicit task.
[[noreturn]] void not_in_implicit_task(const char* entry);

// The implicit task of the caller, or a clear failure naming `entry` when the
// caller is an explicit task (worksharing and barriers bind to implicit tasks).
inline TaskContext& implicit_task(const char* entry) {
  TaskContext& c = current();
  if (c.member) [[likely]]
    return c;
  not_in_implicit_task(entry);
}

}  // namespace weft::omp
