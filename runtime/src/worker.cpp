// The per-core scheduler: context switches, where yield picks the next ULT,
// join's fast paths (run the child inline or switch straight to it), work
// stealing, timers and sleeping idle workers. See worker.hpp for where a
// ready ULT waits, park.cpp for park/unpark and docs/runtime.md for the design.

#include "worker.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <boost/context/detail/fcontext.hpp>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>

#include "context_switch.hpp"
#include "futex.hpp"
#include "node_memory_cache.hpp"
#include "runtime_impl.hpp"
#include "sanitizer.hpp"
#include "spin_briefly.hpp"
#include "stack_overflow.hpp"
#include "steady_ns.hpp"
#include "trace_buffer.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/runtime/ult.hpp"
#include "weft/sched/cpuset.hpp"
#include "weft/sched/numa_memory.hpp"

namespace bctx = boost::context::detail;

#define WEFT_ALWAYS_INLINE __attribute__((always_inline)) inline

namespace weft::detail {

__attribute__((tls_model("initial-exec"))) constinit thread_local Worker* tls_worker = nullptr;
__attribute__((tls_model("initial-exec"))) constinit thread_local int tls_worker_index = -1;

// First thing a context runs after a switch: finish the sanitizer switch,
// save the suspended context, run the post-switch action for it. Inlined
// into switch_to (the resumed side of a switch always runs on the worker it
// switched away on: a started ULT never moves), out of line for a new ULT.
WEFT_ALWAYS_INLINE void Worker::resume(void* from_ctx, Task* from) {
  sanitizer::finish_switch(current_);
  from->ctx = from_ctx;
  // A canary-guarded stack (no guard page) is checked whenever its ULT
  // switches away: the saved stack pointer must lie inside it, the canary intact.
  if (from->stack_guard == StackGuard::canary) [[unlikely]] check_canary(from, from_ctx);
  if (post_word_ != 0) run_post_switch(from);
}

void Worker::check_canary(const Task* t, const void* saved_sp) const {
  if (static_cast<const char*>(saved_sp) < t->stack_lo)
    report_stack_overflow(t, "its saved stack pointer lies below its stack");
  if (!stack_canary_intact(t->stack_lo))
    report_stack_overflow(t, "the canary word at the bottom of its stack was overwritten");
}

void on_resume(void* from_ctx, void* from_task) { tls_worker->resume(from_ctx, static_cast<Task*>(from_task)); }

static void task_trampoline(bctx::transfer_t t) { task_entry(reinterpret_cast<void*>(&t)); }

void task_entry(void* transfer) {
  auto* t = static_cast<bctx::transfer_t*>(transfer);
  on_resume(t->fctx, t->data);
  Task* self = tls_worker->current_;
  try {
    self->body(self);
  } catch (...) {
    self->error = std::current_exception();
  }
  tls_worker->finish_current();  // the worker is re-read: the body ran on this thread
}

void* Worker::operator new(std::size_t bytes, OnNode where) {
  return NodeMemoryCache::allocate(bytes, where.os_node);  // bytes == sizeof(Worker): no subclasses
}
void Worker::operator delete(void* p, OnNode where) noexcept {
  NodeMemoryCache::release(p, sizeof(Worker), where.os_node);
}
void Worker::operator delete(Worker* w, std::destroying_delete_t) noexcept {
  const int node = w->os_node_;
  w->~Worker();
  NodeMemoryCache::release(w, sizeof(Worker), node);
}

namespace {
std::size_t round_to_pages(std::size_t bytes) {
  const std::size_t page = 4096;
  return (bytes + page - 1) / page * page;
}
// CLOCK_MONOTONIC at the kernel tick's resolution: a few ns to read instead
// of ~24 (on the 2-core VM). The time a hosted worker is away, measured
// around every region an OpenMP program starts, uses it: the difference of
// two readings is an unbiased estimate of the time between them.
std::uint64_t coarse_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}
}  // namespace

Worker::Worker(RuntimeImpl* rt, int index, int os_cpu, int os_node)
    : rt_(rt), index_(index), os_cpu_(os_cpu), os_node_(os_node),
      deque_(1024, os_node),
      // Twice the configured size: a ULT joined before it starts runs on its
      // joiner's stack while the configured size is still free there.
      stacks_(2 * round_to_pages(rt->config().stack_size), static_cast<std::size_t>(rt->config().stack_pool_limit),
              os_node),
      inline_min_free_(round_to_pages(rt->config().stack_size) + 1024),
      blocks_(static_cast<std::size_t>(rt->config().stack_pool_limit) * 16, os_node) {
  scheduler_.kind = TaskKind::scheduler;
  scheduler_.home = this;
  current_ = &scheduler_;
}

Worker::~Worker() = default;

void Worker::start() { WorkerThreads({pinned_cpu()}).start(0, this); }

