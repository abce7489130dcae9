#pragma once
// A worker: one pinned kernel thread that runs ULTs (internal).
//
// Where a ready ULT waits:
//   ready_  owner-only FIFO of started (and pinned) ULTs, in ticket order;
//   deque_  Chase–Lev deque of unstarted stealable ULTs (tickets in the slots);
//   inbox_  lock-free stack other threads push to (remote wake-ups, spawn_on).
// pick_next() takes whichever of ready_'s head and deque_'s top has the
// older ticket, so yield is strictly round-robin over everything ready.
//
// Where a ULT runs: on a stack of its own from the worker's StackCache,
// taken when it first runs and given back when it finishes; or, when its
// joiner runs it before it started (join's fast path), on the joiner's stack
// as a plain call (run_inline), as long as that stack has room.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <new>
#include <thread>
#include <vector>

#include "stack_allocator.hpp"
#include "task.hpp"
#include "task_block_pool.hpp"
#include "timer_heap.hpp"
#include "weft/runtime/stats.hpp"
#include "weft/sched/cpu.hpp"
#include "work_deque.hpp"
#include "worker_threads.hpp"

namespace weft::detail {

class RuntimeImpl;

// Relaxed counter written by its owner only, readable by anyone.
struct Counter {
  std::atomic<std::uint64_t> value{0};
  void operator++() { add(1); }
  void add(std::uint64_t n) { value.store(value.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
  std::uint64_t get() const { return value.load(std::memory_order_relaxed); }
};

// What the resumed side does with the task that just switched away.
enum class PostSwitch : std::uint8_t { none, park, finish };
// Or'ed into the post-switch word while a trace records the worker: the
// resumed side then records the switch (trace.cpp). One byte, so that the
// resumed side's existing "anything to do?" test covers tracing too.
inline constexpr std::uint8_t kTraceSwitch = 4;
// Why a traced run ended, besides the PostSwitch actions: its ULT ran a
// child inline (the joiner's fast path).
inline constexpr std::uint8_t kTraceInlineJoin = 3;

class TraceBuffer;
enum class TraceKind : std::uint8_t;

void task_entry(void*);
void on_resume(void*, void*);

class Worker final {
 public:
  // os_node: the NUMA node of os_cpu, where the worker's memory lives (-1: any).
  Worker(RuntimeImpl* rt, int index, int os_cpu, int os_node);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // A Worker object lives on its own node: `new (OnNode{n}) Worker(...)`.
  struct OnNode {
    int os_node;
  };
  static void* operator new(std::size_t bytes, OnNode where);
  static void operator delete(void* p, OnNode) noexcept;  // the constructor threw
  static void operator delete(Worker* w, std::destroying_delete_t) noexcept;

  void start();        // on a pooled kernel thread (worker_threads.hpp)
  // Config::hosted_worker's worker 0: no thread until shutdown starts one;
  // the thread in Runtime::host runs it (run_hosted) meanwhile.
  void become_hosted();
  bool hosted() const { return hosted_; }
  // Runtime::host: the calling (plain) thread becomes this worker's (its
  // scheduler context), runs the scheduling loop until `target`, a ULT
  // pinned here, has finished, and leaves: the worker is away again.
  void enter_hosted();
  void run_hosted(Task* target);
  void leave_hosted();
  // The runtime stopping (`stopping` set, no ULT left): lets go of the
  // worker if it sleeps (its thread will not touch it again: no wake-up to
  // wait for), else wakes it to leave.
  void stop();
  void join_thread();  // waits until its thread has left the worker (unless it was let go of)
  // The pooled thread that will run it (WorkerThreads::start, before it
  // hands the worker over): the worker sleeps on that thread's rest word.
  void attach_thread(PooledThread* thread);
  // The scheduling loop; returns when the runtime stops or lets go of it
  // (the worker may be gone then). Run by start().
  void run_on_this_thread();
  int pinned_cpu() const;  // the OS CPU its thread must be pinned to, -1: none

  // --- owner thread only ---
  // The paths that switch context are inlined into the one out-of-line entry
  // a ULT calls (this_ult::yield, park, the join wait): after a switch every
  // return mispredicts (the return-stack buffer holds the other context's
  // frames), so each extra frame on the resumed side costs a few ns.
  Task* current() const { return current_; }
  inline void yield();
  void park_current();  // out of line: park.cpp's park()/park_until() call it
  [[noreturn]] void finish_current();
  void make_ready(Task* t);  // started or pinned ULT, FIFO
  void push_new(Task* t);    // new stealable ULT
  // Join fast path: runs the unstarted `child` right now on this worker if it
  // can claim it; returns after the child finished. False if it could not.
  inline bool try_run_unstarted(Task* child);
  bool has_other_ready_work() const {
    return ready_head_ || !deque_.empty() || inbox_.load(std::memory_order_relaxed);
  }
  TimerHeap& timers() { return timers_; }
  void add_timer(TimerEntry* e);
  void cancel_timer(TimerEntry* e);  // no-op once it fired
  // Task blocks (task_block_pool.hpp).
  // allocate_task_block() throws UltLimitError at the runtime's ULT limit
  // (checked whenever the free list runs dry: every few hundred spawns).
  Task* allocate_task_block() {
    if (!blocks_.has_free()) [[unlikely]] check_ult_limit();
    // Default-initialised, not `Task{}`: every field has its initialiser, and
    // `Task{}` made GCC zero the whole block first with `rep stos`, ~17 % of a
    // create+join (its start-up cost on AMD Zen).
    return ::new (blocks_.allocate()) Task;
  }
  void free_task_block(void* block) { blocks_.free(block); }  // the Task in it already destroyed
  std::size_t stack_bytes() const { return stacks_.usable_bytes(); }

  // --- any thread ---
  void enqueue_remote(Task* t);  // inbox push, wakes the worker
  void wake_up();                // futex wake if sleeping
  // Asleep in idle() (not napping among lone entries): a worker to wake.
  bool sleeping() const { return rest_.load(std::memory_order_seq_cst) == Rest::asleep; }
  bool has_stealable_work() const { return !deque_.empty(); }
  std::size_t deque_entries() const { return deque_.size(); }  // incl. stale ones (tests)
  WorkerStats stats() const;

  int index() const { return index_; }
  int os_cpu() const { return os_cpu_; }
  int os_node() const { return os_node_; }
  RuntimeImpl* runtime() const { return rt_; }
  std::uint64_t next_id() { return (static_cast<std::uint64_t>(index_ + 1) << 48) | ++ids_; }

  // --- tracing (trace.cpp): the hooks test tracing() first, [[unlikely]] ---
  bool tracing() const { return trace_flag_.load(std::memory_order_relaxed) != 0; }
  void trace_spawn(const Task* t);                  // owner thread
  void trace_unpark(const Task* t);                 // owner thread
  std::uint64_t trace_scope_begin(std::uint16_t label);  // owner thread; the scope's id
  void trace_scope_end(std::uint64_t id);                // owner thread
  void trace_scope_arg(std::uint64_t id, std::uint16_t key, std::uint64_t value);  // owner thread
  void trace_run(const Task* from, const Task* to, std::uint8_t why);  // owner thread; why: a PostSwitch or kTraceInlineJoin
  // Any thread, under the trace session's lock: gives the worker a buffer
  // and sets the flag, or clears the flag (the buffer stays until replaced).
  void trace_attach(TraceBuffer* buffer);
  void trace_detach();

  // The other workers in the order steal() tries them, nearest first, and
  // each one's distance class (stats.hpp). Set at most twice: a first order
  // before the workers start, then possibly the topology's order once the
  // machine model has loaded (RuntimeImpl loads it off the start-up path).
  // Both lists live as long as the worker.
  struct VictimList {
    std::vector<Worker*> workers;
    std::vector<std::uint8_t> distance_class;  // < kStealDistanceClasses
  };
  void set_victims(VictimList victims);
  const std::vector<Worker*>& victims() const { return victims_.load(std::memory_order_acquire)->workers; }
  Counter spawned, finished;  // ULTs created / finished on this worker (for quiescence)
  Counter unparks;            // unpark() calls made on this worker's thread that changed the target's state

 private:
  friend void task_entry(void*);
  friend void on_resume(void*, void*);
  friend class RuntimeImpl;

  void come_back();  // a hosted worker that was away runs again
  Task* pick_next();
  Task* steal();
  bool lone_entry_settled(const Worker* victim, std::uint32_t ticket);
  Task* find_work();
  // Spins, then sleeps; null when it found no work. `let_go` (the loop of
  // run_on_this_thread): set when the runtime let go of the worker in its
  // sleep, and then nothing of the worker may be touched.
  Task* idle(bool* let_go = nullptr);
  bool work_in_sight() const;  // inbox, stealable work anywhere, or the runtime stopping
  std::uint64_t nap_among_lone_entries();
  static constexpr std::uint64_t kSleepLetGo = ~std::uint64_t{0};
  std::uint64_t sleep_on_futex(std::uint32_t seq, std::chrono::nanoseconds timeout, bool may_let_go = false);
  inline void run_claimed_child(Task* child, Task* self, bool entry_ref);
  inline void run_inline(Task* child, Task* self, bool entry_ref);
  [[gnu::noinline]] void run_inline_traced(Task* child, Task* self, bool entry_ref);
  inline bool stack_has_room_for_inline(const Task* self) const;
  void trim_stale_entries();
  void drain_inbox();
  void poll_timers();
  bool claim_for_run(Task* t);  // after taking a deque entry
  inline void switch_to(Task* next, PostSwitch action);
  // switch_to's body: `post_word` says what run_post_switch does there (a
  // PostSwitch, | kTraceSwitch to record the run's end there).
  inline void jump(Task* next, std::uint8_t post_word);
  inline void resume(void* from_ctx, Task* from);  // the resumed side of a switch
  void check_canary(const Task* t, const void* saved_sp) const;
  inline void enqueue_ready(Task* t);
  void start_context(Task* t);
  void run_post_switch(Task* from);
  void release_stack(Task* t);
  [[noreturn]] void report_stack_overflow(const Task* t, const char* how) const;
  void check_ult_limit() const;

  RuntimeImpl* rt_;
  int index_;
  int os_cpu_;
  int os_node_;
  Task* current_ = nullptr;
  Task scheduler_{};  // the worker thread's own context
  std::uint8_t post_word_ = 0;  // a PostSwitch, | kTraceSwitch while tracing
  std::atomic<std::uint8_t> trace_flag_{0};  // kTraceSwitch while a trace records this worker
  // The task that last switched away. Nothing reads it, but it keeps that
  // ULT's block reachable for LeakSanitizer, which cannot scan a suspended
  // ULT's stack, when the process exits with ULTs suspended (without it,
  // openmp.exit_in_region_member_0 reports a leak under ASan, 20-30 runs of 40).
  Task* post_task_ = nullptr;

  // ready FIFO (owner only)
  Task* ready_head_ = nullptr;
  Task* ready_tail_ = nullptr;
  std::uint32_t next_ticket_ = 1;
  std::uint32_t picks_ = 0;

  WorkDeque deque_;
  alignas(sched::cache_line_size) std::atomic<Task*> inbox_{nullptr};
  // Where it sleeps: its thread's rest word (which outlives it), or its own
  // while hosted or before it first ran.
  alignas(sched::cache_line_size) std::atomic<RestWord*> rest_word_{&own_rest_word_};
  RestWord own_rest_word_;
  PooledThread* thread_ = nullptr;      // the pooled thread running it (attach_thread)
  std::uint64_t asleep_since_ns_ = 0;   // the last sleep_on_futex's start (read by a stop() that lets go)
  bool let_go_ = false;                 // stop() let go of it: join_thread has nothing to wait for
  // On the futex in idle(): asleep, or napping while still counted as
  // searching (nap_among_lone_entries). An inbox push wakes either (those
  // after `awake`). Away: a hosted worker outside Runtime::host, which
  // nobody wakes (the next host() drains its inbox).
  enum class Rest : std::uint8_t { away, awake, napping, asleep };
  std::atomic<Rest> rest_{Rest::awake};
  bool hosted_ = false;
  Task* host_target_ = nullptr;   // run_hosted's ULT: its finish returns to the loop at once
  std::uint64_t away_since_ns_ = 0;  // a hosted worker's time away counts as asleep

  TimerHeap timers_;
  // The lone entry this thief last saw in each victim's deque (by victim
  // index), and how many looks in a row it has been there (steal()).
  struct LoneEntry {
    std::uint32_t ticket = 0;
    std::uint32_t looks = 0;
  };
  std::vector<LoneEntry> lone_entries_;
  bool passed_lone_entry_ = false;  // steal() left a lone entry since idle()'s last nap
  VictimList victim_lists_[2];
  int victim_lists_set_ = 0;
  std::atomic<const VictimList*> victims_{&victim_lists_[0]};
  StackCache stacks_;
  std::size_t inline_min_free_;  // stack bytes a ULT run inline must find free (the configured size)
  TaskBlockPool blocks_;
  std::uint64_t ids_ = 0;
  WorkerExit exit_;

  Counter switches_, yields_, parks_, sleeps_, wakeups_, inline_runs_;
  Counter starts_;  // ULTs started on a stack of their own (ULTs run = starts_ + inline_runs_)
  Counter steal_attempts_[kStealDistanceClasses], steals_[kStealDistanceClasses];
  // Time split (steady_clock ns): when the thread entered / left the worker,
  // and how long it spun idle and slept.
  Counter started_at_ns_, stopped_at_ns_, spinning_ns_, sleeping_ns_;

  std::atomic<TraceBuffer*> trace_buffer_{nullptr};
  void trace_record(TraceKind kind, std::uint64_t a, std::uint64_t b, std::uint32_t c, std::uint8_t d);
};

// The worker running on this thread (null on other threads). initial-exec: a
// plain %fs-relative load, not a __tls_get_addr call, on every scheduler path;
// constinit: no check for (and call of) a TLS init function before it.
extern __attribute__((tls_model("initial-exec"))) constinit thread_local Worker* tls_worker;

void task_entry(void* transfer);  // first frame of every ULT stack
void on_resume(void* from_ctx, void* from_task);

}  // namespace weft::detail
