#include "worker_threads.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include "futex.hpp"
#include "stack_allocator.hpp"
#include "stack_overflow.hpp"
#include "weft/sched/cpuset.hpp"
#include "worker.hpp"

namespace weft::detail {

namespace {

// How long a pooled thread looks for its next job before it sleeps: as long
// as an idle worker spins (Config::idle_spin_us's default), so a runtime
// started right after another one stopped (a program that starts one per
// phase, `weft-bench startup`'s warm case) finds its threads awake, as
// oneTBB's finds its market's workers still spinning.
constexpr auto kPooledSpin = std::chrono::microseconds(50);
// A thread whose job is on its way (a new thread, or an idle one a runtime
// has taken) gets it once the runtime has constructed its workers (a few
// hundred microseconds on 16 CPUs): it looks that long before it sleeps, so
// that the runtime does not wait for it to wake up, and offers its CPU at
// every look, since the constructing thread may share it (on 2 CPUs,
// offering it every 16th look made a 2-worker start 6x slower).
constexpr auto kFirstJobSpin = std::chrono::milliseconds(2);

}  // namespace

// One pooled kernel thread.
struct PooledThread {
  std::atomic<std::uint32_t> word{0};  // bumped when a job arrives, or is on its way (nudge)
  RestWord rest;                       // where its workers sleep
  std::atomic<bool> sleeping{false};   // on the futex: a bump must wake it
  std::atomic<Worker*> job{nullptr};   // taken (exchanged for null) by the thread
  cpu_set_t original{};                // the process's mask when it was created (where unpinned workers run)
  int pinned_to = -1;                  // the CPU it is pinned to, -1: its original mask (read under the pool lock)
  bool created = false;                // its kernel thread exists or is being created (the creator's view)
  // How it is created (the constructor prepares it, create_threads uses it).
  pthread_attr_t attr{};               // detached, on its stack, on its CPU
  char* guard = nullptr;               // the page below its stack
  char* signal_stack = nullptr;        // kSignalStack bytes, above its stack
  PooledThread* const* share = nullptr;  // the threads it creates before it waits for its first job
  std::size_t share_size = 0;
  void (*meanwhile)() = nullptr;         // then runs this (WorkerThreads)
};

namespace {

std::mutex& pool_mutex() {
  static auto* m = new std::mutex;  // never destroyed: pooled threads outlive static destruction
  return *m;
}
std::vector<PooledThread*>& idle_threads() {
  static auto* v = new std::vector<PooledThread*>;
  return *v;
}

// Looks until `ready()` holds (true) or `spin` has passed (false), offering
// the CPU (sched_yield) at every `yield_every`-th look: the spin part of the
// pooled threads' and the shutdown's waits, which then sleep on a futex.
template <class Ready>
bool look_for(std::chrono::nanoseconds spin, std::uint32_t yield_every, Ready ready) {
  using clock = std::chrono::steady_clock;
  const auto until = clock::now() + spin;
  for (std::uint32_t round = 1;; ++round) {
    if (ready()) return true;
    if (round % yield_every == 0) {
      if (clock::now() >= until) return false;
      sched_yield();
    }
    for (int i = 0; i < 8; ++i) cpu_relax();
  }
}

// Waits until `word` moves on from `seen`: spins, then sleeps on the futex.
// A thread whose job is on its way (`expecting`: a new thread, or one a
// runtime has taken) spins kFirstJobSpin offering its CPU at every look;
// an idle one spins kPooledSpin offering it every 16th (the thread that
// starts the next runtime may share it). `sleeping` and `word` form a Dekker
// pair with bump(): one of the two sees the other, so no bump is missed.
void wait_for_word(PooledThread* self, std::uint32_t seen, bool expecting) {
  if (look_for(expecting ? kFirstJobSpin : kPooledSpin, expecting ? 1 : 16,
               [&] { return self->word.load(std::memory_order_acquire) != seen; }))
    return;
  self->sleeping.store(true, std::memory_order_seq_cst);
  while (self->word.load(std::memory_order_seq_cst) == seen) futex_wait(&self->word, seen);
  self->sleeping.store(false, std::memory_order_relaxed);
}

// The memory of a batch of new threads, one mapping for all of them: each
// has [guard page][stack][signal stack]. glibc mapped each stack itself (an
// mmap and an mprotect), and the signal stack came from malloc, whose first
// call on a thread creates that thread's arena (an mmap, an munmap, an
// mprotect): with 16 workers those ~100 calls took turns on the process's
// mmap lock with the rest of the start (bench/results/16core-2026-11-27b.md).
// Mapped once per thread for the life of the process, as the threads live.
constexpr std::size_t kThreadStack = 1 << 20;  // the scheduler's; ULTs run on stacks of their own
constexpr std::size_t kSignalStack = 64 * 1024;

void map_thread_memory(const std::vector<PooledThread*>& threads) {
  const std::size_t page = page_bytes();
  const std::size_t slot = page + kThreadStack + kSignalStack;
  void* base = mmap(nullptr, slot * threads.size(), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "weft: no memory for worker threads' stacks");
  for (std::size_t i = 0; i < threads.size(); ++i) {
    PooledThread* t = threads[i];
    t->guard = static_cast<char*>(base) + i * slot;
    t->signal_stack = t->guard + page + kThreadStack;
    cpu_set_t where = t->original;
    if (t->pinned_to >= 0) {
      CPU_ZERO(&where);
      CPU_SET(t->pinned_to, &where);
    }
    pthread_attr_init(&t->attr);
    pthread_attr_setdetachstate(&t->attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstack(&t->attr, t->guard + page, kThreadStack);
    pthread_attr_setaffinity_np(&t->attr, sizeof where, &where);
  }
}

// On the new thread: its guard page, as ULT stacks get theirs (a canary
// there, where neither a marker nor a page is to be had, is never checked),
// and its signal stack.
void install_guard_and_signal_stack(PooledThread* self) {
  (void)install_guard(self->guard + page_bytes());
  install_overflow_altstack(self->signal_stack, kSignalStack);
}

void bump(PooledThread* t) {
  t->word.fetch_add(1, std::memory_order_seq_cst);
  if (t->sleeping.load(std::memory_order_seq_cst)) futex_wake(&t->word, 1);  // a spinning one sees the word
  t->rest.wake_if_let_go();  // given back to the pool while its worker slept
}

// Gives thread t its next job.
void hand_over(PooledThread* t, Worker* w) {
  t->job.store(w, std::memory_order_release);
  bump(t);
}

// The threads read their shares from a batch's list while they create
// theirs (PooledThread::share): it is kept as long as they are.
const std::vector<PooledThread*>& keep_creation_plan(const std::vector<PooledThread*>& batch) {
  static auto* plans = new std::vector<std::unique_ptr<const std::vector<PooledThread*>>>;
  std::lock_guard lock(pool_mutex());
  plans->push_back(std::make_unique<const std::vector<PooledThread*>>(batch));
  return *plans->back();
}

void give_back(PooledThread* t) {
  std::lock_guard lock(pool_mutex());
  idle_threads().push_back(t);
}

void* pooled_thread_main(void* self);

// Creates the kernel thread of each of `threads`, in parallel: each creation
// costs its creator a clone3 (and took, with glibc's stacks, an mmap and an
// mprotect), and one thread creating all of them made the last worker wait
// for every one (bench/results/startup-2core.md). The caller hands the upper
// half to a new thread, which creates their threads the same way before it
// waits for its job, and goes on with the lower half: n threads exist after
// ~log2(n) rounds, and the caller made log2(n) of them. Each thread is
// created on its CPU (the affinity in its attributes, applied before it
// first runs) rather than pinning itself once running, which migrated a
// running thread (bench/results/16core-2026-11-27b.md).
// `created` is the constructor's record (for its failure path): only the
// first caller keeps it. Allocates nothing (see map_thread_memory).
void create_threads(PooledThread* const* threads, std::size_t n, bool keep_record) {
  while (n > 0) {
    const std::size_t half = n / 2;
    PooledThread* t = threads[half];
    t->share = threads + half + 1;
    t->share_size = n - half - 1;
    n = half;
    pthread_t id;
    const int error = pthread_create(&id, &t->attr, pooled_thread_main, t);
    if (error != 0) throw std::system_error(error, std::generic_category(), "weft: could not create a worker thread");
    if (!keep_record) continue;
    t->created = true;  // and its share will be, or the process stops (pooled_thread_main)
    for (std::size_t i = 0; i < t->share_size; ++i) t->share[i]->created = true;
  }
}

void* pooled_thread_main(void* arg) {
  auto* const self = static_cast<PooledThread*>(arg);
  install_guard_and_signal_stack(self);
  if (self->share_size > 0) {
    try {
      create_threads(self->share, self->share_size, false);
    } catch (const std::exception& e) {
      // A runtime whose workers cannot all get a thread would wait for ever:
      // say so and stop (the runtime's constructor reports a failure of its
      // own creations as an exception).
      std::fprintf(stderr,
                   "%s; the process may be at its thread limit (ulimit -u, /proc/sys/kernel/threads-max) "
                   "or out of memory: use fewer workers (Config::workers, WEFT_WORKERS)\n",
                   e.what());
      std::abort();
    }
  }
  if (void (*f)() = std::exchange(self->meanwhile, nullptr)) f();
  // Nothing allocated may live in this frame: while the thread runs a ULT,
  // LeakSanitizer scans that ULT's stack, not this one (a moved-from
  // vector's buffer left here was once reported leaked at exit()).
  std::uint32_t seen = 0;
  bool expecting = true;  // a new thread's worker is on its way
  while (true) {
    Worker* w;
    while (!(w = self->job.exchange(nullptr, std::memory_order_acquire))) {
      wait_for_word(self, seen, expecting);
      seen = self->word.load(std::memory_order_acquire);
      // Bumped with no job: a runtime took this thread (WorkerThreads) and
      // its job is on its way. (Rarely, the bump of a job it already took.)
      expecting = true;
    }
    const int cpu = w->pinned_cpu();
    if (cpu != self->pinned_to) {
      if (cpu >= 0)
        sched::pin_current_thread(cpu);
      else
        pthread_setaffinity_np(pthread_self(), sizeof self->original, &self->original);
      self->pinned_to = cpu;
    }
    w->run_on_this_thread();  // returns when its runtime stops; the worker may be gone after
    // A worker the runtime let go of while it slept: the runtime gave this
    // thread back to the pool then.
    if (!self->rest.take_let_go()) give_back(self);
    expecting = false;
  }
}

// An idle pooled thread for a worker pinned to `cpu`, preferably one pinned
// there already (re-pinning a thread migrates it: a tenth of a warm runtime
// start); null when none is idle.
PooledThread* take_idle_thread(int cpu) {
  std::lock_guard lock(pool_mutex());
  auto& idle = idle_threads();
  std::size_t pick = idle.size();
  for (std::size_t i = idle.size(); i-- > 0;)
    if (idle[i]->pinned_to == cpu) {
      pick = i;
      break;
    }
  if (pick == idle.size() && !idle.empty()) pick = idle.size() - 1;
  if (pick == idle.size()) return nullptr;
  PooledThread* t = idle[pick];
  idle.erase(idle.begin() + static_cast<long>(pick));
  return t;
}

}  // namespace

WorkerThreads::WorkerThreads(const std::vector<int>& cpus, void (*meanwhile)()) {
  cpu_set_t original;
  pthread_getaffinity_np(pthread_self(), sizeof original, &original);
  std::vector<PooledThread*> need_new;
  try {
    for (int cpu : cpus) {
      PooledThread* t = take_idle_thread(cpu);
      if (t) {
        // Awake while the runtime constructs its workers: a pooled thread
        // asleep since the last runtime stopped took ~100 us to wake at
        // hand-over on the 2-core VM (after the workers were built).
        bump(t);
      } else {
        t = new PooledThread;  // lives as long as the process
        t->original = original;
        t->pinned_to = cpu;
        need_new.push_back(t);
      }
      threads_.push_back(t);
    }
    if (!need_new.empty()) {
      map_thread_memory(need_new);
      // The last is a leaf reached first (worker_threads' tree): up early,
      // with time to spare before its worker is ready.
      need_new.back()->meanwhile = std::exchange(meanwhile, nullptr);
      const std::vector<PooledThread*>& plan = keep_creation_plan(need_new);
      create_threads(plan.data(), plan.size(), true);
    }
  } catch (...) {
    for (PooledThread* t : threads_)  // taken from the pool, or created: idle again
      if (t->created || std::find(need_new.begin(), need_new.end(), t) == need_new.end()) give_back(t);
    if (!need_new.empty() && !need_new.back()->created && need_new.back()->meanwhile) need_new.back()->meanwhile();
    throw;  // the threads that were never created stay unused
  }
  if (meanwhile) meanwhile();  // no new thread to run it
}

WorkerThreads::~WorkerThreads() {
  for (PooledThread* t : threads_)
    if (t) give_back(t);
}

void WorkerThreads::start(std::size_t i, Worker* w) {
  w->attach_thread(threads_.at(i));
  hand_over(threads_[i], w);
  threads_[i] = nullptr;
}

RestWord::Woke RestWord::sleep(std::uint32_t seq, std::chrono::nanoseconds timeout, bool may_let_go) {
  if (!may_let_go) {
    futex_wait(&word_, seq, timeout);
    return Woke::woken;
  }
  // On the word as asleep, unless a wake() came after `seq`; let_go() may
  // change it from asleep to let go while the thread is in the kernel.
  std::uint32_t expected = seq;
  if (!word_.compare_exchange_strong(expected, seq | kAsleep, std::memory_order_seq_cst)) return Woke::woken;
  futex_wait(&word_, seq | kAsleep, timeout);
  std::uint32_t now = word_.load(std::memory_order_acquire);
  for (;;) {
    if ((now & kState) == kLetGo) return Woke::let_go;
    if (word_.compare_exchange_weak(now, now & ~kState, std::memory_order_acq_rel, std::memory_order_acquire))
      return Woke::woken;
  }
}

void RestWord::wake() {
  word_.fetch_add(kSeqStep, std::memory_order_seq_cst);
  futex_wake(&word_, 1);
}

bool RestWord::change_state(std::uint32_t from, std::uint32_t to) {
  std::uint32_t now = word_.load(std::memory_order_acquire);
  while ((now & kState) == from)
    if (word_.compare_exchange_weak(now, (now & ~kState) | to, std::memory_order_seq_cst, std::memory_order_acquire))
      return true;
  return false;
}

bool RestWord::let_go() { return change_state(kAsleep, kLetGo); }

void RestWord::wake_if_let_go() {
  if ((word_.load(std::memory_order_seq_cst) & kState) == kLetGo) futex_wake(&word_, 1);
}

bool RestWord::take_let_go() { return change_state(kLetGo, 0); }

RestWord& rest_word_of(PooledThread* t) { return t->rest; }

bool let_go_if_asleep(PooledThread* t) {
  if (!t->rest.let_go()) return false;
  give_back(t);
  return true;
}

void WorkerExit::mark_exited() {
  if (word_.exchange(kExited, std::memory_order_acq_rel) == kWaiterAsleep) futex_wake(&word_, 1);
}

void WorkerExit::wait() {
  // The shutdown has just woken this worker: it arrives after a wake-up
  // latency (tens of microseconds on a VM's idle vCPU). A waiter that went to
  // sleep at once would add a wake-up latency of its own to the teardown, so
  // it first looks for a while, yielding (the worker may share its CPU).
  if (look_for(std::chrono::microseconds(200), 1, [&] { return word_.load(std::memory_order_acquire) == kExited; }))
    return;
  for (;;) {
    std::uint32_t state = word_.load(std::memory_order_acquire);
    if (state == kExited) return;
    if (state == kRunning &&
        !word_.compare_exchange_strong(state, kWaiterAsleep, std::memory_order_acq_rel, std::memory_order_acquire))
      continue;  // it exited meanwhile
    futex_wait(&word_, kWaiterAsleep);
  }
}

}  // namespace weft::detail
