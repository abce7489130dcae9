// The OpenMP lock routines (omp_*_lock, omp_*_nest_lock; OpenMP 5.2 §18.9)
// and the library's own locks: critical sections (GOMP_critical_*) and the
// fallback of `atomic` constructs the hardware cannot do (GOMP_atomic_*).
//
// omp_lock_t (4 bytes) is a WordLock. omp_nest_lock_t (16 bytes) is a
// WordLock, the nesting count and the owning task: OpenMP 3.0 made locks
// owned by tasks, so the owner is the task context (an explicit task that
// set the lock owns it, not the thread that ran it).
#include <omp.h>

#include <atomic>
#include <cstdint>

#include "fatal.hpp"
#include "team.hpp"
#include "word_lock.hpp"

namespace weft::omp {
namespace {

struct NestLock {
  WordLock lock;
  int count;
  std::atomic<void*> owner;
};
static_assert(sizeof(NestLock) == sizeof(omp_nest_lock_t) && alignof(NestLock) <= alignof(omp_nest_lock_t));
static_assert(sizeof(WordLock) == sizeof(omp_lock_t));

NestLock& nest(omp_nest_lock_t* l) { return *reinterpret_cast<NestLock*>(l); }
WordLock& plain(omp_lock_t* l) { return WordLock::at(l); }

// The unnamed critical section and the atomic fallback: one lock each,
// program-wide (OpenMP: all unnamed critical regions share one name).
alignas(64) std::uint32_t unnamed_critical = 0;
alignas(64) std::uint32_t atomic_fallback = 0;

}  // namespace
}  // namespace weft::omp

using namespace weft::omp;

extern "C" {

void omp_init_lock(omp_lock_t* l) { plain(l).reset(); }
void omp_destroy_lock(omp_lock_t*) {}
void omp_set_lock(omp_lock_t* l) { plain(l).lock(); }
void omp_unset_lock(omp_lock_t* l) { plain(l).unlock(); }
int omp_test_lock(omp_lock_t* l) { return plain(l).try_lock() ? 1 : 0; }

void omp_init_nest_lock(omp_nest_lock_t* l) {
  NestLock& n = nest(l);
  n.lock.reset();
  n.count = 0;
  n.owner.store(nullptr, std::memory_order_relaxed);
}
void omp_destroy_nest_lock(omp_nest_lock_t*) {}
void omp_set_nest_lock(omp_nest_lock_t* l) {
  NestLock& n = nest(l);
  void* me = &current();
  if (n.owner.load(std::memory_order_relaxed) == me) {
    ++n.count;
    return;
  }
  n.lock.lock();
  n.owner.store(me, std::memory_order_relaxed);
  n.count = 1;
}
void omp_unset_nest_lock(omp_nest_lock_t* l) {
  NestLock& n = nest(l);
  if (n.owner.load(std::memory_order_relaxed) != &current())
    fatal("omp_unset_nest_lock", "the lock is not owned by the calling task");
  if (--n.count == 0) {
    n.owner.store(nullptr, std::memory_order_relaxed);
    n.lock.unlock();
  }
}
int omp_test_nest_lock(omp_nest_lock_t* l) {
  NestLock& n = nest(l);
  void* me = &current();
  if (n.owner.load(std::memory_order_relaxed) == me) return ++n.count;
  if (!n.lock.try_lock()) return 0;
  n.owner.store(me, std::memory_order_relaxed);
  n.count = 1;
  return 1;
}

void GOMP_critical_start() { WordLock::at(&unnamed_critical).lock(); }
void GOMP_critical_end() { WordLock::at(&unnamed_critical).unlock(); }
// `pptr` is the pointer-sized common symbol GCC emits per name, zero at
// start: its first 4 bytes are the lock.
void GOMP_critical_name_start(void** pptr) { WordLock::at(pptr).lock(); }
void GOMP_critical_name_end(void** pptr) { WordLock::at(pptr).unlock(); }
void GOMP_atomic_start() { WordLock::at(&atomic_fallback).lock(); }
void GOMP_atomic_end() { WordLock::at(&atomic_fallback).unlock(); }

}  // extern "C"
