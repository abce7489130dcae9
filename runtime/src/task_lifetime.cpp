// How long a ULT's control block lives: allocated from the spawning
// worker's pool (or the heap), reference-counted by its handle, its queue
// entry and its runner, freed into the pool of whichever worker drops the
// last reference. Also the stand-in task of a plain thread that blocks.

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

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
// created on its first wait. A pthread key's destructor releases it when the
// thread ends: those run after every thread_local destructor, one of which
// may still block (another library's waiting for a ULT, or the OpenMP
// library's retiring its teams) and get a new task, which the key then
// releases too. (A thread_local releaser, destroyed before such a
// destructor, left that task to the ended thread: LeakSanitizer found it.)
// The main thread's task at exit() stays reachable from its pointer here.
thread_local Task* tls_external_task = nullptr;

void release_external_task(void* task) {
  Task* t = static_cast<Task*>(task);
  if (tls_external_task == t) tls_external_task = nullptr;
  release(t, 1);
}

pthread_key_t external_task_key() {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    if (pthread_key_create(&k, release_external_task) != 0) {
      std::fprintf(stderr, "weft: pthread_key_create failed: no key left for a plain thread's wait\n");
      std::abort();
    }
    return k;
  }();
  return key;
}

[[gnu::noinline]] Task* new_external_task() {
  Task* t = new_shared_block();
  t->kind = TaskKind::external;
  t->refs.store(1, std::memory_order_relaxed);
  tls_external_task = t;
  pthread_setspecific(external_task_key(), t);
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