void Worker::stop() {
  if (thread_ && let_go_if_asleep(thread_)) {
    // Its thread made its last write to this worker before it went to sleep
    // (ordered by the rest word): the rest of the bookkeeping is done here.
    let_go_ = true;
    const std::uint64_t now = steady_ns();
    sleeping_ns_.add(now - asleep_since_ns_);
    stopped_at_ns_.add(now);
    if (tracing()) [[unlikely]] trace_record(TraceKind::sleep_end, 0, 0, 0, 0);
    return;
  }
  wake_up();
}

void Worker::join_thread() {
  if (!let_go_) exit_.wait();
}
int Worker::pinned_cpu() const { return rt_->config().pin_workers ? os_cpu_ : -1; }

void Worker::attach_thread(PooledThread* thread) {
  thread_ = thread;
  rest_word_.store(&rest_word_of(thread), std::memory_order_seq_cst);
}

void Worker::run_on_this_thread() {
  tls_worker = this;
  tls_worker_index = index_;
  if (hosted_) {  // shutdown gave it a thread: it is no longer away
    come_back();
  } else {
    started_at_ns_.add(steady_ns());
  }
  sanitizer::adopt_thread(&scheduler_);
  while (true) {
    Task* next = find_work();
    if (!next) {
      bool let_go = false;
      next = idle(&let_go);
      if (let_go) {  // the runtime stopped and let go of this worker in its sleep: it may be gone
        tls_worker = nullptr;
        tls_worker_index = -1;
        return;
      }
    }
    if (next) {
      switch_to(next, PostSwitch::none);
      continue;
    }
    if (rt_->stopping.load(std::memory_order_acquire)) break;
  }
  stopped_at_ns_.add(steady_ns());
  tls_worker = nullptr;
  tls_worker_index = -1;
  exit_.mark_exited();  // the runtime may destroy this worker from here on
}

void Worker::become_hosted() {
  hosted_ = true;
  rest_.store(Rest::away, std::memory_order_relaxed);
  away_since_ns_ = coarse_ns();
  started_at_ns_.add(steady_ns());
}

// A hosted worker's time away counts as asleep in its statistics.
void Worker::come_back() {
  const std::uint64_t now = coarse_ns();
  if (now > away_since_ns_) sleeping_ns_.add(now - away_since_ns_);
  rest_.store(Rest::awake, std::memory_order_seq_cst);
}

void Worker::enter_hosted() {
  rest_word_.store(&own_rest_word_, std::memory_order_seq_cst);
  tls_worker = this;
  tls_worker_index = index_;
  come_back();
  sanitizer::adopt_thread(&scheduler_);
}

// The loop of run_on_this_thread, on a lent thread, until `target` finished.
// Its finish switches straight back here (finish_current), so the thread
// returns at once even when other ULTs of this worker are ready: they wait
// for a later host() (Runtime::host says so).
void Worker::run_hosted(Task* target) {
  host_target_ = target;
  while (!(target->done.load(std::memory_order_acquire) & kFinished)) {
    Task* next = find_work();
    if (!next) next = idle();
    if (next) switch_to(next, PostSwitch::none);
  }
  host_target_ = nullptr;
}

void Worker::leave_hosted() {
  rest_.store(Rest::away, std::memory_order_seq_cst);
  away_since_ns_ = coarse_ns();
  tls_worker = nullptr;
  tls_worker_index = -1;
}

// ---------------------------------------------------------------- switching

namespace {
// Stacks sit at page-multiple strides, so the tops of all stacks (where a
// suspended ULT's saved registers are) would share a few cache sets and evict
// each other when many ULTs take turns. A ULT starts below its stack's top
// by a per-stack offset of 0..63 cache lines (out of the doubled stack's
// headroom), which spreads them over the sets.
std::size_t stack_color(const char* lo) {
  const auto page_number = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(lo) >> 12);
  return ((page_number * 0x9E3779B1u) >> 26) * 64;  // Fibonacci hash: 6 bits
}
}  // namespace

void Worker::start_context(Task* t) {
  Stack s = stacks_.acquire();
  t->stack_lo = s.lo;
  t->stack_guard = s.guard;
  sanitizer::stack_reused(s.lo, stacks_.usable_bytes());
  const std::size_t size = stacks_.usable_bytes() - stack_color(s.lo);
  t->ctx = bctx::make_fcontext(s.lo + size, size, &task_trampoline);
  sanitizer::context_created(t);
  t->home = this;
  ++starts_;
}

WEFT_ALWAYS_INLINE void Worker::switch_to(Task* next, PostSwitch action) {
  jump(next, static_cast<std::uint8_t>(action) | trace_flag_.load(std::memory_order_relaxed));
}

