// Explicit tasks on weft's ULTs (OpenMP 5.2 §12).
//
// A deferred task is a ULT of its own: GOMP_task copies the task's data
// (firstprivate values, by cpyfn or memcpy) into a heap record and spawns a
// ULT that runs fn on it. Spawning pushes the ULT on the creator's deque, so
// the creator goes on and an idle worker steals the task, or the creator
// runs it itself when it waits (taskwait, a barrier: the wait yields, then
// parks, and the worker takes the next ULT). No thread ever blocks on a
// task: a waiting task or member parks its ULT and the worker runs others.
//
// Completion: a task waits for its own children before it finishes (so
// waiting for a task waits for its descendants too; OpenMP allows a task to
// finish earlier, never requires it), then releases its dependent siblings,
// then counts down its taskgroup and its parent's children. taskwait,
// taskgroup ends and the members at a barrier wait on those counts.
//
// Undeferred and included tasks (if(false), final, a team of one on a plain
// thread, or the parent already has 64 unfinished children per member) run
// at once on the caller, with a task context of their own (a reused one).
//
// Cancellation (cancel.hpp): a task made in a cancelled region or taskgroup
// is dropped, and one that was not started when its region or taskgroup was
// cancelled is discarded (its body does not run).
//
// Priorities are accepted and not used (the schedule is weft's: LIFO for the
// creator, FIFO steals); untied and mergeable are hints weft does not need:
// a ULT never moves once started, and merged data environments are not used.
#include "tasks.hpp"

#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "cancel.hpp"
#include "dependences.hpp"
#include "fatal.hpp"
#include "icv.hpp"
#include "omp_runtime.hpp"
#include "team.hpp"
#include "wait.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/runtime/ult.hpp"

namespace weft::omp {

// The GOMP_task flags (gcc/include/gomp-constants.h).
inline constexpr unsigned kTaskUntied = 1u << 0, kTaskFinal = 1u << 1, kTaskMergeable = 1u << 2,
                          kTaskDepend = 1u << 3, kTaskPriority = 1u << 4, kTaskDetach = 1u << 13;

// omp_event_handle_t of a task with a detach clause: the task is complete
// once its body has returned and the event is fulfilled.
struct DetachEvent {
  std::atomic<std::uint32_t> fulfilled{0};
  void wait() {
    wait_until(&fulfilled, [this] { return fulfilled.load(std::memory_order_acquire) != 0; });
  }
};

// A deferred task between GOMP_task and its end: everything it needs, and
// its data, in one allocation.
struct DeferredTask {
  // A task a plain thread created may be run by that thread while it waits
  // (it cannot run ULTs): whoever sets `claimed` first runs it; the record
  // goes when both its ULT and the creator's list are done with it.
  std::atomic<bool> claimed{false};
  std::atomic<int> refs{1};
  bool claimable = false;
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;                 // into `storage`, aligned
  TaskContext* parent = nullptr;
  Team* team = nullptr;
  Taskgroup* group = nullptr;          // the taskgroup the parent had begun at creation (counts it)
  Taskgroup* enclosing_taskgroup = nullptr;  // the innermost one the parent was in (cancel.hpp)
  std::uintptr_t* reductions = nullptr;
  DepNode* node = nullptr;
  DetachEvent event;
  bool has_event = false;
  bool final_task = false;
  int creator_thread_num = 0;
  bool cached_block = false;           // its block came from (and goes back to) a RecordCache
  Icv icv;                             // the data environment at creation
  // The task's data follows the record, aligned as GOMP_task says.
};

namespace {

// The blocks of deferred tasks whose record and data fit kBlockBytes, kept
// per thread for reuse: a task program makes and frees one per task, and
// malloc and free were 11 % of fib(27)'s samples (perf, 2 workers; records
// made on one worker and freed on another outgrew glibc's per-thread cache).
// At most kMaxBlocks per thread; a block freed on a thread whose cache is full
// goes back to malloc. The cache is trivially destructible (no guard, hence
// no __tls_get_addr, on each access): a thread that keeps a block registers
// a thread-local releaser that frees them when it exits. Off under
// AddressSanitizer, which should see every record's use after its free.
class RecordCache {
 public:
  static constexpr std::size_t kBlockBytes = 256;

