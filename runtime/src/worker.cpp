// The per-core scheduler: context switches, fair yield, park/unpark, join,
// work stealing, timers and sleeping idle workers. See worker.hpp for where a
// ready ULT waits and docs/runtime.md for the design.

#include "worker.hpp"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <boost/context/detail/fcontext.hpp>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <thread>

#include "futex.hpp"
#include "weft/runtime/this_ult.hpp"
#include "sanitizer.hpp"
#include "stack_overflow.hpp"
#include "weft/sched/cpuset.hpp"

namespace bctx = boost::context::detail;

#define WEFT_ALWAYS_INLINE __attribute__((always_inline)) inline

namespace weft::detail {

__attribute__((tls_model("initial-exec"))) thread_local Worker* tls_worker = nullptr;

namespace {

const void* stack_bottom_of(const Task* t) {
  return t->stack_lo ? static_cast<const void*>(t->stack_lo) : t->asan_stack_bottom;
}
std::size_t stack_size_of(const Task* t) { return t->stack_lo ? t->stack_size : t->asan_stack_size; }

void remember_thread_stack([[maybe_unused]] Task* t) {
#if defined(WEFT_ASAN)
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    std::size_t size = 0;
    pthread_attr_getstack(&attr, &addr, &size);
    t->asan_stack_bottom = addr;
    t->asan_stack_size = size;
    pthread_attr_destroy(&attr);
  }
#endif
}

}  // namespace

// First thing a context runs after a switch: finish the sanitizer switch,
// save the suspended context, run the post-switch action for it.
void on_resume(void* from_ctx, void* from_task) {
  Worker* w = tls_worker;
  sanitizer::finish_switch(w->current_->asan_fake_stack);
  auto* from = static_cast<Task*>(from_task);
  from->ctx = from_ctx;
  w->run_post_switch(from);
}

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
  return sched::allocate_node_memory(bytes, where.os_node);  // bytes == sizeof(Worker): no subclasses
}
void Worker::operator delete(void* p, OnNode) noexcept { sched::free_node_memory(p, sizeof(Worker)); }
void Worker::operator delete(void* p) noexcept { sched::free_node_memory(p, sizeof(Worker)); }

Worker::Worker(RuntimeImpl* rt, int index, int os_cpu, int os_node)
    : rt_(rt), index_(index), os_cpu_(os_cpu), os_node_(os_node),
      deque_(1024, os_node),
      stacks_(rt->config().stack_size, static_cast<std::size_t>(rt->config().stack_pool_limit), os_node) {
  scheduler_.kind = TaskKind::scheduler;
  scheduler_.home = this;
  current_ = &scheduler_;
}

Worker::~Worker() {
  while (task_pool_) {
    Task* t = task_pool_;
    task_pool_ = t->next;
    ::operator delete(static_cast<void*>(t), std::align_val_t{64});
  }
}

void Worker::start() { thread_ = std::thread([this] { thread_main(); }); }
void Worker::join_thread() {
  if (thread_.joinable()) thread_.join();
}

void Worker::thread_main() {
  tls_worker = this;
  if (rt_->config().pin_workers) sched::pin_current_thread(os_cpu_);
  altstack_ = install_overflow_altstack();
  scheduler_.tsan_fiber = sanitizer::current_fiber();
  remember_thread_stack(&scheduler_);
  while (true) {
    Task* next = find_work();
    if (!next) next = idle();
    if (next) {
      switch_to(next, PostSwitch::none);
      continue;
    }
    if (rt_->stopping.load(std::memory_order_acquire)) break;
  }
  remove_overflow_altstack(altstack_);
  tls_worker = nullptr;
}

// ---------------------------------------------------------------- switching

void Worker::start_context(Task* t) {
  t->stack_lo = stacks_.acquire();
  t->stack_size = stacks_.usable_bytes();
  t->ctx = bctx::make_fcontext(t->stack_lo + t->stack_size, t->stack_size, &task_trampoline);
  t->tsan_fiber = sanitizer::create_fiber();
  t->home = this;
}

WEFT_ALWAYS_INLINE void Worker::switch_to(Task* next, PostSwitch action) {
  Task* prev = current_;
  post_action_ = action;
  post_task_ = prev;
  if (!next->ctx) start_context(next);
  current_ = next;
  ++switches_;
  sanitizer::start_switch(action == PostSwitch::finish ? nullptr : &prev->asan_fake_stack,
                          stack_bottom_of(next), stack_size_of(next), next->tsan_fiber);
  bctx::transfer_t t = bctx::jump_fcontext(next->ctx, prev);
  on_resume(t.fctx, t.data);
}

void Worker::run_post_switch(Task* from) {
  PostSwitch action = post_action_;
  post_action_ = PostSwitch::none;
  switch (action) {
    case PostSwitch::none:
      break;
    case PostSwitch::park: {
      // Now that its context is saved, the parked ULT may be resumed: publish
      // "parked" unless an unpark arrived while it was switching away.
      std::uint32_t expected = 0;
      if (!from->wake.compare_exchange_strong(expected, 2, std::memory_order_acq_rel)) {
        from->wake.store(0, std::memory_order_relaxed);
        make_ready(from);
      }
      break;
    }
    case PostSwitch::finish:
      release_stack(from);
      sanitizer::destroy_fiber(from->tsan_fiber);
      from->tsan_fiber = nullptr;
      if (from->runner_ref) release(from, 1);
      break;
  }
}

