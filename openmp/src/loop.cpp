// GOMP's worksharing-loop entry points (GOMP_loop_*, GOMP_loop_ull_*,
// GOMP_parallel_loop_*), the `ordered` region and the `_start` variants of
// every GCC version since 4.2. All of them map onto workshare.hpp: a loop is
// an IterSpace shared by schedule; the entry points differ only in how they
// name the schedule and the loop's type.
//
// GCC's code for a loop:   if (GOMP_loop_X_start(..., &s, &e))
//                            do { for (i = s; i < e; i += incr) body; }
//                            while (GOMP_loop_X_next(&s, &e));
//                          GOMP_loop_end();   // or _end_nowait
// A combined `parallel for` calls GOMP_parallel_loop_X(fn, ...): the loop is
// set up before the members start, and fn calls GOMP_loop_X_next first.
#include <cstdint>
#include <vector>

#include "fatal.hpp"
#include "team.hpp"
#include "workshare.hpp"

namespace weft::omp {
namespace {

constexpr long kGfsRuntime = 0, kGfsStatic = 1, kGfsDynamic = 2, kGfsGuided = 3, kGfsAuto = 4;

// Hands the caller's next chunk out as the loop's own values.
template <class T>
bool take(TaskContext& self, T* istart, T* iend) {
  MemberState& m = *self.member;
  if (!next_chunk(m, self.team->nthreads, self.thread_num)) return false;
  *istart = static_cast<T>(m.space.value(m.lo));
  *iend = static_cast<T>(m.space.bound(m.hi));
  return true;
}

template <class T>
bool start(const char* entry, const LoopSpec& spec, T* istart, T* iend) {
  TaskContext& self = implicit_task(entry);
  begin_loop(self, spec);
  if (!istart) return true;  // GOMP_loop_start(..., NULL, NULL, ...): set up only
  return take(self, istart, iend);
}

template <class T>
bool next(const char* entry, T* istart, T* iend) {
  return take(implicit_task(entry), istart, iend);
}

LoopSpec spec_of(const IterSpace& space, SchedKind kind, long chunk, bool ordered = false) {
  LoopSpec s;
  s.space = space;
  s.kind = kind;
  s.chunk = chunk > 0 ? static_cast<std::uint64_t>(chunk) : 0;
  s.ordered = ordered;
  return s;
}

LoopSpec nonmonotonic_dynamic_spec(const IterSpace& space, long chunk) {
  LoopSpec s = spec_of(space, SchedKind::dynamic, chunk);
  s.nonmonotonic = true;
  return s;
}

LoopSpec runtime_spec(const IterSpace& space, bool ordered = false) {
  LoopSpec s = spec_of(space, SchedKind::static_, 0, ordered);
  s.runtime_schedule = true;
  return s;
}

// GOMP_loop_start's `sched`: GFS_* with the monotonic bit; RUNTIME and AUTO
// (the runtime schedule with the nonmonotonic modifier) read run-sched-var.
void decode_schedule(const char* entry, long sched, LoopSpec& s) {
  switch (sched & ~static_cast<long>(0x80000000L)) {
    case kGfsRuntime:
    case kGfsAuto: s.runtime_schedule = true; break;
    case kGfsStatic: s.kind = SchedKind::static_; break;
    case kGfsDynamic:
      s.kind = SchedKind::dynamic;
      s.nonmonotonic = (sched & 0x80000000L) == 0;  // GFS_MONOTONIC not set
      break;
    case kGfsGuided: s.kind = SchedKind::guided; break;
    default: fatal(entry, "unknown schedule code " + std::to_string(sched));
  }
}

LoopSpec decoded_spec(const char* entry, const IterSpace& space, long sched, std::uint64_t chunk, bool ordered,
                      std::uintptr_t* reductions, void** mem) {
  LoopSpec s;
  s.space = space;
  s.chunk = chunk;
  s.ordered = ordered;
  s.reductions = reductions;
  s.mem = mem;
  decode_schedule(entry, sched, s);
  return s;
}

void run_parallel_loop(void (*fn)(void*), void* data, unsigned num_threads, const LoopSpec& spec, unsigned flags) {
  TaskContext& enc = current();
  const int n = resolve_num_threads(enc, num_threads);
  run_region(n, [&] {
    Team* t = begin_region(enc, fn, data, n, flags,
                           [](Team& team, void* s) { preset_loop(team, *static_cast<const LoopSpec*>(s)); },
                           const_cast<LoopSpec*>(&spec));
    fn(data);
    end_region(*t);
  });
}

void start_parallel_loop(void (*fn)(void*), void* data, unsigned num_threads, const LoopSpec& spec) {
  TaskContext& enc = current();
  const int n = resolve_num_threads(enc, num_threads);
  begin_region(enc, fn, data, n, 0,
               [](Team& team, void* s) { preset_loop(team, *static_cast<const LoopSpec*>(s)); },
               const_cast<LoopSpec*>(&spec));
}

template <class C>
LoopSpec doacross_spec(const char* entry, unsigned ncounts, const C* counts, SchedKind kind, long chunk,
                       bool runtime, std::vector<std::uint64_t>& scratch) {
  if (ncounts == 0) fatal(entry, "ordered(n) with n = 0");
  scratch.resize(ncounts);
  for (unsigned k = 0; k < ncounts; ++k)
    scratch[k] = counts[k] > 0 ? static_cast<std::uint64_t>(counts[k]) : 0;
  LoopSpec s = spec_of(long_space(0, static_cast<long>(scratch[0]), 1), kind, chunk);
  s.runtime_schedule = runtime;
  s.doacross_dims = ncounts;
  s.doacross_counts = scratch.data();
  return s;
}

}  // namespace
}  // namespace weft::omp

