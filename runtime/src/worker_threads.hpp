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

// Runs each worker's run_on_this_thread() on an idle pooled thread, or a
// new one (new ones are created in parallel: worker_threads.cpp).
void start_worker_threads(const std::vector<Worker*>& workers);

// Lets a worker thread say it left its worker (stopped_ word) and wait for it.
class WorkerExit {
 public:
  void mark_exited();   // the worker thread, last thing before going back to the pool
  void wait();          // the runtime's shutdown
  void reset() { word_.store(0, std::memory_order_relaxed); }

 private:
  std::atomic<std::uint32_t> word_{0};
};

}  // namespace weft::detail
