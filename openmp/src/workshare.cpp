// Worksharing slots and loop schedules. See workshare.hpp.
#include "workshare.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "doacross.hpp"
#include "fatal.hpp"
#include "task_reduction.hpp"
#include "team.hpp"
#include "wait.hpp"

namespace weft::omp {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

// Static schedule: block k of P, or chunk trip*P + k.
bool static_next(MemberState& m, int members, int k) {
  const std::uint64_t n = m.space.count;
  const auto p = static_cast<std::uint64_t>(members), me = static_cast<std::uint64_t>(k);
  if (m.chunk == 0) {
    if (m.trip++ > 0) return false;
    const std::uint64_t q = n / p, r = n % p;
    m.lo = me * q + std::min(me, r);
    m.hi = m.lo + q + (me < r ? 1 : 0);
    return m.lo < m.hi;
  }
  const std::uint64_t c = m.chunk;
  if (n == 0 || m.trip > (std::numeric_limits<std::uint64_t>::max() - me) / p) return false;
  const std::uint64_t j = m.trip * p + me;
  if (j > (n - 1) / c) return false;  // j * c >= n
  m.lo = j * c;
  m.hi = m.lo + std::min(c, n - m.lo);
  ++m.trip;
  return true;
}

bool dynamic_next(WorkShare& w, MemberState& m) {
  const std::uint64_t n = w.space.count, c = w.chunk;
  std::uint64_t lo;
  if (w.dynamic_fast) {
    lo = w.next.fetch_add(c, std::memory_order_relaxed);
    if (lo >= n) return false;
  } else {
    lo = w.next.load(std::memory_order_relaxed);
    do {
      if (lo >= n) return false;
    } while (!w.next.compare_exchange_weak(lo, lo + std::min(c, n - lo), std::memory_order_relaxed));
  }
  m.lo = lo;
  m.hi = lo + std::min(c, n - lo);
  return true;
}

// nonmonotonic:dynamic (workshare.hpp): chunk ranges packed lo << 32 | hi.
constexpr std::uint64_t range_lo(std::uint64_t r) { return r >> 32; }
constexpr std::uint64_t range_hi(std::uint64_t r) { return r & 0xFFFFFFFFu; }
constexpr std::uint64_t range_of(std::uint64_t lo, std::uint64_t hi) { return lo << 32 | hi; }

void take_stolen_chunk(const WorkShare& w, MemberState& m, std::uint64_t chunk) {
  m.lo = chunk * w.chunk;
  m.hi = m.lo + std::min(w.chunk, w.space.count - m.lo);
  m.took_last_chunk = m.hi == w.space.count;
}

// GCC's code for lastprivate copies out in the member whose last chunk ends
// the loop, so the member that takes the loop's final chunk takes no other
// after it. The final chunk is therefore in no member's range: it is taken
// once every range is empty, so its taker stops when there is nothing left
// to share. (It used to sit at the back of the last member's range: a thief
// that stole it stopped stealing, and on msgmerge one member then idled for
// a quarter of the loop while the other worked through its range alone.)
bool steal_next(WorkShare& w, MemberState& m, int members, int me) {
  if (m.took_last_chunk) return false;
  std::atomic<std::uint64_t>& mine = w.ranges[me].chunks;
  std::uint64_t r = mine.load(std::memory_order_relaxed);
  while (range_lo(r) < range_hi(r)) {
    if (mine.compare_exchange_weak(r, range_of(range_lo(r) + 1, range_hi(r)), std::memory_order_relaxed)) {
      take_stolen_chunk(w, m, range_lo(r));
      return true;
    }
  }
  // Empty: the back half of the next member's range that has chunks left.
  // Thieves only change a range that is not empty, so the owner's plain
  // store into its empty range below cannot be lost.
  for (int d = 1; d < members; ++d) {
    std::atomic<std::uint64_t>& other = w.ranges[(me + d) % members].chunks;
    std::uint64_t o = other.load(std::memory_order_relaxed);
    while (range_lo(o) < range_hi(o)) {
      const std::uint64_t from = range_hi(o) - (range_hi(o) - range_lo(o) + 1) / 2;
      if (other.compare_exchange_weak(o, range_of(range_lo(o), from), std::memory_order_relaxed)) {
        mine.store(range_of(from + 1, range_hi(o)), std::memory_order_relaxed);
        take_stolen_chunk(w, m, from);
        return true;
      }
    }
  }
  // Every range empty (some chunks maybe with a thief that has not stored
  // its range yet: it runs them): the final chunk, to the first who asks.
  if (w.final_chunk_free.load(std::memory_order_relaxed) &&
      w.final_chunk_free.exchange(false, std::memory_order_relaxed)) {
    take_stolen_chunk(w, m, ceil_div(w.space.count, w.chunk) - 1);  // sets took_last_chunk
    return true;
  }
  return false;
}

// Sets up the members' ranges when the loop may steal: each starts with its
// static block of the chunks but the final one (the first chunks mod P
// blocks one longer); the final chunk is held back (steal_next).
void set_up_stealing(WorkShare& w, int members) {
  const std::uint64_t all_chunks = ceil_div(w.space.count, w.chunk);
  w.stealing = members > 1 && all_chunks < 0xFFFFFFFFu;
  if (!w.stealing) return;
  w.final_chunk_free.store(all_chunks > 0, std::memory_order_relaxed);
  const std::uint64_t chunks = all_chunks > 0 ? all_chunks - 1 : 0;
  if (w.ranges_capacity < members) {
    delete[] w.ranges;
    w.ranges = new WorkShare::Range[static_cast<std::size_t>(members)];
    w.ranges_capacity = members;
  }
  const auto p = static_cast<std::uint64_t>(members);
  const std::uint64_t q = chunks / p, rest = chunks % p;
  for (std::uint64_t k = 0; k < p; ++k) {
    const std::uint64_t lo = k * q + std::min(k, rest);
    w.ranges[k].chunks.store(range_of(lo, lo + q + (k < rest ? 1 : 0)), std::memory_order_relaxed);
  }
}

bool guided_next(WorkShare& w, MemberState& m, int members) {
  const std::uint64_t n = w.space.count;
  std::uint64_t lo = w.next.load(std::memory_order_relaxed), hi;
  do {
    if (lo >= n) return false;
    const std::uint64_t q = std::max(ceil_div(n - lo, static_cast<std::uint64_t>(members)), w.chunk);
    hi = lo + std::min(q, n - lo);
  } while (!w.next.compare_exchange_weak(lo, hi, std::memory_order_relaxed));
  m.lo = lo;
  m.hi = hi;
  return true;
}

// The member's chunk [lo, hi) is done: once its turn has come (earlier
// chunks passed theirs), hand it to the chunk starting at hi.
void pass_ordered_turn(MemberState& m) {
  wait_ordered_turn(m);
  m.ws->turn.store(m.hi, std::memory_order_release);
  unpark_all(&m.ws->turn);
}

void set_up_loop(WorkShare& w, const LoopSpec& spec, const Icv& icv, int team_size) {
  w.space = spec.space;
  w.kind = spec.kind;
  w.chunk = spec.chunk;
  if (spec.runtime_schedule) {
    const RunSchedule& r = icv.run_sched;
    w.kind = r.kind == SchedKind::auto_ ? SchedKind::static_ : r.kind;
    w.chunk = r.kind == SchedKind::auto_ ? 0 : static_cast<std::uint64_t>(std::max(r.chunk, 0L));
  }
  if (w.kind != SchedKind::static_ && w.chunk == 0) w.chunk = 1;
  w.ordered = spec.ordered;
  const auto members = static_cast<std::uint64_t>(team_size);
  const std::uint64_t overshoot = (members + 1) > std::numeric_limits<std::uint64_t>::max() / std::max<std::uint64_t>(w.chunk, 1)
                                      ? std::numeric_limits<std::uint64_t>::max()
                                      : (members + 1) * w.chunk;
  w.dynamic_fast = w.space.count <= std::numeric_limits<std::uint64_t>::max() - overshoot;
  w.stealing = false;
  if (w.kind == SchedKind::dynamic && spec.nonmonotonic && !spec.runtime_schedule && !w.ordered &&
      !spec.doacross_dims)
    set_up_stealing(w, team_size);
  w.next.store(0, std::memory_order_relaxed);
  w.turn.store(0, std::memory_order_relaxed);
  w.copyprivate = nullptr;
  w.task_reductions = nullptr;
  if (spec.mem) {
    const auto size = reinterpret_cast<std::uintptr_t>(*spec.mem);
    if (size > w.extra_size) {
      std::free(w.extra);
      w.extra = std::aligned_alloc(alignof(long double), std::max<std::size_t>((size + 15) / 16 * 16, 16));
      if (!w.extra) fatal("GOMP_loop_start", "out of memory for the loop's shared buffer");
      w.extra_size = size;
    }
    std::memset(w.extra, 0, size);
  }
  delete_doacross(w.doacross);
  w.doacross = spec.doacross_dims ? make_doacross(spec.doacross_dims, spec.doacross_counts) : nullptr;
}

void attach(MemberState& m, const WorkShare& w) {
  m.space = w.space;
  m.kind = w.kind;
  m.chunk = w.chunk;
  m.ordered = w.ordered;
  m.trip = 0;
  m.has_chunk = false;
  m.took_last_chunk = false;
}

}  // namespace

