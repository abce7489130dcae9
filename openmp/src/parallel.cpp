// GOMP_parallel and its relatives, the barrier, and cancellation (off).
#include <cstdint>

#include "fatal.hpp"
#include "icv.hpp"
#include "task_reduction.hpp"
#include "team.hpp"

using namespace weft::omp;

extern "C" {

void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  TaskContext& enc = current();
  const int n = resolve_num_threads(enc, num_threads);
  run_region(n, [&] {
    Team* t = begin_region(enc, fn, data, n, flags);
    fn(data);
    end_region(*t);
  });
}

// GCC before 4.9: the caller runs fn(data) as member 0, then GOMP_parallel_end.
void GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads) {
  TaskContext& enc = current();
  begin_region(enc, fn, data, resolve_num_threads(enc, num_threads), 0);
}

void GOMP_parallel_end() {
  TaskContext& self = current();
  if (self.explicit_task || self.thread_num != 0 || !self.team->encountering)
    fatal("GOMP_parallel_end", "not called by the primary thread of a region begun with GOMP_parallel_start");
  end_region(*self.team);
}

// `parallel reduction(task, ...)`: the reductions are registered for the
// team before it starts; GCC's code combines the copies after it and
// unregisters them. Returns the team size (the number of copies).
unsigned GOMP_parallel_reductions(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  TaskContext& enc = current();
  const int n = resolve_num_threads(enc, num_threads);
  std::uintptr_t* reductions = *static_cast<std::uintptr_t**>(data);
  register_reductions(reductions, nullptr, n);
  run_region(n, [&] {
    Team* t = begin_region(
        enc, fn, data, n, flags, [](Team& team, void* r) { team.reductions = static_cast<std::uintptr_t*>(r); },
        reductions);
    fn(data);
    end_region(*t);
  });
  return static_cast<unsigned>(n);
}

void GOMP_barrier() { team_barrier(implicit_task("GOMP_barrier")); }

// Cancellation. With OMP_CANCELLATION unset or false (cancel-var false) a
// cancel construct does nothing and cancellation points never fire (OpenMP
// 5.2 §16.1), which is what these do. weft does not implement cancelling a
// region; with OMP_CANCELLATION=true the first cancel construct stops the
// program with a message naming it rather than run on uncancelled.
bool GOMP_barrier_cancel() {
  team_barrier(implicit_task("GOMP_barrier_cancel"));
  return false;
}

bool GOMP_cancellation_point(int /*which*/) { return false; }

bool GOMP_cancel(int /*which*/, bool do_cancel) {
  if (do_cancel && settings().cancellation) unsupported("GOMP_cancel", "cancellation (OMP_CANCELLATION=true)");
  return false;
}

}  // extern "C"
