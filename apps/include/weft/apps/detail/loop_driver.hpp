#pragma once
// The engine under parallel_for and parallel_reduce (internal): runs
// chunk(member, lo, hi) over the offsets [0, count) of a loop under a
// schedule, with `member` in [0, workers) telling the chunk whose partial
// state it adds to. Chooses the members, starts them as a crew (crew.hpp)
// and hands out the chunks (loop_schedules.hpp):
//
//  * one worker: the whole loop as one chunk on the caller, no ULTs;
//  * static: min(workers, chunks) members, member k pinned to worker k (the
//    caller runs its own worker's member), so the same static loop touches
//    the same data from the same core every time (first-touch placement);
//  * dynamic, guided: min(workers, chunks) stealable members;
//  * adaptive: the serial cutoff first (below), then stealable members over
//    StealableRanges, the caller starting with the whole rest.
//
// The serial cutoff (adaptive only; docs/parallel.md): the caller runs the
// loop itself in batches of 1, 2, 4, ... iterations, timing them. The mean
// time per iteration of the latest batch estimates the work left. Once a
// batch has taken kEstimateNs, an estimate of at least kSerialCutoffNs left
// forks at once;
// otherwise the caller goes on until it has spent kSerialCutoffNs (a loop
// that ends by then never forks) and decides then: one helper per
// kSerialCutoffNs of estimated work left (at most workers - 1), none meaning
// the caller finishes alone. The estimate also sets the chunk a member takes
// at once (about kChunkNs of work), so claiming costs under 1% of the loop.
//
// From a plain thread the serial parts run on that thread; the forked part
// runs on a ULT (run_on_ult).

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "weft/apps/default_runtime.hpp"
#include "weft/apps/detail/crew.hpp"
#include "weft/apps/detail/loop_schedules.hpp"
#include "weft/apps/schedule.hpp"