IterSpace long_space(long start, long end, long incr) {
  IterSpace s;
  s.start = static_cast<std::uint64_t>(start);
  s.incr = static_cast<std::uint64_t>(incr);
  s.end = static_cast<std::uint64_t>(end);
  if (incr > 0 && start < end)
    s.count = ceil_div(static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(start), static_cast<std::uint64_t>(incr));
  else if (incr < 0 && start > end)
    s.count = ceil_div(static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(end), 0 - static_cast<std::uint64_t>(incr));
  return s;
}

IterSpace ull_space(bool up, unsigned long long start, unsigned long long end, unsigned long long incr) {
  IterSpace s;
  s.start = start;
  s.incr = incr;
  s.end = end;
  if (up && start < end && incr != 0) s.count = ceil_div(end - start, incr);
  else if (!up && start > end && incr != 0) s.count = ceil_div(start - end, 0 - incr);
  return s;
}

WorkShare& enter_construct(TaskContext& self, bool& first) {
  MemberState& m = *self.member;
  Team& t = *self.team;
  const std::uint64_t c = m.constructs++;
  WorkShare& w = t.ws[c % kRing];
  const std::uint64_t free_for_c = 4 * c, ready = 4 * c + 2;
  m.ws = &w;
  m.ws_number = c;
  while (true) {
    std::uint64_t s = w.state.load(std::memory_order_acquire);
    if (s == ready) {
      first = false;
      return w;
    }
    if (s == free_for_c && w.state.compare_exchange_strong(s, free_for_c + 1, std::memory_order_acquire)) {
      first = true;
      w.left.store(0, std::memory_order_relaxed);
      return w;
    }
    // Being set up by another member, or still serving construct c - kRing.
    wait_until(&w.state, [&w, free_for_c, ready] {
      const std::uint64_t now = w.state.load(std::memory_order_acquire);
      return now == ready || now == free_for_c;
    });
  }
}