WEFT_ALWAYS_INLINE void Worker::jump(Task* next, std::uint8_t post_word) {
  Task* prev = current_;
  const auto action = static_cast<PostSwitch>(post_word & ~kTraceSwitch);
  post_word_ = post_word;
  post_task_ = prev;
  if (!next->ctx) start_context(next);
  current_ = next;
  ++switches_;
  sanitizer::start_switch(prev, action == PostSwitch::finish, next, stacks_.usable_bytes());
  bctx::transfer_t t = jump_context(next->ctx, prev);
  resume(t.fctx, static_cast<Task*>(t.data));
}

void Worker::run_post_switch(Task* from) {
  const std::uint8_t word = post_word_;
  post_word_ = 0;
  const auto action = static_cast<PostSwitch>(word & ~kTraceSwitch);
  if (word & kTraceSwitch) [[unlikely]] trace_run(from, current_, static_cast<std::uint8_t>(action));
  switch (action) {
    case PostSwitch::none:
      break;
    case PostSwitch::park: {
      // Now that its context is saved, the parked ULT may be resumed: publish
      // "parked" unless an unpark arrived while it was switching away.
      std::uint32_t expected = kNoToken;
      if (!from->wake.compare_exchange_strong(expected, kParked, std::memory_order_acq_rel)) {
        from->wake.store(kNoToken, std::memory_order_relaxed);  // the token is consumed: run again
        make_ready(from);
      }
      break;
    }
    case PostSwitch::finish:
      release_stack(from);
      sanitizer::context_destroyed(from);
      if (from->runner_ref) release(from, 1);
      break;
  }
}

void Worker::release_stack(Task* t) {
  if (t->stack_guard == StackGuard::canary && !stack_canary_intact(t->stack_lo))
    report_stack_overflow(t, "the canary word at the bottom of its stack was overwritten");
  stacks_.release({t->stack_lo, t->stack_guard});
  t->stack_lo = nullptr;
  t->ctx = nullptr;
}

void Worker::report_stack_overflow(const Task* t, const char* how) const {
  std::fprintf(stderr,
               "weft: stack overflow in ULT #%llu on worker %d: %s (its stack: %zu bytes, twice "
               "Config::stack_size).\n"
               "weft: raise the ULT stack size with Config::stack_size or the environment variable "
               "WEFT_STACK_SIZE (e.g. WEFT_STACK_SIZE=1M).\n",
               static_cast<unsigned long long>(t->id), index_, how, stacks_.usable_bytes());
  std::abort();
}

void Worker::check_ult_limit() const {
  const std::uint64_t live = rt_->live_ults();
  if (live < rt_->ult_limit()) return;
  throw UltLimitError("weft: cannot spawn another ULT: this runtime has " + std::to_string(live) +
                      " live ULTs, the most Config::max_ults allows (" + std::to_string(rt_->ult_limit()) +
                      "); each reserves a " + std::to_string(stacks_.usable_bytes()) +
                      "-byte stack (twice Config::stack_size) once it runs. Raise the limit with "
                      "Config::max_ults or WEFT_MAX_ULTS, or lower Config::stack_size / WEFT_STACK_SIZE "
                      "if memory is what runs out");
}

// ---------------------------------------------------------------- queues

void Worker::make_ready(Task* t) { enqueue_ready(t); }

WEFT_ALWAYS_INLINE void Worker::enqueue_ready(Task* t) {
  t->ticket = next_ticket_++;
  t->next = nullptr;
  if (ready_tail_)
    ready_tail_->next = t;
  else
    ready_head_ = t;
  ready_tail_ = t;
}

void Worker::push_new(Task* t) {
  // Wake a sleeping worker to steal it, if none is awake and looking (the
  // sleepers count is read first: it is rarely written, while the deque's
  // top is a line thieves keep writing). No fence between the push and the
  // check: a worker falling asleep at this very moment may miss the push,
  // which idle() bounds by sleeping a short while first (see there).
  const bool wake = rt_->sleepers.load(std::memory_order_relaxed) > 0 && deque_.empty() &&
                    rt_->searching.load(std::memory_order_relaxed) == 0;
  deque_.push(t, next_ticket_++);
  if (wake) rt_->wake_idle_worker(this);
}

void Worker::enqueue_remote(Task* t) {
  Task* head = inbox_.load(std::memory_order_relaxed);
  do {
    t->next = head;
  } while (!inbox_.compare_exchange_weak(head, t, std::memory_order_seq_cst, std::memory_order_relaxed));
  if (rest_.load(std::memory_order_seq_cst) > Rest::awake) wake_up();
}

void Worker::wake_up() { rest_word_.load(std::memory_order_seq_cst)->wake(); }

