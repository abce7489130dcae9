// How the sync layer yields and asks for the current worker: through the
// runtime (weft::this_ult) unless a test or embedder installs other hooks.
#include "weft/sync/wait.hpp"

#include <atomic>

#include "weft/runtime/this_ult.hpp"

namespace weft::sync {
namespace {
std::atomic<YieldHook> g_yield_hook{nullptr};
std::atomic<WorkerIndexHook> g_worker_hook{nullptr};
std::atomic<int> g_next_thread_ordinal{0};
}  // namespace

void set_yield_hook(YieldHook hook) noexcept { g_yield_hook.store(hook, std::memory_order_release); }

void yield_now() {
  if (YieldHook h = g_yield_hook.load(std::memory_order_acquire)) {
    h();
  } else {
    weft::this_ult::yield();  // fair ULT yield; std::this_thread::yield() outside ULTs
  }
}

void set_worker_index_hook(WorkerIndexHook hook) noexcept {
  g_worker_hook.store(hook, std::memory_order_release);
}

CurrentWorker current_worker() {
  if (WorkerIndexHook h = g_worker_hook.load(std::memory_order_acquire)) return {h(), nullptr};
  return {weft::this_ult::worker_index(), weft::this_ult::worker_identity()};
}

int current_worker_index() { return current_worker().index; }

int current_worker_count() {
  if (g_worker_hook.load(std::memory_order_acquire)) return 0;
  return weft::this_ult::num_workers();
}

int current_thread_ordinal() noexcept {
  thread_local const int ordinal = g_next_thread_ordinal.fetch_add(1, std::memory_order_relaxed);
  return ordinal;
}

}  // namespace weft::sync
