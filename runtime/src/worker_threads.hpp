#pragma once
// The kernel threads workers run on (internal): a process-wide pool, so a
// runtime that starts after another one stopped reuses its threads (as
// oneTBB's market and libgomp's team do) instead of creating them again.
// A pooled thread keeps its alternate signal stack; it is re-pinned only when
// the new worker's CPU differs.

#include <atomic>
#include <cstdint>
#include <vector>

namespace weft::detail {

class Worker;
struct PooledThread;

// The threads of a runtime's workers, taken before the workers exist: one
// for each entry of `cpus` (the CPU that worker will be pinned to, -1: not
// pinned), an idle pooled thread where there is one (preferably one pinned
// there already), a new one otherwise. New threads are created in parallel,
// already on their CPU, and wait for their worker, so that the runtime
// constructs its workers while they come up (worker_threads.cpp).
// `meanwhile`, if given, runs once on one of the new threads before it waits
// for its worker (on the caller when no thread is new): work that need not
// delay the runtime's start.
class WorkerThreads {
 public:
  explicit WorkerThreads(const std::vector<int>& cpus, void (*meanwhile)() = nullptr);
  ~WorkerThreads();  // threads given no worker go back to the pool
  WorkerThreads(const WorkerThreads&) = delete;
  WorkerThreads& operator=(const WorkerThreads&) = delete;

  // The i-th thread runs w->run_on_this_thread(); w->pinned_cpu() is cpus[i].
  void start(std::size_t i, Worker* w);

 private:
  std::vector<PooledThread*> threads_;
};

// Lets a worker thread say it left its worker and the shutdown wait for it
// (one waiter: it looks for a while before it sleeps on the word).
class WorkerExit {
 public:
  void mark_exited();   // the worker thread, last thing before going back to the pool
  void wait();          // the runtime's shutdown
  void reset() { word_.store(kRunning, std::memory_order_relaxed); }

 private:
  enum : std::uint32_t { kRunning = 0, kExited = 1, kWaiterAsleep = 2 };
  std::atomic<std::uint32_t> word_{kRunning};
};

}  // namespace weft::detail