void Worker::drain_inbox() {
  Task* list = inbox_.exchange(nullptr, std::memory_order_acquire);
  Task* fifo = nullptr;
  while (list) {  // the inbox is a stack: reverse it into arrival order
    Task* next = list->next;
    list->next = fifo;
    fifo = list;
    list = next;
  }
  while (fifo) {
    Task* next = fifo->next;
    if (fifo->pinned < 0 && !fifo->ctx && fifo->claim.load(std::memory_order_relaxed) == 0)
      push_new(fifo);  // a new stealable ULT from outside: other workers may take it
    else
      make_ready(fifo);
    fifo = next;
  }
}

bool Worker::claim_for_run(Task* t) {
  std::uint32_t expected = 0;
  if (t->claim.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    t->home = this;
    t->runner_ref = true;  // the queue entry's reference passes to the run
    return true;
  }
  release(t, 1);  // a stale entry: its joiner already ran it
  return false;
}

// Yield's choice: the oldest of the ready FIFO's head and the deque's top.
Task* Worker::pick_next() {
  if (inbox_.load(std::memory_order_relaxed)) drain_inbox();
  if (!timers_.empty() && (++picks_ & 63) == 0) poll_timers();
  for (;;) {
    std::uint32_t top_ticket = 0;
    if (deque_.peek_top_ticket(top_ticket) && (!ready_head_ || ticket_before(top_ticket, ready_head_->ticket))) {
      Task* t = nullptr;
      auto r = deque_.steal(t);
      if (r == WorkDeque::StealResult::ok) {
        if (claim_for_run(t)) return t;
        continue;
      }
      if (r == WorkDeque::StealResult::lost_race) continue;
    }
    if (Task* t = ready_head_) {
      ready_head_ = t->next;
      if (ready_head_)
        // The ULT after it will likely run next: start fetching its saved
        // context (on its stack: often a TLB and cache miss by now).
        __builtin_prefetch(ready_head_->ctx);
      else
        ready_tail_ = nullptr;
      return t;
    }
    return nullptr;
  }
}

void Worker::set_victims(VictimList victims) {
  if (victim_lists_set_ == 2) std::abort();  // by construction: at most twice
  VictimList& list = victim_lists_[victim_lists_set_++];
  list = std::move(victims);
  victims_.store(&list, std::memory_order_release);
}

// A victim's only entry is most often the child its owner is about to join
// (spawn, then join at once): a thief that takes it makes the owner wait for
// it to run elsewhere (a park, a wake-up, the child's lines moving twice).
// So a lone entry is taken only once it has stayed at the top through
// kLoneEntryLooks looks in a row (the idle loop looks every ~0.1 us), that
// is, once its owner is evidently busy with something else; a deque with
// more entries is stolen from at once. (2 workers, create+join one at a
// time: the second worker stole 0.25 % of the children and cost ~20 ns per
// create+join; bench/results/ult-2core.md.)
constexpr std::uint32_t kLoneEntryLooks = 3;

bool Worker::lone_entry_settled(const Worker* victim, std::uint32_t ticket) {
  const auto v = static_cast<std::size_t>(victim->index_);
  if (lone_entries_.size() <= v) lone_entries_.resize(v + 1);
  LoneEntry& seen = lone_entries_[v];
  if (seen.ticket == ticket && seen.looks > 0) return ++seen.looks >= kLoneEntryLooks;
  seen = {ticket, 1};
  return false;
}

Task* Worker::steal() {
  const VictimList& list = *victims_.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < list.workers.size(); ++i) {
    Worker* victim = list.workers[i];
    const int distance = list.distance_class[i];
    ++steal_attempts_[distance];
    std::uint32_t ticket = 0;
    std::int64_t entries = 0;
    if (!victim->deque_.peek_top(ticket, entries)) continue;
    if (entries == 1 && !lone_entry_settled(victim, ticket)) {
      passed_lone_entry_ = true;
      continue;
    }
    for (int attempt = 0; attempt < 8; ++attempt) {
      Task* t = nullptr;
      auto r = victim->deque_.steal(t);
      if (r == WorkDeque::StealResult::empty) break;
      const bool taken = r == WorkDeque::StealResult::ok && claim_for_run(t);
      if (tracing()) [[unlikely]]
        trace_record(TraceKind::steal, taken ? t->id : 0, 0, static_cast<std::uint32_t>(victim->index_),
                     static_cast<std::uint8_t>(distance | (taken ? 0x80 : 0)));
      if (taken) {
        ++steals_[distance];
        return t;
      }
    }
  }
  return nullptr;
}

Task* Worker::find_work() {
  if (Task* t = pick_next()) return t;
  return steal();
}