  void* take() {
    if (!head_) return std::malloc(kBlockBytes);
    --count_;
    return std::exchange(head_, head_->next);
  }
  void give(void* block) {
    if (count_ >= kMaxBlocks) return std::free(block);
    if (!releaser_registered_) [[unlikely]]
      register_releaser();
    head_ = ::new (block) FreeBlock{head_};
    ++count_;
  }
  // At the thread's exit: frees the blocks; what is freed later goes to free().
  void release_all() {
    while (head_) std::free(std::exchange(head_, head_->next));
    count_ = kMaxBlocks;
  }

 private:
  static constexpr std::size_t kMaxBlocks = 64;
  struct FreeBlock {
    FreeBlock* next;
  };
  [[gnu::noinline, gnu::cold]] void register_releaser();

  FreeBlock* head_ = nullptr;
  std::size_t count_ = 0;
  bool releaser_registered_ = false;
};

#if defined(WEFT_ASAN)
inline constexpr bool kCacheRecords = false;
#else
inline constexpr bool kCacheRecords = true;
#endif
// initial-exec, as tls_context.
__attribute__((tls_model("initial-exec"))) constinit thread_local RecordCache record_cache;

void RecordCache::register_releaser() {
  struct Releaser {
    ~Releaser() { record_cache.release_all(); }
  };
  thread_local Releaser releaser;  // constructed here, destroyed at the thread's exit
  (void)releaser;
  releaser_registered_ = true;
}

DeferredTask* allocate_task(long arg_size, long arg_align) {
  const std::size_t align = arg_align > 16 ? static_cast<std::size_t>(arg_align) : 16;
  const std::size_t bytes = sizeof(DeferredTask) + static_cast<std::size_t>(arg_size) + align;
  const bool cached = kCacheRecords && bytes <= RecordCache::kBlockBytes;
  void* block = cached ? record_cache.take() : std::malloc(bytes);
  if (!block) fatal("GOMP_task", "out of memory for a task's data (" + std::to_string(bytes) + " bytes)");
  auto* d = ::new (block) DeferredTask;
  d->cached_block = cached;
  auto p = reinterpret_cast<std::uintptr_t>(d + 1);
  d->arg = reinterpret_cast<void*>((p + align - 1) & ~(align - 1));
  return d;
}

void free_task(DeferredTask* d) {
  const bool cached = d->cached_block;
  d->~DeferredTask();
  if (cached) record_cache.give(d);
  else std::free(d);
}

// Drops one reference to a record: the creator's list and the task's ULT
// each hold one when the creator is a plain thread (claimable); otherwise
// the ULT holds the only one.
void unref(DeferredTask* d) {
  if (!d->claimable || d->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) free_task(d);
}

// Runs a deferred task: on its own ULT, or on its creator (a plain thread)
// that claimed it while waiting.
void execute(DeferredTask* d, bool on_own_ult) {
  TaskContext ctx;
  ctx.team = d->team;
  ctx.thread_num = d->creator_thread_num;
  ctx.explicit_task = true;
  ctx.on_own_ult = on_own_ult;
  // A plain thread cannot run ULTs: what it claimed it runs to the end,
  // its subtree included, while the workers run what they took.
  ctx.children_inline = !on_own_ult;
  ctx.final_task = d->final_task;
  ctx.icv = d->icv;
  ctx.reductions = d->reductions;
  ctx.enclosing_taskgroup = d->enclosing_taskgroup;
  ContextGuard back;
  set_current(&ctx);
  // Cancelled before it started (cancel.hpp): discarded, its end still runs.
  if (!cancel_var || !task_cancelled(*d->team, d->enclosing_taskgroup)) [[likely]]
    d->fn(d->arg);
  if (d->has_event) d->event.wait();
  finish_task_children(ctx);
  if (d->node) {
    d->node->finish();
    d->node->release();
  }
  Taskgroup* group = d->group;
  TaskContext* parent = d->parent;
  if (group) group->pending.arrive();  // before the parent's count: the parent frees the group after it
  parent->children.arrive();           // the last touch of the parent
}

void run_on_ult(DeferredTask* d) {
  if (!d->claimable || !d->claimed.exchange(true, std::memory_order_acq_rel)) execute(d, true);
  unref(d);
}

// The plain thread `c` waits: it runs its own children that no worker has
// started yet, newest first, from index `first` of its list.
void run_claimable_from(TaskContext& c, std::size_t first) {
  while (c.claimable.size() > first) {
    DeferredTask* d = c.claimable.back();
    c.claimable.pop_back();
    if (!d->claimed.exchange(true, std::memory_order_acq_rel)) execute(d, false);
    unref(d);
  }
}

// Waits, as the creator of an undeferred task, for the earlier siblings it
// depends on.
void wait_for_dependences(TaskContext& parent, const std::vector<Dependence>& deps, bool record) {
  if (!parent.dependences) {
    if (!record) return;
    parent.dependences = new DependenceGraph;
  }
  auto* node = new DepNode(nullptr);
  if (record) parent.dependences->add(*node, deps);
  else parent.dependences->add_edges_only(*node, deps);
  node->registered();
  wait_until(node->blockers_key(), [node] { return !node->blocked(); });
  node->finish();
  node->release();
}

[[noreturn, gnu::cold, gnu::noinline]] void negative_priority(int priority) {
  fatal("GOMP_task", "priority(" + std::to_string(priority) + ") is negative");
}

void check_priority(unsigned flags, int priority) {
  if ((flags & kTaskPriority) && priority < 0) [[unlikely]]
    negative_priority(priority);
}

}  // namespace

// Spawns the task's ULT. A creator that is a ULT keeps the handle to join
// it (run it) when it waits; a creator on a plain thread keeps the record to
// claim it; a finishing predecessor (`owner` null) lets it go.
void launch_deferred(DeferredTask* d, TaskContext* owner) {
  Team& t = *d->team;
  const bool from_plain_thread = owner && !this_ult::inside();
  if (from_plain_thread) {
    d->claimable = true;
    d->refs.store(2, std::memory_order_relaxed);
    if (owner->claimable.size() >= 256) {  // many children, no wait: drop the ones taken
      auto& list = owner->claimable;
      std::size_t kept = 0;
      for (DeferredTask* c : list) {
        if (c->claimed.load(std::memory_order_acquire)) unref(c);
        else list[kept++] = c;
      }
      list.resize(kept);
    }
    owner->claimable.push_back(d);
  }
  try {
    Ult<void> u;
    if (t.tasks_stealable) {
      u = runtime().spawn([d] { run_on_ult(d); });
    } else {
      const std::uint32_t k = t.next_task_worker.fetch_add(1, std::memory_order_relaxed);
      u = runtime().spawn_on(t.task_workers[k % static_cast<std::uint32_t>(t.task_worker_count)],
                             [d] { run_on_ult(d); });
    }
    if (owner && !from_plain_thread) owner->child_ults.add(std::move(u));
    else u.detach();
  } catch (const std::exception& e) {
    fatal("GOMP_task", std::string("cannot start a task: ") + e.what());
  }
}

void launch_deferred(DeferredTask* d) { launch_deferred(d, nullptr); }

bool runs_undeferred(const TaskContext& parent, bool if_clause, std::int64_t more) {
  return !if_clause || parent.final_task || parent.children_inline || parent.team->tasks_inline ||
         parent.children.pending() + more > 64 * static_cast<std::int64_t>(parent.team->nthreads);
}

DeferredTask* new_deferred_task(TaskContext& parent, void (*fn)(void*), void* data, void (*cpyfn)(void*, void*),
                                long arg_size, long arg_align, bool final_task, void* detach) {
  DeferredTask* d = allocate_task(arg_size, arg_align);
  d->fn = fn;
  d->parent = &parent;
  d->team = parent.team;
  d->group = parent.taskgroup;
  d->enclosing_taskgroup = innermost_taskgroup(parent);
  d->reductions = visible_reductions(parent);
  d->final_task = final_task;
  d->creator_thread_num = thread_num_of(parent);
  d->icv = parent.icv;
  if (detach) {
    d->has_event = true;
    *static_cast<void**>(detach) = &d->event;
    if (data) *static_cast<void**>(data) = &d->event;
  }
  if (cpyfn) cpyfn(d->arg, data);
  else if (arg_size > 0) std::memcpy(d->arg, data, static_cast<std::size_t>(arg_size));
  return d;
}

void* task_data(DeferredTask* d) { return d->arg; }

void start_deferred_task(TaskContext& parent, DeferredTask* d, const std::vector<Dependence>& deps) {
  parent.children.add();
  if (d->group) d->group->pending.add();
  if (deps.empty()) {
    launch_deferred(d, &parent);
    return;
  }
  if (!parent.dependences) parent.dependences = new DependenceGraph;
  d->node = new DepNode(d);
  d->node->retain();  // the task's own reference, dropped when it finishes
  parent.dependences->add(*d->node, deps);
  DepNode* node = d->node;
  node->registered();  // may launch d, which may even finish: `node` holds the creator's reference
  node->release();
}

namespace {

// run_task_inline's first call for a parent (out of line: the rare case).
[[gnu::noinline, gnu::cold]] TaskContext& make_included_context(TaskContext& parent) {
  parent.included_context = std::make_unique<TaskContext>();
  return *parent.included_context;
}

}  // namespace

// An included task runs to its end before its parent goes on, so a parent
// has at most one at a time: they all reuse one context, made on first use.
// It comes back from finish_task_children clean (no children, child ULTs,
// claimable records, dependences or cached team), so a reuse sets only what
// differs, instead of building and destroying 240 bytes of TaskContext (its
// child-ULT slots, its vectors) per task (an if(0) task on one thread:
// 14.3-16.1 -> 11.6-12.1 ns with the fast path in GOMP_task, 8.4 once
// GOMP_task had no frame and the library was built without semantic
// interposition; bench/results/openmp-2core.md).
void run_task_inline(TaskContext& parent, void (*fn)(void*), void* arg, bool final_task) {
  TaskContext& ctx = parent.included_context ? *parent.included_context : make_included_context(parent);
  ctx.team = parent.team;
  // The parent's thread number, as thread_num_of(parent) gives it (for a
  // parent on a ULT of its own, the member on the worker running both).
  ctx.thread_num = parent.thread_num;
  ctx.on_own_ult = parent.on_own_ult;
  ctx.explicit_task = true;
  ctx.final_task = final_task;
  ctx.children_inline = parent.children_inline;
  ctx.icv = parent.icv;
  ctx.reductions = visible_reductions(parent);
  ctx.taskgroup = nullptr;
  ctx.enclosing_taskgroup = innermost_taskgroup(parent);
  {
    ContextGuard back;
    set_current(&ctx);
    fn(arg);
    finish_task_children(ctx);
  }
}

void wait_children(TaskContext& c) {
  if (!c.claimable.empty()) run_claimable_from(c, 0);
  if (c.child_ults.size()) {
    ContextGuard keep;
    c.child_ults.join_from(0);
  }
  if (!c.children.done()) wait_for(c.children);
}

void finish_task_children_slow(TaskContext& c) {
  wait_children(c);
  delete c.dependences;
  c.dependences = nullptr;
  if (c.explicit_task) {
    Team::destroy(c.cached_team);
    c.cached_team = nullptr;
  }
}

void begin_taskgroup(TaskContext& c, bool workshare) {
  auto* g = new Taskgroup;
  g->prev = c.taskgroup;
  g->first_child_ult = c.child_ults.size();
  g->first_claimable = c.claimable.size();
  g->reductions = visible_reductions(c);
  g->workshare = workshare;
  c.taskgroup = g;
}

void end_taskgroup(TaskContext& c) {
  Taskgroup* g = c.taskgroup;
  if (!g) fatal("GOMP_taskgroup_end", "no taskgroup was begun by this task");
  run_claimable_from(c, g->first_claimable);
  if (c.child_ults.size() > g->first_child_ult) {
    ContextGuard keep;
    c.child_ults.join_from(g->first_child_ult);
  }
  if (!g->pending.done()) wait_for(g->pending);
  c.taskgroup = g->prev;
  delete g;
}

namespace {

// GOMP_task's general case: a task with dependences, a detach event, a copy
// constructor or a priority, or a deferred one. It takes GOMP_task's own
// arguments, so that GOMP_task reaches it (and the included fast path) by a
// jump, without a frame of its own.
[[gnu::noinline]] void create_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                                   long arg_align, bool if_clause, unsigned flags, void** depend, int priority,
                                   void* detach) {
  TaskContext& parent = current();
  // In a cancelled region or taskgroup no task is made (cancel.hpp).
  if (cancel_var && task_cancelled(*parent.team, innermost_taskgroup(parent))) return;
  check_priority(flags, priority);
  const bool final_task = parent.final_task || (flags & kTaskFinal);
  std::vector<Dependence> deps;
  if ((flags & kTaskDepend) && depend) deps = parse_depend(depend);

  if (runs_undeferred(parent, if_clause, 0)) {
    if (!deps.empty()) wait_for_dependences(parent, deps, false);
    DetachEvent event;
    if (flags & kTaskDetach) {
      *static_cast<void**>(detach) = &event;
      if (data) *static_cast<void**>(data) = &event;
    }
    if (cpyfn) {
      const std::size_t align = arg_align > 0 ? static_cast<std::size_t>(arg_align) : 1;
      std::unique_ptr<unsigned char[]> buf(new unsigned char[static_cast<std::size_t>(arg_size) + align]);
      auto p = reinterpret_cast<std::uintptr_t>(buf.get());
      void* arg = reinterpret_cast<void*>((p + align - 1) & ~(align - 1));
      cpyfn(arg, data);
      run_task_inline(parent, fn, arg, final_task);
    } else {
      run_task_inline(parent, fn, data, final_task);
    }
    if (flags & kTaskDetach) event.wait();
    return;
  }

  DeferredTask* d = new_deferred_task(parent, fn, data, cpyfn, arg_size, arg_align, final_task,
                                      (flags & kTaskDetach) ? detach : nullptr);
  start_deferred_task(parent, d, deps);
}

}  // namespace
}  // namespace weft::omp