void Worker::release_stack(Task* t) {
  stacks_.release(t->stack_lo);
  t->stack_lo = nullptr;
  t->ctx = nullptr;
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
  bool was_empty = deque_.empty();
  deque_.push(t, next_ticket_++);
  if (was_empty) {
    // Pairs with the sleeper's fetch_add on `sleepers` and re-check of the deques.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (rt_->sleepers.load(std::memory_order_seq_cst) > 0 &&
        rt_->searching.load(std::memory_order_seq_cst) == 0)
      rt_->wake_idle_worker(this);
  }
}

void Worker::enqueue_remote(Task* t) {
  Task* head = inbox_.load(std::memory_order_relaxed);
  do {
    t->next = head;
  } while (!inbox_.compare_exchange_weak(head, t, std::memory_order_seq_cst, std::memory_order_relaxed));
  if (sleeping_.load(std::memory_order_seq_cst)) wake_up();
}

void Worker::wake_up() {
  futex_word_.fetch_add(1, std::memory_order_seq_cst);
  futex_wake(&futex_word_, 1);
}

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

Task* Worker::pick_next() {
  if (inbox_.load(std::memory_order_relaxed)) drain_inbox();
  if (!timers_.empty() && (++picks_ & 63) == 0) poll_timers();
  for (;;) {
    std::uint64_t top_ticket = 0;
    if (deque_.peek_top_ticket(top_ticket) && (!ready_head_ || top_ticket < ready_head_->ticket)) {
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
      if (!ready_head_) ready_tail_ = nullptr;
      return t;
    }
    return nullptr;
  }
}

void Worker::set_victims(std::vector<Worker*> victims) {
  if (victim_lists_set_ == 2) std::abort();  // by construction: at most twice
  std::vector<Worker*>& list = victim_lists_[victim_lists_set_++];
  list = std::move(victims);
  victims_.store(&list, std::memory_order_release);
}

