// The sections construct (GOMP_sections_*, GOMP_parallel_sections): the
// sections are a loop of `count` iterations under schedule(dynamic, 1);
// GOMP returns section numbers from 1, 0 when none is left.
#include <cstdint>

#include "team.hpp"
#include "workshare.hpp"

namespace weft::omp {
namespace {

LoopSpec sections_spec(unsigned count) {
  LoopSpec s;
  s.space = long_space(0, static_cast<long>(count), 1);
  s.kind = SchedKind::dynamic;
  s.chunk = 1;
  return s;
}

unsigned next_section(TaskContext& self) {
  MemberState& m = *self.member;
  return next_chunk(m, self.team->nthreads, self.thread_num) ? static_cast<unsigned>(m.lo + 1) : 0;
}

unsigned start_sections(const char* entry, unsigned count, std::uintptr_t* reductions, void** mem) {
  TaskContext& self = implicit_task(entry);
  LoopSpec spec = sections_spec(count);
  spec.reductions = reductions;
  spec.mem = mem;
  begin_loop(self, spec);
  return next_section(self);
}

void parallel_sections(void (*fn)(void*), void* data, unsigned num_threads, unsigned count, unsigned flags,
                       bool run) {
  TaskContext& enc = current();
  const LoopSpec spec = sections_spec(count);
  const int n = resolve_num_threads(enc, num_threads, count);
  auto begin = [&] {
    return begin_region(enc, fn, data, n, flags,
                        [](Team& team, void* s) { preset_loop(team, *static_cast<const LoopSpec*>(s)); },
                        const_cast<LoopSpec*>(&spec));
  };
  if (!run) {  // GOMP_parallel_sections_start: the caller runs member 0's share, then GOMP_parallel_end
    begin();
    return;
  }
  run_region(n, [&] {
    Team* t = begin();
    fn(data);
    end_region(*t);
  });
}

}  // namespace
}  // namespace weft::omp

using namespace weft::omp;

extern "C" {

unsigned GOMP_sections_start(unsigned count) { return start_sections("GOMP_sections_start", count, nullptr, nullptr); }
unsigned GOMP_sections2_start(unsigned count, std::uintptr_t* reductions, void** mem) {
  return start_sections("GOMP_sections2_start", count, reductions, mem);
}
unsigned GOMP_sections_next() { return next_section(implicit_task("GOMP_sections_next")); }
void GOMP_sections_end() { end_loop(implicit_task("GOMP_sections_end"), true); }
void GOMP_sections_end_nowait() { end_loop(implicit_task("GOMP_sections_end_nowait"), false); }
bool GOMP_sections_end_cancel() { return end_loop_cancellable(implicit_task("GOMP_sections_end_cancel")); }

void GOMP_parallel_sections(void (*fn)(void*), void* data, unsigned num_threads, unsigned count, unsigned flags) {
  parallel_sections(fn, data, num_threads, count, flags, true);
}
// GCC before 4.9: the caller runs fn(data), then GOMP_parallel_end().
void GOMP_parallel_sections_start(void (*fn)(void*), void* data, unsigned num_threads, unsigned count) {
  parallel_sections(fn, data, num_threads, count, 0, false);
}

}  // extern "C"