// One wait on the rest word (until woken, or for `timeout`; negative: no
// limit), counted and traced as a sleep. Returns the ns it slept, or kSleepLetGo:
// the runtime let go of the worker meanwhile (`may_let_go`), and nothing of
// it may be touched any more.
std::uint64_t Worker::sleep_on_futex(std::uint32_t seq, std::chrono::nanoseconds timeout, bool may_let_go) {
  ++sleeps_;
  const std::uint64_t slept_at = steady_ns();
  asleep_since_ns_ = slept_at;
  if (tracing()) [[unlikely]] trace_record(TraceKind::sleep_begin, 0, 0, 0, 0);
  if (rest_word_.load(std::memory_order_relaxed)->sleep(seq, timeout, may_let_go) == RestWord::Woke::let_go)
    return kSleepLetGo;
  const std::uint64_t slept = steady_ns() - slept_at;
  sleeping_ns_.add(slept);
  if (tracing()) [[unlikely]] trace_record(TraceKind::sleep_end, 0, 0, 0, 0);
  ++wakeups_;
  return slept;
}

// The spin is over and the only work it saw was lone entries that did not
// settle (steal()): an owner spawning and joining one child at a time. A
// thief that slept would be woken by that owner's next spawn (a system call
// per spawn); one that kept spinning would burn its CPU for as long as the
// owner goes on. So it naps kLoneEntryNap still counted as searching (which
// keeps push_new from waking anyone), then looks again for 16 rounds (~2 us,
// enough for a lone entry to settle), and so on until kLoneEntryQuietWindows
// such windows in a row show no lone entry (the owner's entry may be up only
// part of the time: a deep sleep after one empty window would be cut short
// by the owner's next spawn). An inbox push or the runtime's stop still wakes
// it; work another worker pushes meanwhile waits for the nap's end. Returns
// the ns napped.
constexpr auto kLoneEntryNap = std::chrono::microseconds(200);
constexpr std::uint32_t kLoneEntryQuietWindows = 8;

std::uint64_t Worker::nap_among_lone_entries() {
  const std::uint32_t seq = rest_word_.load(std::memory_order_relaxed)->seq();
  rest_.store(Rest::napping, std::memory_order_seq_cst);
  std::uint64_t napped = 0;
  if (!inbox_.load(std::memory_order_seq_cst) && !rt_->stopping.load(std::memory_order_seq_cst)) {
    auto timeout = timers_.time_to_next(std::chrono::steady_clock::now());
    if (timeout.count() < 0 || timeout > kLoneEntryNap) timeout = kLoneEntryNap;
    if (timeout.count() != 0) napped = sleep_on_futex(seq, timeout);
  }
  rest_.store(Rest::awake, std::memory_order_seq_cst);
  return napped;
}

// Anything for this worker to do, or the runtime stopping (seq_cst: after
// idle() has published that it is asleep, these reads pair with a pusher's
// read of that state).
bool Worker::work_in_sight() const {
  return inbox_.load(std::memory_order_seq_cst) != nullptr || rt_->any_stealable_work() ||
         rt_->stopping.load(std::memory_order_seq_cst);
}

