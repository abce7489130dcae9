#pragma once
// Worksharing constructs (internal): the shared state of one loop, sections
// or `single copyprivate` construct, and how members take their chunks.
//
// A team keeps a ring of WorkShare slots. Members number the constructs that
// need one in the order they meet them (all members meet the same ones in
// the same order, as OpenMP requires); construct c uses slot c % kRing. The
// first member to arrive sets the slot up, the last to leave frees it for
// construct c + kRing; a member that runs kRing constructs ahead (nowait)
// waits for the slowest to leave. Static loops need no shared state and take
// no slot unless they are ordered.
//
// Iterations are numbered 0 .. count-1 (IterSpace, context.hpp), so one set
// of schedules serves GOMP's long and unsigned long long entry points:
//   static (chunk 0):  member k of P gets block k of P nearly equal blocks
//                      (the first count mod P one longer), as libgomp.
//   static, c:         chunks of c, chunk j to member j mod P.
//   dynamic, c:        the next c iterations, one fetch_add on `next`.
//   nonmonotonic:dynamic, c (GCC's default for schedule(dynamic)): each
//                      member starts with its static block of chunks and
//                      takes them from the front of its own range (a CAS on
//                      its own cache line); when it is empty it steals the
//                      back half of another member's range (LLVM libomp's
//                      static_steal schedule, kmp_dispatch.cpp). Members
//                      then contend only when they steal, not at every
//                      chunk. A member's chunks are not in increasing order
//                      after a steal, which nonmonotonic allows. The loop's
//                      final chunk is in no range: it goes, last, to the
//                      first member that finds every range empty (a member
//                      that ran the final chunk may take no other: GCC's
//                      lastprivate copy-out tests that the member's last
//                      chunk ended the loop).
//   guided, c:         the next ceil(left / P) iterations, at least c; one CAS.
//   ordered:           any of these; a member passes the ordered turn on at
//                      the end of each chunk (`turn` = first iteration whose
//                      ordered regions may run), so ordered regions run in
//                      iteration order (chunks partition 0 .. count-1 and
//                      are handed out in increasing order).

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "context.hpp"
#include "weft/sched/cpu.hpp"

namespace weft::omp {

struct Doacross;

struct alignas(sched::cache_line_size) WorkShare {
  // 4c: free for construct c; 4c + 1: being set up for it; 4c + 2: ready.
  std::atomic<std::uint64_t> state{0};
  std::atomic<int> left{0};        // members done with it
  IterSpace space;
  SchedKind kind = SchedKind::static_;
  std::uint64_t chunk = 0;
  bool ordered = false;
  bool dynamic_fast = true;        // next may overshoot count by P chunks without wrapping
  void* copyprivate = nullptr;     // GOMP_single_copy_end's data
  void* extra = nullptr;           // GOMP_loop_start / sections2 `mem`: zeroed, shared
  std::size_t extra_size = 0;
  std::uintptr_t* task_reductions = nullptr;  // reductions with the task modifier of this construct
  Doacross* doacross = nullptr;    // ordered(n) loops
  // nonmonotonic:dynamic: member k's chunks not yet taken, [lo, hi) as
  // lo << 32 | hi, one cache line each (`ranges_capacity` members).
  struct alignas(sched::cache_line_size) Range {
    std::atomic<std::uint64_t> chunks{0};
  };
  Range* ranges = nullptr;
  int ranges_capacity = 0;
  bool stealing = false;
  alignas(sched::cache_line_size) std::atomic<std::uint64_t> next{0};   // dynamic, guided
  std::atomic<bool> final_chunk_free{false};  // nonmonotonic:dynamic: the final chunk is not taken yet
  alignas(sched::cache_line_size) std::atomic<std::uint64_t> turn{0};   // ordered
};

inline constexpr int kRing = 8;

// The iteration spaces of GOMP's two loop flavours.
IterSpace long_space(long start, long end, long incr);
IterSpace ull_space(bool up, unsigned long long start, unsigned long long end, unsigned long long incr);

// Takes the calling member's next chunk of the loop in `m` (team of
// `members`) into m.lo / m.hi; false when none is left. Ordered loops pass
// the turn on for the chunk just finished first.
bool next_chunk(MemberState& m, int members, int member_number);

// The ordered turn (GOMP_ordered_start): waits until the member's chunk is next.
void wait_ordered_turn(MemberState& m);

// The slot of the caller's next worksharing construct (now m.ws). The first
// member to arrive gets first = true, sets the slot up and calls
// construct_ready(); the others wait for that. Waits while the slot still
// serves construct c - kRing.
struct Team;
WorkShare& enter_construct(TaskContext& self, bool& first);
void construct_ready(WorkShare& w);
// The caller is done with its construct's slot (the last member frees it).
void leave_construct(TaskContext& self);

// How a loop is shared, as the encountering member describes it.
struct LoopSpec {
  IterSpace space;
  SchedKind kind = SchedKind::static_;
  std::uint64_t chunk = 0;
  bool runtime_schedule = false;  // kind and chunk come from run-sched-var (the first member's)
  bool nonmonotonic = false;      // dynamic: chunks may be taken out of order (stealing)
  bool ordered = false;
  std::uintptr_t* reductions = nullptr;  // task reductions (GOMP_loop_start)
  void** mem = nullptr;                  // GOMP_loop_start's shared zeroed buffer
  unsigned doacross_dims = 0;            // ordered(n) loops: counts[0..n)
  const std::uint64_t* doacross_counts = nullptr;
};

// Starts the caller's part of a worksharing loop; no chunk taken yet.
void begin_loop(TaskContext& self, const LoopSpec& spec);
// Ends it: leaves the slot, then the team barrier unless nowait.
void end_loop(TaskContext& self, bool wait);
// Ends it at a cancellation point (GOMP_loop_end_cancel and the sections
// twin): leaves the slot, then the cancellable barrier; true when the
// region is cancelled (the caller goes to the region's end).
bool end_loop_cancellable(TaskContext& self);

// GOMP_parallel_loop_*: sets slot 0 up for construct 0 before the members
// start; each member attaches to it (the compiler's code calls *_next first).
void preset_loop(Team& t, const LoopSpec& spec);
void attach_to_preset_loop(Team& t, MemberState& m);

}  // namespace weft::omp