Task* Worker::steal() {
  for (Worker* victim : victims()) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      Task* t = nullptr;
      auto r = victim->deque_.steal(t);
      if (r == WorkDeque::StealResult::empty) break;
      if (r == WorkDeque::StealResult::ok && claim_for_run(t)) {
        ++steals_;
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

// Spin for a while looking for work, then sleep on the futex until woken
// (or until the next timer is due).
Task* Worker::idle() {
  using clock = std::chrono::steady_clock;
  rt_->searching.fetch_add(1, std::memory_order_seq_cst);
  const auto spin_until = clock::now() + std::chrono::microseconds(rt_->config().idle_spin_us);
  for (std::uint32_t round = 0;; ++round) {
    if (!timers_.empty()) poll_timers();
    if (Task* t = find_work()) {
      rt_->searching.fetch_sub(1, std::memory_order_seq_cst);
      return t;
    }
    if (rt_->stopping.load(std::memory_order_acquire)) {
      rt_->searching.fetch_sub(1, std::memory_order_seq_cst);
      return nullptr;
    }
    if ((round & 7) == 7 && clock::now() >= spin_until) break;
    for (int i = 0; i < 64; ++i) cpu_relax();
  }
  rt_->searching.fetch_sub(1, std::memory_order_seq_cst);

  std::uint32_t seq = futex_word_.load(std::memory_order_seq_cst);
  sleeping_.store(true, std::memory_order_seq_cst);
  rt_->sleepers.fetch_add(1, std::memory_order_seq_cst);
  bool work_visible = inbox_.load(std::memory_order_seq_cst) != nullptr || rt_->any_stealable_work() ||
                      rt_->stopping.load(std::memory_order_seq_cst);
  if (!work_visible) {
    auto timeout = time_to_next_timer();
    if (timeout.count() != 0) {
      ++sleeps_;
      futex_wait(&futex_word_, seq, timeout);
      ++wakeups_;
    }
  }
  sleeping_.store(false, std::memory_order_seq_cst);
  rt_->sleepers.fetch_sub(1, std::memory_order_seq_cst);
  if (!timers_.empty()) poll_timers();
  return nullptr;
}

// ---------------------------------------------------------------- ULT operations

WEFT_ALWAYS_INLINE void Worker::yield() {
  if (!ready_head_ && deque_.empty() && !inbox_.load(std::memory_order_relaxed)) {
    if (timers_.empty() || (++picks_ & 63) != 0) return;
    poll_timers();
    if (!ready_head_) return;
  }
  Task* self = current_;
  enqueue_ready(self);
  Task* next = pick_next();
  if (next == self) return;
  ++yields_;
  switch_to(next, PostSwitch::none);
}

WEFT_ALWAYS_INLINE void Worker::park_current() {
  Task* self = current_;
  if (self->wake.exchange(0, std::memory_order_acq_rel) == 1) return;  // a pending unpark
  ++parks_;
  Task* next = pick_next();
  switch_to(next ? next : &scheduler_, PostSwitch::park);
}

void Worker::finish_current() {
  Task* self = current_;
  ++finished;
  Task* next = self->continuation;
  if (next) {
    // The joiner handed us its worker and waits, suspended, for exactly this.
    self->continuation = nullptr;
    self->done.store(kFinished, std::memory_order_release);
  } else {
    std::uint32_t old = self->done.fetch_or(kFinished, std::memory_order_acq_rel);
    if (old & kJoinerParked) unpark(UltRef(self->joiner));
    next = pick_next();
    if (!next) next = &scheduler_;
  }
  if (rt_->shutdown_waiting.load(std::memory_order_relaxed)) rt_->note_finished();
  switch_to(next, PostSwitch::finish);
  __builtin_unreachable();
}

// Join fast path: `child` (unstarted, now ours) runs at once on this worker;
// its finish switches straight back here.
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
  // Only the owner moves the bottom, so pop() yields `child` or, if a thief
  // won the race for the last entry, nothing.
  if (deque_.peek_bottom() == child && deque_.pop() == child) {
    child->claim.store(1, std::memory_order_relaxed);  // its only entry is ours
    run_claimed_child(child, self, true);
    return true;
  }
  std::uint32_t expected = 0;
  if (child->claim.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    run_claimed_child(child, self, false);
    return true;
  }
  return false;
}

// ---------------------------------------------------------------- timers

namespace {
bool timer_later(const TimerEntry* a, const TimerEntry* b) { return a->deadline > b->deadline; }
}  // namespace

void Worker::add_timer(TimerEntry* e) {
  timers_.push_back(e);
  std::push_heap(timers_.begin(), timers_.end(), timer_later);
  rt_->pending_timers.fetch_add(1, std::memory_order_relaxed);
}

void Worker::cancel_timer(TimerEntry* e) {
  if (e->fired) return;
  auto it = std::find(timers_.begin(), timers_.end(), e);
  if (it == timers_.end()) return;
  timers_.erase(it);
  std::make_heap(timers_.begin(), timers_.end(), timer_later);
  rt_->pending_timers.fetch_sub(1, std::memory_order_relaxed);
}

void Worker::poll_timers() {
  auto now = std::chrono::steady_clock::now();
  while (!timers_.empty() && timers_.front()->deadline <= now) {
    std::pop_heap(timers_.begin(), timers_.end(), timer_later);
    TimerEntry* e = timers_.back();
    timers_.pop_back();
    e->fired = true;
    rt_->pending_timers.fetch_sub(1, std::memory_order_relaxed);
    unpark(UltRef(e->task));
  }
}

std::chrono::nanoseconds Worker::time_to_next_timer() const {
  if (timers_.empty()) return std::chrono::nanoseconds(-1);
  auto d = timers_.front()->deadline - std::chrono::steady_clock::now();
  return std::max(std::chrono::duration_cast<std::chrono::nanoseconds>(d), std::chrono::nanoseconds(0));
}

// ---------------------------------------------------------------- task blocks

Task* Worker::allocate_task_block() {
  void* mem;
  if (task_pool_) {
    mem = task_pool_;
    task_pool_ = task_pool_->next;
    --task_pool_size_;
  } else {
    mem = ::operator new(kTaskBlockBytes, std::align_val_t{64});
  }
  return ::new (mem) Task{};
}

void Worker::free_task_block(Task* t) {
  if (task_pool_size_ < static_cast<std::size_t>(rt_->config().stack_pool_limit) * 16) {
    t->next = task_pool_;
    task_pool_ = t;
    ++task_pool_size_;
    return;
  }
  ::operator delete(static_cast<void*>(t), std::align_val_t{64});
}

WorkerStats Worker::stats() const {
  WorkerStats s;
  s.worker = index_;
  s.os_cpu = os_cpu_;
  s.numa_node = os_node_;
  s.spawns = spawned.get();
  s.switches = switches_.get();
  s.yields = yields_.get();
  s.steals = steals_.get();
  s.parks = parks_.get();
  s.sleeps = sleeps_.get();
  s.wakeups = wakeups_.get();
  return s;
}

// ---------------------------------------------------------------- entry points
// The out-of-line functions ULTs call to switch; everything below them is inlined.

void wait_finished(Task* t) {
  if (t->done.load(std::memory_order_acquire) & kFinished) return;
  Worker* w = tls_worker;
  if (w && t->pinned < 0 && t->runtime == w->runtime() && w->try_run_unstarted(t)) return;
  t->joiner = current_task();
  if (t->done.fetch_or(kJoinerParked, std::memory_order_acq_rel) & kFinished) return;
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

void park() {
  if (detail::Worker* w = detail::tls_worker)
    w->park_current();
  else
    detail::park_external();
}

bool park_until(std::chrono::steady_clock::time_point deadline) {
  detail::Worker* w = detail::tls_worker;
  if (!w) return detail::park_external_until(deadline);
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

}  // namespace weft