using namespace weft::omp;
using ull = unsigned long long;

extern "C" {

// ------------------------------------------------------------ long loops

bool GOMP_loop_static_start(long s, long e, long i, long chunk, long* is, long* ie) {
  return start("GOMP_loop_static_start", spec_of(long_space(s, e, i), SchedKind::static_, chunk), is, ie);
}
bool GOMP_loop_dynamic_start(long s, long e, long i, long chunk, long* is, long* ie) {
  return start("GOMP_loop_dynamic_start", spec_of(long_space(s, e, i), SchedKind::dynamic, chunk), is, ie);
}
bool GOMP_loop_guided_start(long s, long e, long i, long chunk, long* is, long* ie) {
  return start("GOMP_loop_guided_start", spec_of(long_space(s, e, i), SchedKind::guided, chunk), is, ie);
}
bool GOMP_loop_runtime_start(long s, long e, long i, long* is, long* ie) {
  return start("GOMP_loop_runtime_start", runtime_spec(long_space(s, e, i)), is, ie);
}
// Nonmonotonic: any order of chunks is allowed; the monotonic schedules are one.
bool GOMP_loop_nonmonotonic_dynamic_start(long s, long e, long i, long chunk, long* is, long* ie) {
  return start("GOMP_loop_nonmonotonic_dynamic_start", nonmonotonic_dynamic_spec(long_space(s, e, i), chunk), is, ie);
}
bool GOMP_loop_nonmonotonic_guided_start(long s, long e, long i, long chunk, long* is, long* ie) {
  return start("GOMP_loop_nonmonotonic_guided_start", spec_of(long_space(s, e, i), SchedKind::guided, chunk), is, ie);
}
bool GOMP_loop_nonmonotonic_runtime_start(long s, long e, long i, long* is, long* ie) {
  return start("GOMP_loop_nonmonotonic_runtime_start", runtime_spec(long_space(s, e, i)), is, ie);
}
bool GOMP_loop_maybe_nonmonotonic_runtime_start(long s, long e, long i, long* is, long* ie) {
  return start("GOMP_loop_maybe_nonmonotonic_runtime_start", runtime_spec(long_space(s, e, i)), is, ie);
}
bool GOMP_loop_ordered_static_start(long s, long e, long i, long chunk, long* is, long* ie) {
  return start("GOMP_loop_ordered_static_start", spec_of(long_space(s, e, i), SchedKind::static_, chunk, true), is, ie);
}
bool GOMP_loop_ordered_dynamic_start(long s, long e, long i, long chunk, long* is, long* ie) {
  return start("GOMP_loop_ordered_dynamic_start", spec_of(long_space(s, e, i), SchedKind::dynamic, chunk, true), is, ie);
}
bool GOMP_loop_ordered_guided_start(long s, long e, long i, long chunk, long* is, long* ie) {
  return start("GOMP_loop_ordered_guided_start", spec_of(long_space(s, e, i), SchedKind::guided, chunk, true), is, ie);
}
bool GOMP_loop_ordered_runtime_start(long s, long e, long i, long* is, long* ie) {
  return start("GOMP_loop_ordered_runtime_start", runtime_spec(long_space(s, e, i), true), is, ie);
}

bool GOMP_loop_start(long s, long e, long i, long sched, long chunk, long* is, long* ie, std::uintptr_t* reductions,
                     void** mem) {
  const std::uint64_t c = chunk > 0 ? static_cast<std::uint64_t>(chunk) : 0;
  return start("GOMP_loop_start",
               decoded_spec("GOMP_loop_start", long_space(s, e, i), sched, c, false, reductions, mem), is, ie);
}
bool GOMP_loop_ordered_start(long s, long e, long i, long sched, long chunk, long* is, long* ie,
                             std::uintptr_t* reductions, void** mem) {
  const std::uint64_t c = chunk > 0 ? static_cast<std::uint64_t>(chunk) : 0;
  return start("GOMP_loop_ordered_start",
               decoded_spec("GOMP_loop_ordered_start", long_space(s, e, i), sched, c, true, reductions, mem), is, ie);
}

bool GOMP_loop_doacross_static_start(unsigned n, long* counts, long chunk, long* is, long* ie) {
  std::vector<std::uint64_t> c;
  return start("GOMP_loop_doacross_static_start",
               doacross_spec("GOMP_loop_doacross_static_start", n, counts, SchedKind::static_, chunk, false, c), is, ie);
}
bool GOMP_loop_doacross_dynamic_start(unsigned n, long* counts, long chunk, long* is, long* ie) {
  std::vector<std::uint64_t> c;
  return start("GOMP_loop_doacross_dynamic_start",
               doacross_spec("GOMP_loop_doacross_dynamic_start", n, counts, SchedKind::dynamic, chunk, false, c), is, ie);
}
bool GOMP_loop_doacross_guided_start(unsigned n, long* counts, long chunk, long* is, long* ie) {
  std::vector<std::uint64_t> c;
  return start("GOMP_loop_doacross_guided_start",
               doacross_spec("GOMP_loop_doacross_guided_start", n, counts, SchedKind::guided, chunk, false, c), is, ie);
}
bool GOMP_loop_doacross_runtime_start(unsigned n, long* counts, long* is, long* ie) {
  std::vector<std::uint64_t> c;
  return start("GOMP_loop_doacross_runtime_start",
               doacross_spec("GOMP_loop_doacross_runtime_start", n, counts, SchedKind::static_, 0, true, c), is, ie);
}
bool GOMP_loop_doacross_start(unsigned n, long* counts, long sched, long chunk, long* is, long* ie,
                              std::uintptr_t* reductions, void** mem) {
  std::vector<std::uint64_t> c;
  LoopSpec spec = doacross_spec("GOMP_loop_doacross_start", n, counts, SchedKind::static_, chunk, false, c);
  decode_schedule("GOMP_loop_doacross_start", sched, spec);
  spec.reductions = reductions;
  spec.mem = mem;
  return start("GOMP_loop_doacross_start", spec, is, ie);
}

bool GOMP_loop_static_next(long* is, long* ie) { return next("GOMP_loop_static_next", is, ie); }
bool GOMP_loop_dynamic_next(long* is, long* ie) { return next("GOMP_loop_dynamic_next", is, ie); }
bool GOMP_loop_guided_next(long* is, long* ie) { return next("GOMP_loop_guided_next", is, ie); }
bool GOMP_loop_runtime_next(long* is, long* ie) { return next("GOMP_loop_runtime_next", is, ie); }
bool GOMP_loop_nonmonotonic_dynamic_next(long* is, long* ie) { return next("GOMP_loop_nonmonotonic_dynamic_next", is, ie); }
bool GOMP_loop_nonmonotonic_guided_next(long* is, long* ie) { return next("GOMP_loop_nonmonotonic_guided_next", is, ie); }
bool GOMP_loop_nonmonotonic_runtime_next(long* is, long* ie) { return next("GOMP_loop_nonmonotonic_runtime_next", is, ie); }
bool GOMP_loop_maybe_nonmonotonic_runtime_next(long* is, long* ie) {
  return next("GOMP_loop_maybe_nonmonotonic_runtime_next", is, ie);
}
bool GOMP_loop_ordered_static_next(long* is, long* ie) { return next("GOMP_loop_ordered_static_next", is, ie); }
bool GOMP_loop_ordered_dynamic_next(long* is, long* ie) { return next("GOMP_loop_ordered_dynamic_next", is, ie); }
bool GOMP_loop_ordered_guided_next(long* is, long* ie) { return next("GOMP_loop_ordered_guided_next", is, ie); }
bool GOMP_loop_ordered_runtime_next(long* is, long* ie) { return next("GOMP_loop_ordered_runtime_next", is, ie); }

// ------------------------------------------------------------ unsigned long long loops

bool GOMP_loop_ull_static_start(bool up, ull s, ull e, ull i, ull chunk, ull* is, ull* ie) {
  return start("GOMP_loop_ull_static_start", spec_of(ull_space(up, s, e, i), SchedKind::static_, static_cast<long>(chunk)), is, ie);
}
bool GOMP_loop_ull_dynamic_start(bool up, ull s, ull e, ull i, ull chunk, ull* is, ull* ie) {
  return start("GOMP_loop_ull_dynamic_start", spec_of(ull_space(up, s, e, i), SchedKind::dynamic, static_cast<long>(chunk)), is, ie);
}
bool GOMP_loop_ull_guided_start(bool up, ull s, ull e, ull i, ull chunk, ull* is, ull* ie) {
  return start("GOMP_loop_ull_guided_start", spec_of(ull_space(up, s, e, i), SchedKind::guided, static_cast<long>(chunk)), is, ie);
}
bool GOMP_loop_ull_runtime_start(bool up, ull s, ull e, ull i, ull* is, ull* ie) {
  return start("GOMP_loop_ull_runtime_start", runtime_spec(ull_space(up, s, e, i)), is, ie);
}
bool GOMP_loop_ull_nonmonotonic_dynamic_start(bool up, ull s, ull e, ull i, ull chunk, ull* is, ull* ie) {
  return start("GOMP_loop_ull_nonmonotonic_dynamic_start",
               nonmonotonic_dynamic_spec(ull_space(up, s, e, i), static_cast<long>(chunk)), is, ie);
}
bool GOMP_loop_ull_nonmonotonic_guided_start(bool up, ull s, ull e, ull i, ull chunk, ull* is, ull* ie) {
  return start("GOMP_loop_ull_nonmonotonic_guided_start",
               spec_of(ull_space(up, s, e, i), SchedKind::guided, static_cast<long>(chunk)), is, ie);
}
bool GOMP_loop_ull_nonmonotonic_runtime_start(bool up, ull s, ull e, ull i, ull* is, ull* ie) {
  return start("GOMP_loop_ull_nonmonotonic_runtime_start", runtime_spec(ull_space(up, s, e, i)), is, ie);
}
bool GOMP_loop_ull_maybe_nonmonotonic_runtime_start(bool up, ull s, ull e, ull i, ull* is, ull* ie) {
  return start("GOMP_loop_ull_maybe_nonmonotonic_runtime_start", runtime_spec(ull_space(up, s, e, i)), is, ie);
}
bool GOMP_loop_ull_ordered_static_start(bool up, ull s, ull e, ull i, ull chunk, ull* is, ull* ie) {
  return start("GOMP_loop_ull_ordered_static_start",
               spec_of(ull_space(up, s, e, i), SchedKind::static_, static_cast<long>(chunk), true), is, ie);
}
bool GOMP_loop_ull_ordered_dynamic_start(bool up, ull s, ull e, ull i, ull chunk, ull* is, ull* ie) {
  return start("GOMP_loop_ull_ordered_dynamic_start",
               spec_of(ull_space(up, s, e, i), SchedKind::dynamic, static_cast<long>(chunk), true), is, ie);
}
bool GOMP_loop_ull_ordered_guided_start(bool up, ull s, ull e, ull i, ull chunk, ull* is, ull* ie) {
  return start("GOMP_loop_ull_ordered_guided_start",
               spec_of(ull_space(up, s, e, i), SchedKind::guided, static_cast<long>(chunk), true), is, ie);
}
bool GOMP_loop_ull_ordered_runtime_start(bool up, ull s, ull e, ull i, ull* is, ull* ie) {
  return start("GOMP_loop_ull_ordered_runtime_start", runtime_spec(ull_space(up, s, e, i), true), is, ie);
}
bool GOMP_loop_ull_start(bool up, ull s, ull e, ull i, long sched, ull chunk, ull* is, ull* ie,
                         std::uintptr_t* reductions, void** mem) {
  return start("GOMP_loop_ull_start",
               decoded_spec("GOMP_loop_ull_start", ull_space(up, s, e, i), sched, chunk, false, reductions, mem), is, ie);
}
bool GOMP_loop_ull_ordered_start(bool up, ull s, ull e, ull i, long sched, ull chunk, ull* is, ull* ie,
                                 std::uintptr_t* reductions, void** mem) {
  return start("GOMP_loop_ull_ordered_start",
               decoded_spec("GOMP_loop_ull_ordered_start", ull_space(up, s, e, i), sched, chunk, true, reductions, mem),
               is, ie);
}
bool GOMP_loop_ull_doacross_static_start(unsigned n, ull* counts, ull chunk, ull* is, ull* ie) {
  std::vector<std::uint64_t> c;
  return start("GOMP_loop_ull_doacross_static_start",
               doacross_spec("GOMP_loop_ull_doacross_static_start", n, counts, SchedKind::static_, static_cast<long>(chunk), false, c), is, ie);
}
bool GOMP_loop_ull_doacross_dynamic_start(unsigned n, ull* counts, ull chunk, ull* is, ull* ie) {
  std::vector<std::uint64_t> c;
  return start("GOMP_loop_ull_doacross_dynamic_start",
               doacross_spec("GOMP_loop_ull_doacross_dynamic_start", n, counts, SchedKind::dynamic, static_cast<long>(chunk), false, c), is, ie);
}
bool GOMP_loop_ull_doacross_guided_start(unsigned n, ull* counts, ull chunk, ull* is, ull* ie) {
  std::vector<std::uint64_t> c;
  return start("GOMP_loop_ull_doacross_guided_start",
               doacross_spec("GOMP_loop_ull_doacross_guided_start", n, counts, SchedKind::guided, static_cast<long>(chunk), false, c), is, ie);
}
bool GOMP_loop_ull_doacross_runtime_start(unsigned n, ull* counts, ull* is, ull* ie) {
  std::vector<std::uint64_t> c;
  return start("GOMP_loop_ull_doacross_runtime_start",
               doacross_spec("GOMP_loop_ull_doacross_runtime_start", n, counts, SchedKind::static_, 0, true, c), is, ie);
}
bool GOMP_loop_ull_doacross_start(unsigned n, ull* counts, long sched, ull chunk, ull* is, ull* ie,
                                  std::uintptr_t* reductions, void** mem) {
  std::vector<std::uint64_t> c;
  LoopSpec spec = doacross_spec("GOMP_loop_ull_doacross_start", n, counts, SchedKind::static_, static_cast<long>(chunk), false, c);
  decode_schedule("GOMP_loop_ull_doacross_start", sched, spec);
  spec.reductions = reductions;
  spec.mem = mem;
  return start("GOMP_loop_ull_doacross_start", spec, is, ie);
}

bool GOMP_loop_ull_static_next(ull* is, ull* ie) { return next("GOMP_loop_ull_static_next", is, ie); }
bool GOMP_loop_ull_dynamic_next(ull* is, ull* ie) { return next("GOMP_loop_ull_dynamic_next", is, ie); }
bool GOMP_loop_ull_guided_next(ull* is, ull* ie) { return next("GOMP_loop_ull_guided_next", is, ie); }
bool GOMP_loop_ull_runtime_next(ull* is, ull* ie) { return next("GOMP_loop_ull_runtime_next", is, ie); }
bool GOMP_loop_ull_nonmonotonic_dynamic_next(ull* is, ull* ie) { return next("GOMP_loop_ull_nonmonotonic_dynamic_next", is, ie); }
bool GOMP_loop_ull_nonmonotonic_guided_next(ull* is, ull* ie) { return next("GOMP_loop_ull_nonmonotonic_guided_next", is, ie); }
bool GOMP_loop_ull_nonmonotonic_runtime_next(ull* is, ull* ie) { return next("GOMP_loop_ull_nonmonotonic_runtime_next", is, ie); }
bool GOMP_loop_ull_maybe_nonmonotonic_runtime_next(ull* is, ull* ie) {
  return next("GOMP_loop_ull_maybe_nonmonotonic_runtime_next", is, ie);
}
bool GOMP_loop_ull_ordered_static_next(ull* is, ull* ie) { return next("GOMP_loop_ull_ordered_static_next", is, ie); }
bool GOMP_loop_ull_ordered_dynamic_next(ull* is, ull* ie) { return next("GOMP_loop_ull_ordered_dynamic_next", is, ie); }
bool GOMP_loop_ull_ordered_guided_next(ull* is, ull* ie) { return next("GOMP_loop_ull_ordered_guided_next", is, ie); }
bool GOMP_loop_ull_ordered_runtime_next(ull* is, ull* ie) { return next("GOMP_loop_ull_ordered_runtime_next", is, ie); }

// ------------------------------------------------------------ loop end, ordered

void GOMP_loop_end() { end_loop(implicit_task("GOMP_loop_end"), true); }
void GOMP_loop_end_nowait() { end_loop(implicit_task("GOMP_loop_end_nowait"), false); }
bool GOMP_loop_end_cancel() { return end_loop_cancellable(implicit_task("GOMP_loop_end_cancel")); }

void GOMP_ordered_start() {
  TaskContext& self = implicit_task("GOMP_ordered_start");
  MemberState& m = *self.member;
  if (!m.ordered || !m.has_chunk) fatal("GOMP_ordered_start", "an ordered region outside the chunk of an ordered loop");
  wait_ordered_turn(m);
}
// The turn passes on at the end of the member's chunk (GOMP_loop_ordered_*_next).
void GOMP_ordered_end() {}

// ------------------------------------------------------------ combined parallel loops

void GOMP_parallel_loop_static(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i, long chunk,
                               unsigned flags) {
  run_parallel_loop(fn, data, nt, spec_of(long_space(s, e, i), SchedKind::static_, chunk), flags);
}
void GOMP_parallel_loop_dynamic(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i, long chunk,
                                unsigned flags) {
  run_parallel_loop(fn, data, nt, spec_of(long_space(s, e, i), SchedKind::dynamic, chunk), flags);
}
void GOMP_parallel_loop_guided(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i, long chunk,
                               unsigned flags) {
  run_parallel_loop(fn, data, nt, spec_of(long_space(s, e, i), SchedKind::guided, chunk), flags);
}
void GOMP_parallel_loop_runtime(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i, unsigned flags) {
  run_parallel_loop(fn, data, nt, runtime_spec(long_space(s, e, i)), flags);
}
void GOMP_parallel_loop_nonmonotonic_dynamic(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i,
                                             long chunk, unsigned flags) {
  run_parallel_loop(fn, data, nt, nonmonotonic_dynamic_spec(long_space(s, e, i), chunk), flags);
}
void GOMP_parallel_loop_nonmonotonic_guided(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i,
                                            long chunk, unsigned flags) {
  run_parallel_loop(fn, data, nt, spec_of(long_space(s, e, i), SchedKind::guided, chunk), flags);
}
void GOMP_parallel_loop_nonmonotonic_runtime(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i,
                                             unsigned flags) {
  run_parallel_loop(fn, data, nt, runtime_spec(long_space(s, e, i)), flags);
}
void GOMP_parallel_loop_maybe_nonmonotonic_runtime(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i,
                                                   unsigned flags) {
  run_parallel_loop(fn, data, nt, runtime_spec(long_space(s, e, i)), flags);
}

// GCC before 4.9: the caller runs fn(data) itself, then GOMP_parallel_end().
void GOMP_parallel_loop_static_start(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i, long chunk) {
  start_parallel_loop(fn, data, nt, spec_of(long_space(s, e, i), SchedKind::static_, chunk));
}
void GOMP_parallel_loop_dynamic_start(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i, long chunk) {
  start_parallel_loop(fn, data, nt, spec_of(long_space(s, e, i), SchedKind::dynamic, chunk));
}
void GOMP_parallel_loop_guided_start(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i, long chunk) {
  start_parallel_loop(fn, data, nt, spec_of(long_space(s, e, i), SchedKind::guided, chunk));
}
void GOMP_parallel_loop_runtime_start(void (*fn)(void*), void* data, unsigned nt, long s, long e, long i) {
  start_parallel_loop(fn, data, nt, runtime_spec(long_space(s, e, i)));
}

}  // extern "C"
