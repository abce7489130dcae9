// How long a ULT's control block lives: allocated from the spawning
// worker's pool (or the heap), reference-counted by its handle, its queue
// entry and its runner, freed into the pool of whichever worker drops the
// last reference. Also the stand-in task of a plain thread that blocks.

#include <cstdio>
#include <exception>
#include <new>
#include <utility>

#include "task.hpp"
#include "task_block_pool.hpp"
#include "worker.hpp"

namespace weft::detail {

namespace {

// Blocks of plain threads come from (and go back to) the shared depot.
Task* new_shared_block() { return ::new (TaskBlockPool::allocate_shared()) Task; }  // see allocate_task_block

void report_detached_exception(Task* t) {
  try {
    std::rethrow_exception(t->error);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft: ULT #%llu ended with an exception nobody joined: %s\n",
                 static_cast<unsigned long long>(t->id), e.what());
  } catch (...) {
    std::fprintf(stderr, "weft: ULT #%llu ended with a non-standard exception nobody joined\n",
                 static_cast<unsigned long long>(t->id));
  }
}

// The Task that stands for a plain (non-worker) thread when it blocks,
// created on its first wait. The pointer is trivially destructible so that a
// thread_local destructor that runs after ours (another library's, waiting
// for a ULT at exit) still finds a valid task: it gets a new one, which the
// exiting thread then keeps.
thread_local Task* tls_external_task = nullptr;

struct ReleaseExternalTaskAtExit {
  ~ReleaseExternalTaskAtExit() {
    if (Task* t = std::exchange(tls_external_task, nullptr)) release(t, 1);
  }
};

[[gnu::noinline]] Task* new_external_task() {
  Task* t = new_shared_block();
  t->kind = TaskKind::external;
  t->refs.store(1, std::memory_order_relaxed);
  tls_external_task = t;
  thread_local ReleaseExternalTaskAtExit release_at_exit;  // constructed on the first call only
  (void)release_at_exit;
  return t;
}

}  // namespace

TaskBase* allocate_task() {
  if (Worker* w = tls_worker) return w->allocate_task_block();
  return new_shared_block();
}

void discard_task(TaskBase* base) {
  Task* t = as_task(base);
  t->~Task();
  if (Worker* w = tls_worker)
    w->free_task_block(t);
  else
    TaskBlockPool::free_shared(t);
}

void retain(TaskBase* t) { as_task(t)->refs.fetch_add(1, std::memory_order_relaxed); }

void release(TaskBase* base, std::uint32_t n) {
  Task* t = as_task(base);
  // Holding every reference means nobody else can touch it: skip the RMW.
  if (t->refs.load(std::memory_order_acquire) != n && t->refs.fetch_sub(n, std::memory_order_acq_rel) != n)
    return;
  if (t->kind != TaskKind::external) {
    if (t->error) report_detached_exception(t);
    if (t->drop_payload) t->drop_payload(t);
  }
  t->~Task();
  if (Worker* w = tls_worker)
    w->free_task_block(t);
  else
    TaskBlockPool::free_shared(t);
}

TaskBase* current_task() {
  if (Worker* w = tls_worker) return w->current();
  if (Task* t = tls_external_task) [[likely]]
    return t;
  return new_external_task();
}

}  // namespace weft::detail
