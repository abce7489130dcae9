// GOMP_parallel and its relatives, and the barrier (its cancellable form is
// in cancel.cpp).
#include <cstdint>

#include "fatal.hpp"
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

}  // extern "C"