void construct_ready(WorkShare& w) {
  w.state.store(w.state.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  unpark_all(&w.state);
}

void leave_construct(TaskContext& self) {
  MemberState& m = *self.member;
  WorkShare* w = m.ws;
  if (!w) return;
  m.ws = nullptr;
  if (w->left.fetch_add(1, std::memory_order_acq_rel) + 1 == self.team->nthreads) {
    w->state.store(4 * (m.ws_number + kRing), std::memory_order_release);
    unpark_all(&w->state);
  }
}

void begin_loop(TaskContext& self, const LoopSpec& spec) {
  MemberState& m = *self.member;
  const bool shared = spec.kind != SchedKind::static_ || spec.runtime_schedule || spec.ordered || spec.mem ||
                      spec.reductions || spec.doacross_dims;
  if (!shared) {
    m.ws = nullptr;
    m.space = spec.space;
    m.kind = SchedKind::static_;
    m.chunk = spec.chunk;
    m.ordered = false;
    m.trip = 0;
    m.has_chunk = false;
    return;
  }
  if (spec.reductions) begin_workshare_reductions(self);
  bool first = false;
  WorkShare& w = enter_construct(self, first);
  if (first) {
    set_up_loop(w, spec, self.icv, self.team->nthreads);
    if (spec.reductions) register_workshare_reductions(self, w, spec.reductions, true);
    construct_ready(w);
  } else if (spec.reductions) {
    register_workshare_reductions(self, w, spec.reductions, false);
  }
  if (spec.mem) *spec.mem = w.extra;
  attach(m, w);
}

void end_loop(TaskContext& self, bool wait) {
  leave_construct(self);
  if (wait) team_barrier(self);
}

bool end_loop_cancellable(TaskContext& self) {
  leave_construct(self);
  return cancellable_team_barrier(self);
}

void preset_loop(Team& t, const LoopSpec& spec) {
  WorkShare& w = t.ws[0];
  w.state.store(1, std::memory_order_relaxed);
  w.left.store(0, std::memory_order_relaxed);
  set_up_loop(w, spec, t.encountering->icv, t.nthreads);
  w.state.store(2, std::memory_order_release);
  t.preset_loop = true;
}

void attach_to_preset_loop(Team& t, MemberState& m) {
  m.constructs = 1;
  m.ws = &t.ws[0];
  m.ws_number = 0;
  attach(m, t.ws[0]);
}

bool next_chunk(MemberState& m, int members, int member_number) {
  if (m.ordered && m.has_chunk) pass_ordered_turn(m);
  bool got = false;
  switch (m.kind) {
    case SchedKind::dynamic:
      got = m.ws->stealing ? steal_next(*m.ws, m, members, member_number) : dynamic_next(*m.ws, m);
      break;
    case SchedKind::guided: got = guided_next(*m.ws, m, members); break;
    default: got = static_next(m, members, member_number); break;
  }
  m.has_chunk = got;
  return got;
}

void wait_ordered_turn(MemberState& m) {
  WorkShare& w = *m.ws;
  const std::uint64_t lo = m.lo;
  wait_until(&w.turn, [&w, lo] { return w.turn.load(std::memory_order_acquire) == lo; });
}

}  // namespace weft::omp