namespace weft::detail {

inline constexpr std::int64_t kSerialCutoffNs = 2000;
inline constexpr std::int64_t kEstimateNs = 250;          // a batch this long, of at least
inline constexpr std::uint64_t kEstimateIterations = 16;  // this many iterations, gives a rate worth trusting
inline constexpr std::int64_t kChunkNs = 2000;

inline int parallel_workers() {
  return this_ult::inside() ? this_ult::num_workers() : runtime_for_parallel().num_workers();
}

// Members of a static, dynamic or guided loop, on a ULT of the runtime.
template <class Chunk>
void fork_scheduled_loop(std::uint64_t count, const Schedule& s, Chunk& chunk, ErrorSlot& error) {
  const int workers = this_ult::num_workers();
  const int members = members_for(s, count, workers);
  auto on_error = [&](std::exception_ptr e) { error.record(std::move(e)); };
  if (s.kind == Schedule::Kind::static_) {
    MemberArray<int, 16> worker_of(static_cast<std::size_t>(members));
    for (int k = 0; k < members; ++k) worker_of[k] = k;
    const int here = this_ult::worker_index();
    auto member = [&chunk, &error, count, members, size = s.chunk](int k) {
      if (size == 0) {
        const Span b = block_of(count, members, k);
        chunk(k, b.lo, b.hi);
        return;
      }
      for_each_static_chunk(count, size, members, k, [&](std::uint64_t lo, std::uint64_t hi) {
        if (!error.failed()) chunk(k, lo, hi);
      });
    };
    run_crew({members, here < members ? here : members - 1, &worker_of[0], wait_spin_ns()}, member, on_error);
    return;
  }
  ChunkCounter next;
  auto member = [&next, &chunk, &error, count, members, dynamic = s.kind == Schedule::Kind::dynamic,
                 size = s.chunk](int k) {
    while (!error.failed()) {
      const Span c = dynamic ? next.claim_dynamic(count, size) : next.claim_guided(count, size, members);
      if (c.empty()) return;
      chunk(k, c.lo, c.hi);
    }
  };
  run_crew({members, 0, nullptr, wait_spin_ns()}, member, on_error);
}

// The parallel part of an adaptive loop: offsets [first, count), `helpers`
// stealable helpers, on a ULT of the runtime.
template <class Chunk>
void fork_adaptive_loop(std::uint64_t first, std::uint64_t count, int helpers, double ns_per_iteration,
                        Chunk& chunk, ErrorSlot& error) {
  const int members = std::min(helpers, this_ult::num_workers() - 1) + 1;
  MemberArray<RangeSlot, 8> slots(static_cast<std::size_t>(members));
  StealableRanges ranges(first, count - first, &slots[0], members);
  ranges.assign(0, 0, ranges.units());
  const double grain = std::max(1.0, static_cast<double>(kChunkNs) / std::max(ns_per_iteration, 1e-3));
  // At least 1/1024 of a member's share per claim, whatever the estimate says
  // (a noisy estimate must not turn a long loop into millions of claims).
  const std::uint64_t floor_units = ranges.units() / (1024 * static_cast<std::uint64_t>(members));
  const std::uint64_t grain_units = std::max<std::uint64_t>(
      {1, floor_units, static_cast<std::uint64_t>(std::min(grain, 1e18)) / ranges.unit()});
  auto stop = [&] { return error.failed(); };
  auto member = [&](int k) {
    ranges.run_member(k, grain_units, stop, [&](std::uint64_t lo, std::uint64_t hi) { chunk(k, lo, hi); });
  };
  auto on_error = [&](std::exception_ptr e) { error.record(std::move(e)); };
  run_crew({members, 0, nullptr, wait_spin_ns()}, member, on_error);
}

// Runs the loop; rethrows the first exception a chunk threw (the chunks not
// started by then are skipped).
template <class Chunk>
void run_loop(std::uint64_t count, const Schedule& schedule, Chunk& chunk) {
  if (count == 0) return;
  const Schedule s = normalized(schedule);
  const int workers = parallel_workers();
  if (workers == 1 || count == 1) {
    chunk(0, 0, count);
    return;
  }
  ErrorSlot error;
  if (s.kind != Schedule::Kind::adaptive) {
    run_on_ult([&] { fork_scheduled_loop(count, s, chunk, error); });
    error.rethrow_if_failed();
    return;
  }
  // The serial cutoff.
  using clock = std::chrono::steady_clock;
  auto ns_between = [](clock::time_point a, clock::time_point b) {
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
  };
  const auto start = clock::now();
  auto batch_start = start;
  std::uint64_t done = 0, batch = 1;
  double ns_per_iteration = 0, left_ns = 0;
  while (true) {
    const std::uint64_t hi = count - done <= batch ? count : done + batch;
    chunk(0, done, hi);
    const std::uint64_t ran = hi - done;
    done = hi;
    if (done == count) return;
    const auto now = clock::now();
    // The rate of the latest batch: the most recent iterations, and the
    // longest batch, so the clock's own cost (tens of ns) matters least.
    const double batch_ns = ns_between(batch_start, now);
    ns_per_iteration = batch_ns / static_cast<double>(ran);
    left_ns = ns_per_iteration * static_cast<double>(count - done);
    // Fork as soon as the estimate is worth trusting (a batch long enough,
    // and past the first few iterations, whose cache and TLB misses would
    // make one iteration look like hundreds) and says the rest is long.
    const bool trusted = batch_ns >= kEstimateNs && ran >= kEstimateIterations;
    if (ns_between(start, now) >= kSerialCutoffNs || (trusted && left_ns >= kSerialCutoffNs)) break;
    batch_start = now;
    batch = std::min(batch * 2, count);
  }
  const int helpers = static_cast<int>(std::min<double>(workers - 1, left_ns / kSerialCutoffNs));
  if (helpers == 0) {
    chunk(0, done, count);
    return;
  }
  run_on_ult([&] { fork_adaptive_loop(done, count, helpers, ns_per_iteration, chunk, error); });
  error.rethrow_if_failed();
}

}  // namespace weft::detail