// Spin for a while looking for work, then sleep on the futex until woken
// (or until the next timer is due); nap instead while only lone entries are
// in sight (above).
Task* Worker::idle(bool* let_go) {
  using clock = std::chrono::steady_clock;
  rt_->searching.fetch_add(1, std::memory_order_seq_cst);
  passed_lone_entry_ = false;
  const auto spin_start = clock::now();
  const auto spin_until = spin_start + std::chrono::microseconds(rt_->config().idle_spin_us);
  std::uint64_t napped_ns = 0;
  std::uint32_t windows_without_lone_entry = 0;
  auto spun = [&] {
    spinning_ns_.add(steady_ns() - steady_ns(spin_start) - napped_ns);
    if (tracing()) [[unlikely]] trace_record(TraceKind::spin_end, 0, 0, 0, 0);
  };
  if (tracing()) [[unlikely]] trace_record(TraceKind::spin_begin, 0, 0, 0, 0);
  // Look for work every ~0.1 us (8 pauses): a helper spawned for a parallel
  // loop should start within that, not within a 64-pause round (~0.6 us).
  // Every 16 rounds the CPU is offered to any other thread that is ready to
  // run on it (sched_yield): a program's main thread woken with a result
  // must not wait out this spin on a CPU a worker is pinned to.
  for (std::uint32_t round = 0;; ++round) {
    if (!timers_.empty()) poll_timers();
    if (Task* t = find_work()) {
      // The last searcher to find work wakes a sleeper if more is left (as
      // Go's scheduler does), so a burst of spawns is not left to one worker.
      if (rt_->searching.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
          rt_->sleepers.load(std::memory_order_relaxed) > 0 && rt_->any_stealable_work())
        rt_->wake_idle_worker(this);
      spun();
      return t;
    }
    if (rt_->stopping.load(std::memory_order_acquire)) {
      rt_->searching.fetch_sub(1, std::memory_order_seq_cst);
      spun();
      return nullptr;
    }
    if ((round & 15) == 15) {
      if (clock::now() >= spin_until) {
        if (passed_lone_entry_)
          windows_without_lone_entry = 0;
        else if (napped_ns == 0 || ++windows_without_lone_entry >= kLoneEntryQuietWindows)
          break;
        if (rt_->any_deque_holds_several()) break;
        passed_lone_entry_ = false;
        napped_ns += nap_among_lone_entries();
        continue;
      }
      sched_yield();
    }
    for (int i = 0; i < 8; ++i) cpu_relax();
  }
  rt_->searching.fetch_sub(1, std::memory_order_seq_cst);
  spun();

  // Idle: give back the memory of stacks that have gone unused for a while,
  // until work arrives (after a burst of 10^6 ULTs a trim step is a few
  // hundred madvises: milliseconds that a wake-up would otherwise wait).
  const bool more_to_trim = StackCache::trim_idle_depots([this] { return work_in_sight(); });

  RestWord& rest_word = *rest_word_.load(std::memory_order_relaxed);
  const std::uint32_t seq = rest_word.seq();
  rest_.store(Rest::asleep, std::memory_order_seq_cst);
  rt_->sleepers.fetch_add(1, std::memory_order_seq_cst);
  if (!work_in_sight()) {
    // From here on the runtime may let go of this worker while it sleeps
    // (stop()): after such a sleep (true) nothing of it may be touched.
    auto let_go_in_sleep = [&](std::chrono::nanoseconds timeout) {
      if (sleep_on_futex(seq, timeout, let_go != nullptr) != kSleepLetGo) return false;
      *let_go = true;
      return true;
    };
    // push_new checks for sleepers without a fence, so a push racing with
    // this fall into sleep can go unseen by both sides: the first sleep is
    // short, and the deques are looked at again after it.
    auto timeout = timers_.time_to_next(clock::now());
    const auto first_nap = std::chrono::microseconds(200);
    const bool nap = timeout.count() < 0 || timeout > first_nap;
    if (nap) timeout = first_nap;
    if (timeout.count() != 0) {
      if (let_go_in_sleep(timeout)) return nullptr;
      if (nap && rest_word.seq() == seq && !work_in_sight()) {
        auto rest = timers_.time_to_next(clock::now());
        if (more_to_trim && (rest.count() < 0 || rest > std::chrono::seconds(1))) rest = std::chrono::seconds(1);
        if (let_go_in_sleep(rest)) return nullptr;
      }
    }
  }
  rest_.store(Rest::awake, std::memory_order_seq_cst);
  rt_->sleepers.fetch_sub(1, std::memory_order_seq_cst);
  if (!timers_.empty()) poll_timers();
  return nullptr;
}

// ---------------------------------------------------------------- ULT operations

// Fair yield: the oldest of the ready FIFO's head and the deque's top runs
// next, and the caller goes to the back of the FIFO. The common case (the
// FIFO's head is next) is handled here without pick_next().
WEFT_ALWAYS_INLINE void Worker::yield() {
  if (inbox_.load(std::memory_order_relaxed)) [[unlikely]] drain_inbox();
  if (!timers_.empty() && (++picks_ & 63) == 0) [[unlikely]] poll_timers();
  std::uint32_t top_ticket = 0;
  const bool unstarted = deque_.peek_top_ticket(top_ticket);
  Task* self = current_;
  Task* next = ready_head_;
  if (next && (!unstarted || ticket_before(next->ticket, top_ticket))) {
    ready_head_ = next->next;
    if (ready_head_)
      __builtin_prefetch(ready_head_->ctx);
    else
      ready_tail_ = nullptr;
    enqueue_ready(self);
  } else if (unstarted) {
    enqueue_ready(self);
    next = pick_next();
    if (next == self) return;  // a thief took the unstarted ULT meanwhile
  } else {
    return;  // nothing else is ready
  }
  ++yields_;
  switch_to(next, PostSwitch::none);
}

void Worker::park_current() {
  Task* self = current_;
  if (self->wake.exchange(kNoToken, std::memory_order_acq_rel) == kToken) return;  // a pending unpark
  ++parks_;
  Task* next = pick_next();
  switch_to(next ? next : &scheduler_, PostSwitch::park);
}

