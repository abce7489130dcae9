// single (GOMP_single_start), single with copyprivate (GOMP_single_copy_*)
// and scope with task reductions (GOMP_scope_start).
//
// single: the member whose count of singles met equals the team's wins the
// CAS that advances it (libgomp's scheme: no shared slot, no barrier).
// copyprivate: the first member to reach the construct runs it and
// publishes its data pointer at GOMP_single_copy_end; the others wait at the
// barrier, read it, and GCC's code copies and meets one more barrier.
#include <cstdint>

#include "task_reduction.hpp"
#include "tasks.hpp"
#include "team.hpp"
#include "workshare.hpp"

using namespace weft::omp;

extern "C" {

bool GOMP_single_start() {
  TaskContext& self = implicit_task("GOMP_single_start");
  std::uint64_t mine = self.member->singles++;
  if (self.team->nthreads == 1) return true;
  return self.team->single_next.compare_exchange_strong(mine, mine + 1, std::memory_order_acq_rel,
                                                        std::memory_order_relaxed);
}

void* GOMP_single_copy_start() {
  TaskContext& self = implicit_task("GOMP_single_copy_start");
  bool first = false;
  WorkShare& w = enter_construct(self, first);
  if (first) {
    w.copyprivate = nullptr;
    w.task_reductions = nullptr;
    construct_ready(w);
    return nullptr;
  }
  team_barrier(self);
  void* data = w.copyprivate;
  leave_construct(self);
  return data;
}

void GOMP_single_copy_end(void* data) {
  TaskContext& self = implicit_task("GOMP_single_copy_end");
  self.member->ws->copyprivate = data;
  team_barrier(self);
  leave_construct(self);
}

// scope reduction(task, ...): a worksharing construct without work.
void GOMP_scope_start(std::uintptr_t* reductions) {
  TaskContext& self = implicit_task("GOMP_scope_start");
  LoopSpec spec;
  spec.reductions = reductions;
  begin_loop(self, spec);
  leave_construct(self);
}

}  // extern "C"
