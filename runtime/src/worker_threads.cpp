#include "worker_threads.hpp"

#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "futex.hpp"
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

// One pooled kernel thread.
struct PooledThread {
  std::atomic<std::uint32_t> word{0};  // bumped when a job arrives
  std::atomic<bool> sleeping{false};   // on the futex: a new job must wake it
  Worker* job = nullptr;
  cpu_set_t original{};                // the mask it was created with (where unpinned workers may run)
  void* altstack = nullptr;            // its signal stack, kept for the life of the thread (the process's)
  int pinned_to = -1;                  // the CPU it is pinned to, -1: its original mask (read under the pool lock)
};

std::mutex& pool_mutex() {
  static auto* m = new std::mutex;  // never destroyed: pooled threads outlive static destruction
  return *m;
}
std::vector<PooledThread*>& idle_threads() {
  static auto* v = new std::vector<PooledThread*>;
  return *v;
}

// Spins for kPooledSpin (offering the CPU every ~16 rounds: the thread that
// will start a runtime may share it), then sleeps until `word` moves on from
// `seen`. `sleeping` and `word` form a Dekker pair with start_on_idle_thread:
// one of the two sees the other, so a job is never left unwoken.
void wait_for_job(PooledThread* self, std::uint32_t seen) {
  using clock = std::chrono::steady_clock;
  const auto until = clock::now() + kPooledSpin;
  for (std::uint32_t round = 1;; ++round) {
    if (self->word.load(std::memory_order_acquire) != seen) return;
    if ((round & 15) == 0) {
      if (clock::now() >= until) break;
      sched_yield();
    }
    for (int i = 0; i < 8; ++i) cpu_relax();
  }
  self->sleeping.store(true, std::memory_order_seq_cst);
  while (self->word.load(std::memory_order_seq_cst) == seen) futex_wait(&self->word, seen);
  self->sleeping.store(false, std::memory_order_relaxed);
}

void pooled_thread_main(PooledThread* self, std::vector<Worker*> to_create);

// Creates a thread for each of `jobs`, in parallel: each creation costs its
// creator a clone3 and the mmap + mprotect of the new thread's stack, and
// one thread creating all of them made the last worker wait for every one
// (bench/results/startup-2core.md). The caller hands the upper half of its
// jobs to a new thread, which creates their threads the same way before it
// runs its own job, and goes on with the lower half: n threads exist after
// ~log2(n) rounds, and the caller made log2(n) of them. Called before the
// creator pins itself, so the new threads start with the process's mask.
void create_threads(std::vector<Worker*> jobs) {
  while (!jobs.empty()) {
    const std::size_t half = jobs.size() / 2;
    auto* t = new PooledThread;  // lives as long as the process
    pthread_getaffinity_np(pthread_self(), sizeof t->original, &t->original);
    t->job = jobs[half];
    t->word.store(1, std::memory_order_relaxed);  // its first job is there from the start
    std::vector<Worker*> its_share(jobs.begin() + static_cast<long>(half) + 1, jobs.end());
    jobs.resize(half);
    std::thread(pooled_thread_main, t, std::move(its_share)).detach();
  }
}

void pooled_thread_main(PooledThread* self, std::vector<Worker*> to_create) {
  if (!to_create.empty()) {
    try {
      create_threads(std::exchange(to_create, {}));
    } catch (const std::exception& e) {
      // A runtime whose workers cannot all get a thread would wait for ever:
      // say so and stop (the runtime's constructor reports a failure of its
      // own creations as an exception).
      std::fprintf(stderr,
                   "weft: could not create a worker thread (%s); the process may be at its thread limit "
                   "(ulimit -u, /proc/sys/kernel/threads-max) or out of memory: use fewer workers "
                   "(Config::workers, WEFT_WORKERS)\n",
                   e.what());
      std::abort();
    }
  }
  // Nothing allocated may live in this frame from here on: while the thread
  // runs a ULT, LeakSanitizer scans that ULT's stack, not this one (the
  // leftover buffer of a moved-from vector was reported leaked at exit()).
  self->altstack = install_overflow_altstack();
  std::uint32_t seen = 0;
  while (true) {
    wait_for_job(self, seen);
    seen = self->word.load(std::memory_order_acquire);
    Worker* w = self->job;
    const int cpu = w->pinned_cpu();
    if (cpu != self->pinned_to) {
      if (cpu >= 0)
        sched::pin_current_thread(cpu);
      else
        pthread_setaffinity_np(pthread_self(), sizeof self->original, &self->original);
      self->pinned_to = cpu;
    }
    w->run_on_this_thread();  // returns when its runtime stops; the worker may be gone after
    {
      std::lock_guard lock(pool_mutex());
      idle_threads().push_back(self);
    }
  }
}

// Gives `worker` an idle pooled thread, preferably one already pinned where
// it runs (re-pinning a thread migrates it: a tenth of a warm runtime
// start); false when none is idle.
bool start_on_idle_thread(Worker* worker) {
  PooledThread* t = nullptr;
  {
    std::lock_guard lock(pool_mutex());
    auto& idle = idle_threads();
    const int cpu = worker->pinned_cpu();
    std::size_t pick = idle.size();
    for (std::size_t i = idle.size(); i-- > 0;)
      if (idle[i]->pinned_to == cpu) {
        pick = i;
        break;
      }
    if (pick == idle.size() && !idle.empty()) pick = idle.size() - 1;
    if (pick == idle.size()) return false;
    t = idle[pick];
    idle.erase(idle.begin() + static_cast<long>(pick));
  }
  t->job = worker;
  t->word.fetch_add(1, std::memory_order_seq_cst);
  if (t->sleeping.load(std::memory_order_seq_cst)) futex_wake(&t->word, 1);  // a spinning one sees the word
  return true;
}

}  // namespace

void start_worker_threads(const std::vector<Worker*>& workers) {
  std::vector<Worker*> need_new;
  for (Worker* w : workers)
    if (!start_on_idle_thread(w)) need_new.push_back(w);
  create_threads(std::move(need_new));
}

void WorkerExit::mark_exited() {
  word_.store(1, std::memory_order_release);
  futex_wake(&word_, 1);
}

void WorkerExit::wait() {
  while (word_.load(std::memory_order_acquire) == 0) futex_wait(&word_, 0);
}

}  // namespace weft::detail