void Worker::finish_current() {
  Task* self = current_;
  ++finished;
  // While tracing, this run's end is recorded before `done` is published:
  // once it is, the joiner (perhaps the thread about to call trace::stop)
  // may go on and stop the trace before a record made after the switch.
  const std::uint8_t trace = trace_flag_.load(std::memory_order_relaxed);
  Task* next = self->continuation;
  if (next) {
    // The joiner handed us its worker and waits, suspended, for exactly this.
    self->continuation = nullptr;
    if (trace) [[unlikely]] trace_run(self, next, static_cast<std::uint8_t>(PostSwitch::finish));
    self->done.store(kFinished, std::memory_order_release);
  } else {
    if (trace) [[unlikely]] {
      next = self == host_target_ ? &scheduler_ : pick_next();
      if (!next) next = &scheduler_;
      trace_run(self, next, static_cast<std::uint8_t>(PostSwitch::finish));
    }
    std::uint32_t old = self->done.fetch_or(kFinished, std::memory_order_acq_rel);
    if (old & kJoinerParked) {
      // The joiner may see kFinished and go on before this unpark reaches
      // it; the reference it lent us keeps its block alive until then.
      Task* joiner = self->joiner;
      unpark(UltRef(static_cast<TaskBase*>(joiner)));
      if (lends_join_reference(joiner)) release(joiner, 1);
    }
    if (!next) next = self == host_target_ ? &scheduler_ : pick_next();
    if (!next) next = &scheduler_;
  }
  if (rt_->shutdown_waiting.load(std::memory_order_relaxed)) rt_->note_finished();
  jump(next, static_cast<std::uint8_t>(PostSwitch::finish));  // already traced, if at all
  __builtin_unreachable();
}

// Whether the stack the caller runs on has the configured stack size free
// below the current frame, so that a child can run on it (run_inline).
WEFT_ALWAYS_INLINE bool Worker::stack_has_room_for_inline(const Task* self) const {
  const char* sp = static_cast<const char*>(__builtin_frame_address(0));
  return self->stack_lo && static_cast<std::size_t>(sp - self->stack_lo) >= inline_min_free_;
}

// Join fast path, cheapest form: `child` (unstarted, now ours) runs as a
// plain call on the joiner's own stack: no stack of its own, no switch. Its
// joiner is waiting for exactly this child, so if the child parks, the
// joiner's frames below it waiting with it changes nothing (Argobots runs
// ULTs "on the creator's stack" the same way).
WEFT_ALWAYS_INLINE void Worker::run_inline(Task* child, Task* self, bool entry_ref) {
  child->home = this;
  child->runner_ref = entry_ref;
  child->stack_lo = self->stack_lo;
  child->stack_guard = self->stack_guard;
  child->stack_borrowed = true;
  sanitizer::borrow_context(child, self);
  current_ = child;
  ++inline_runs_;
  try {
    child->body(child);
  } catch (...) {
    child->error = std::current_exception();
  }
  // Same worker: a started ULT (the joiner, whose stack this is) never moves.
  current_ = self;
  sanitizer::end_borrow(child);
  child->stack_lo = nullptr;
  child->stack_borrowed = false;
  child->ctx = nullptr;
  ++finished;
  child->done.store(kFinished, std::memory_order_release);  // its only joiner is `self`
  if (rt_->shutdown_waiting.load(std::memory_order_relaxed)) rt_->note_finished();
  if (entry_ref) {
    // The entry's reference and the handle's (held by `self`, the joiner)
    // are usually the only ones left: then a plain store drops one.
    if (child->refs.load(std::memory_order_acquire) == 2)
      child->refs.store(1, std::memory_order_relaxed);
    else
      release(child, 1);
  } else {
    trim_stale_entries();
  }
}

// run_inline with the child's run as a slice of its own in the trace. (The
// untraced run_inline tests no flag: a trace that starts while a child runs
// inline misses that child's run.)
void Worker::run_inline_traced(Task* child, Task* self, bool entry_ref) {
  trace_run(self, child, kTraceInlineJoin);
  run_inline(child, self, entry_ref);
  if (tracing()) trace_run(child, self, static_cast<std::uint8_t>(PostSwitch::finish));
}

// Join fast path when the joiner's stack has no room: `child` runs at once
// on its own stack; its finish switches straight back here.
WEFT_ALWAYS_INLINE void Worker::run_claimed_child(Task* child, Task* self, bool entry_ref) {
  child->home = this;
  child->runner_ref = entry_ref;
  child->continuation = self;
  switch_to(child, PostSwitch::none);
  if (!entry_ref) trim_stale_entries();
}

// Pops deque entries whose ULTs a joiner already ran (their tickets are kept
// for the first live one, which is pushed back).
void Worker::trim_stale_entries() {
  while (true) {
    const Task* bottom = deque_.peek_bottom();
    if (!bottom || bottom->claim.load(std::memory_order_acquire) == 0) return;  // live: nothing to trim
    WorkDeque::Entry e = deque_.pop_entry();
    if (!e.task) return;
    if (e.task->claim.load(std::memory_order_acquire) == 0) {
      deque_.push(e.task, e.ticket);
      return;
    }
    release(e.task, 1);
  }
}

