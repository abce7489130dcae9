#pragma once
// The kernel threads workers run on (internal): a process-wide pool, so a
// runtime that starts after another one stopped reuses its threads (as
// oneTBB's market and libgomp's team do) instead of creating them again.
// A pooled thread keeps its alternate signal stack; it is re-pinned only when
// the new worker's CPU differs.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

namespace weft::detail {

class Worker;
struct PooledThread;

// Where an idle worker sleeps: a futex word, bumped by wake(), whose low bits
// say whether the worker is on it. A pooled thread has one, which outlives
// the workers it runs, so a runtime shutting down can let go of a worker
// asleep on it (let_go_if_asleep) instead of waking it and waiting until it
// left: the thread, whenever it wakes, goes back to the pool without touching
// the worker again. (Waking every sleeping worker and waiting for each was
// most of a teardown: bench/results/startup-2core.md.)
class RestWord {
 public:
  enum class Woke : std::uint8_t { woken, let_go };
  // Read before the last look for work; sleep() returns at once if wake()
  // came after it.
  std::uint32_t seq() const { return word_.load(std::memory_order_seq_cst); }
  // Sleeps until wake() or the timeout (< 0: none). `may_let_go`: a
  // shutdown may let go of the sleeper meanwhile; it then returns let_go,
  // and the caller must not touch its worker again.
  Woke sleep(std::uint32_t seq, std::chrono::nanoseconds timeout, bool may_let_go);
  void wake();
  // The shutdown (its runtime stopping): true if the sleeper was asleep,
  // may be let go, and now is.
  bool let_go();
  // Wakes a thread still asleep where it was let go of (the pool hands it a
  // job); nothing otherwise.
  void wake_if_let_go();
  // The thread, back from a worker: true (and the state cleared) if the
  // runtime let go of it there.
  bool take_let_go();

 private:
  static constexpr std::uint32_t kAsleep = 1, kLetGo = 2, kState = 3, kSeqStep = 4;
  // The state from `from` to `to`, the sequence kept; false if it was not `from`.
  bool change_state(std::uint32_t from, std::uint32_t to);
  std::atomic<std::uint32_t> word_{0};
};

// The rest word of a pooled thread (workers sleep there while it runs them).
RestWord& rest_word_of(PooledThread* t);
// A runtime stopping: lets go of the worker that thread `t` runs if it is
// asleep (true; the thread is idle in the pool from here on, and will not
// touch the worker again), else false.
bool let_go_if_asleep(PooledThread* t);

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