using namespace weft::omp;

extern "C" {

void GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
               bool if_clause, unsigned flags, void** depend, int priority, void* detach) {
  // The common included task (if(0), final, or the throttle) takes the
  // fast path: no dependences, detach, copy or priority, and cancellation
  // off (create_task tests whether it is cancelled).
  TaskContext* parent = tls_context;
  if (parent && !(flags & (kTaskDepend | kTaskDetach | kTaskPriority)) && !cpyfn && !cancel_var &&
      runs_undeferred(*parent, if_clause, 0)) {
    run_task_inline(*parent, fn, data, parent->final_task || (flags & kTaskFinal));
    return;
  }
  create_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
}

void GOMP_taskwait() { wait_children(current()); }

// `taskwait depend(...)`: waits for the earlier siblings named, as an
// included task with those dependences and an empty body would.
void GOMP_taskwait_depend(void** depend) {
  TaskContext& c = current();
  if (depend && c.dependences) wait_for_dependences(c, parse_depend(depend), false);
}

void GOMP_taskyield() {
  if (!weft::this_ult::inside()) return;
  ContextGuard keep;
  weft::this_ult::yield();
}

void GOMP_taskgroup_start() { begin_taskgroup(current()); }
void GOMP_taskgroup_end() { end_taskgroup(current()); }

int omp_in_final() noexcept { return current().final_task ? 1 : 0; }

void omp_fulfill_event(omp_event_handle_t handle) noexcept {
  auto* e = reinterpret_cast<DetachEvent*>(handle);
  if (!e) fatal("omp_fulfill_event", "a null event handle");
  if (e->fulfilled.exchange(1, std::memory_order_acq_rel) != 0)
    fatal("omp_fulfill_event", "the event was already fulfilled");
  unpark_all(&e->fulfilled);
}

}  // extern "C"