WEFT_ALWAYS_INLINE bool Worker::try_run_unstarted(Task* child) {
  Task* self = current_;
  bool entry_ref;
  // Only the owner moves the bottom, so pop() yields `child` or, if a thief
  // won the race for the last entry, nothing. A child joined in creation
  // order is the oldest entry instead: take it from the top. (Claimed and
  // left behind, every such entry stayed in the deque, holding its block,
  // until this ULT yielded or parked, so a ULT that spawned and joined
  // batches in order without blocking grew without bound: ~27 MB per batch
  // of 10^5.)
  if ((deque_.peek_bottom() == child && deque_.pop() == child) || deque_.take_top_if(child)) {
    child->claim.store(1, std::memory_order_relaxed);  // its only entry is ours
    entry_ref = true;
  } else {
    std::uint32_t expected = 0;
    if (!child->claim.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) return false;
    entry_ref = false;  // its deque entry stays behind, stale
  }
  if (stack_has_room_for_inline(self)) {
    if (tracing()) [[unlikely]]
      run_inline_traced(child, self, entry_ref);
    else
      run_inline(child, self, entry_ref);
  } else
    run_claimed_child(child, self, entry_ref);
  return true;
}

// ---------------------------------------------------------------- timers

void Worker::add_timer(TimerEntry* e) {
  timers_.add(e);
  rt_->pending_timers.fetch_add(1, std::memory_order_relaxed);
}

void Worker::cancel_timer(TimerEntry* e) {
  if (timers_.cancel(e)) rt_->pending_timers.fetch_sub(1, std::memory_order_relaxed);
}

void Worker::poll_timers() {
  const std::size_t fired = timers_.fire_due(std::chrono::steady_clock::now(),
                                             [](TimerEntry* e) { unpark(UltRef(static_cast<TaskBase*>(e->task))); });
  if (fired) rt_->pending_timers.fetch_sub(static_cast<std::int64_t>(fired), std::memory_order_relaxed);
}

WorkerStats Worker::stats() const {
  WorkerStats s;
  s.worker = index_;
  s.os_cpu = os_cpu_;
  s.numa_node = os_node_;
  s.spawns = spawned.get();
  s.switches = switches_.get();
  s.yields = yields_.get();
  s.parks = parks_.get();
  s.unparks = unparks.get();
  s.sleeps = sleeps_.get();
  s.wakeups = wakeups_.get();
  s.inline_runs = inline_runs_.get();
  s.ults_run = starts_.get() + s.inline_runs;
  for (int d = 0; d < kStealDistanceClasses; ++d) {
    s.steal_attempts_by_distance[d] = steal_attempts_[d].get();
    s.steals_by_distance[d] = steals_[d].get();
    s.steals += s.steals_by_distance[d];
  }
  // Idle time is added when a spin or sleep ends; one in progress counts as busy until then.
  const std::uint64_t start = started_at_ns_.get();
  const std::uint64_t stop = stopped_at_ns_.get();
  const std::uint64_t end = stop ? stop : steady_ns();
  s.spinning_ns = spinning_ns_.get();
  s.sleeping_ns = sleeping_ns_.get();
  const std::uint64_t lifetime = start && end > start ? end - start : 0;
  s.busy_ns = lifetime > s.spinning_ns + s.sleeping_ns ? lifetime - s.spinning_ns - s.sleeping_ns : 0;
  s.started_after_ns = start > rt_->constructed_at_ns() ? start - rt_->constructed_at_ns() : 0;
  return s;
}

// ---------------------------------------------------------------- entry points
// The out-of-line functions ULTs call to switch; everything below them is inlined.

void wait_finished(TaskBase* base) {
  if (base->done.load(std::memory_order_acquire) & kFinished) return;
  Task* t = as_task(base);
  Worker* w = tls_worker;
  if (w && t->pinned < 0 && t->runtime == w->runtime() && w->try_run_unstarted(t)) return;
  // It runs elsewhere (stolen, pinned to another worker): a short child is
  // usually done before a park and the unpark's hand-off back would be.
  if (spin_briefly([t] { return (t->done.load(std::memory_order_acquire) & kFinished) != 0; })) return;
  // Once kJoinerParked is published, the finisher will unpark us after it
  // sets kFinished, and we may see kFinished and go on (finish, be freed and
  // the block reused) before that unpark touches our task: lend the finisher
  // a reference, which it drops after the unpark (ThreadSanitizer found the
  // unpark writing into a reused block).
  Task* self = as_task(current_task());
  const bool lend = lends_join_reference(self);
  t->joiner = self;
  if (lend) retain(self);
  if (t->done.fetch_or(kJoinerParked, std::memory_order_acq_rel) & kFinished) {
    if (lend) release(self, 1);  // finished first: no unpark will come
    return;
  }
  while (!(t->done.load(std::memory_order_acquire) & kFinished)) park();
}

}  // namespace weft::detail

namespace weft {

void this_ult::yield() {
  if (detail::Worker* w = detail::tls_worker)
    w->yield();
  else
    std::this_thread::yield();
}

}  // namespace weft
