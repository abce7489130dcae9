#include "worker_threads.hpp"

#include <pthread.h>
#include <sched.h>

#include <mutex>
#include <thread>
#include <vector>

#include "futex.hpp"
#include "stack_overflow.hpp"
#include "weft/sched/cpuset.hpp"
#include "worker.hpp"

namespace weft::detail {

namespace {

// One pooled kernel thread.
struct PooledThread {
  std::atomic<std::uint32_t> word{0};  // bumped when a job arrives
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

void pooled_thread_main(PooledThread* self) {
  self->altstack = install_overflow_altstack();
  std::uint32_t seen = 0;
  while (true) {
    while (self->word.load(std::memory_order_acquire) == seen) futex_wait(&self->word, seen);
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

}  // namespace

void start_worker_thread(Worker* worker) {
  PooledThread* t = nullptr;
  {
    std::lock_guard lock(pool_mutex());
    // Preferably one already pinned where this worker runs (re-pinning a
    // thread migrates it: a tenth of a warm runtime start).
    auto& idle = idle_threads();
    const int cpu = worker->pinned_cpu();
    std::size_t pick = idle.size();
    for (std::size_t i = idle.size(); i-- > 0;)
      if (idle[i]->pinned_to == cpu) {
        pick = i;
        break;
      }
    if (pick == idle.size() && !idle.empty()) pick = idle.size() - 1;
    if (pick < idle.size()) {
      t = idle[pick];
      idle.erase(idle.begin() + static_cast<long>(pick));
    }
  }
  if (!t) {
    t = new PooledThread;  // lives as long as the process
    pthread_getaffinity_np(pthread_self(), sizeof t->original, &t->original);
    std::thread(pooled_thread_main, t).detach();
  }
  t->job = worker;
  t->word.fetch_add(1, std::memory_order_release);
  futex_wake(&t->word, 1);
}

void WorkerExit::mark_exited() {
  word_.store(1, std::memory_order_release);
  futex_wake(&word_, 1);
}

void WorkerExit::wait() {
  while (word_.load(std::memory_order_acquire) == 0) futex_wait(&word_, 0);
}

}  // namespace weft::detail
