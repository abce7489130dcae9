#pragma once
// parallel(body): an OpenMP `parallel` region. body(team) runs once on each
// member of a team; the Team offers OpenMP's constructs inside a region.
//
//   weft::parallel([&](weft::Team& team) {
//     team.for_each(0, n, [&](int i) { a[i] = f(i); });   // `omp for`, then a barrier
//     team.single([&] { normalise(a); });                 // `omp single`
//     team.for_each(0, n, [&](int i) { b[i] = g(a, i); }, weft::schedule_dynamic(64), weft::nowait);
//     team.critical([&] { total += local; });             // `omp critical`
//   });
//
//   weft::parallel({.num_threads = 8, .placement = "RR_CORE"}, body);
//
// Members are ULTs: member 0 is the caller, the others start on the workers
// the placement chooses (detail/team_placement.hpp; by default member k on
// worker (caller's + k) mod workers). A team may have more members than the
// runtime has workers: members then share workers, and a member waiting in a
// barrier yields to them, then parks. The placement is per region, so a
// program can change it between regions (thesis §7.7.4, MCTOP_MP).
//
// Every member must meet the same barriers, singles and for_each loops in
// the same order (as in OpenMP). When a member throws, the team is
// cancelled: the other members leave at their next barrier, single or
// for_each chunk, and parallel() rethrows the first exception once all have
// left. Regions nest; any ULT may start one; from a plain thread the region
// runs on the runtime parallel_for would use (default_runtime.hpp), with
// member 0 on worker 0.

#include <concepts>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include "weft/apps/default_runtime.hpp"
#include "weft/apps/detail/crew.hpp"
#include "weft/apps/detail/index_space.hpp"
#include "weft/apps/detail/loop_schedules.hpp"
#include "weft/apps/detail/member_storage.hpp"
#include "weft/apps/detail/team_placement.hpp"
#include "weft/apps/detail/team_shared.hpp"
#include "weft/apps/schedule.hpp"
#include "weft/runtime/trace.hpp"

namespace weft {

// Pass as the last argument to skip the barrier at the end of a construct.
struct nowait_t {
  explicit nowait_t() = default;
};
inline constexpr nowait_t nowait{};

struct ParallelOptions {
  // Members of the team; 0 = one per worker of the runtime.
  int num_threads = 0;
  // An MCTOP-PLACE policy name (weft/sched/placement.hpp, e.g. "CON_CORE",
  // "RR_CORE", "BALANCE_CORE_HWC"); empty or "NONE" = the default rotation.
  std::string placement;
};

// One member's view of its team (passed to the region's body).
class Team {
 public:
  Team(detail::TeamShared& shared, int member) : shared_(&shared), member_(member) {}
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  int thread_num() const noexcept { return member_; }
  int num_threads() const noexcept { return shared_->members(); }

  // Waits until every member has arrived (`omp barrier`).
  void barrier() { shared_->barrier(); }

  // f() runs on the first member to get here; all wait for it (`omp single`).
  template <class F>
  void single(F&& f) {
    single(std::forward<F>(f), nowait);
    barrier();
  }
  template <class F>
  void single(F&& f, nowait_t) {
    shared_->throw_if_cancelled();
    if (shared_->claim_single(singles_++)) std::forward<F>(f)();
  }

  // f() runs on member 0 only; no barrier (`omp master` / `masked`).
  template <class F>
  void master(F&& f) {
    if (member_ == 0) std::forward<F>(f)();
  }

  // f() runs under the team's lock, one member at a time (`omp critical`).
  // The lock is the team's: members of other teams are not excluded (share
  // a weft::Mutex for that).
  template <class F>
  void critical(F&& f) {
    std::lock_guard lock(shared_->critical_mutex());
    std::forward<F>(f)();
  }

  // A worksharing loop (`omp for`): body(i) once for every i in [begin,
  // end), the iterations shared among the members by `schedule` (default
  // static, as libgomp), then a barrier unless `nowait` is passed. Every
  // member must call it with the same range and schedule.
  template <detail::loop_index B, detail::loop_index E, class Body>
  void for_each(B begin, E end, Body&& body, const Schedule& schedule = schedule_static()) {
    share_loop(begin, end, body, schedule);
    barrier();
  }
  template <detail::loop_index B, detail::loop_index E, class Body>
  void for_each(B begin, E end, Body&& body, const Schedule& schedule, nowait_t) {
    share_loop(begin, end, body, schedule);
  }
  template <detail::loop_index B, detail::loop_index E, class Body>
  void for_each(B begin, E end, Body&& body, nowait_t) {
    share_loop(begin, end, body, schedule_static());
  }

 private:
  template <class B, class E, class Body>
  void share_loop(B begin, E end, Body& body, const Schedule& s);

  detail::TeamShared* shared_;
  int member_;
  std::uint64_t singles_ = 0;  // `single` constructs met
  std::uint64_t loops_ = 0;    // for_each loops with shared state met
};

template <class B, class E, class Body>
void Team::share_loop(B begin, E end, Body& body, const Schedule& schedule) {
  const Schedule s = detail::normalized(schedule);
  shared_->throw_if_cancelled();
  const auto space = detail::make_index_space(begin, end, "Team::for_each");
  if (space.count == 0) return;
  const int members = num_threads();
  auto run = [&](std::uint64_t lo, std::uint64_t hi) {
    shared_->throw_if_cancelled();
    detail::run_chunk(space, lo, hi, body);
  };
  if (s.kind == Schedule::Kind::static_) {
    if (s.chunk == 0) {
      const detail::Span b = detail::block_of(space.count, members, member_);
      if (!b.empty()) run(b.lo, b.hi);
    } else {
      detail::for_each_static_chunk(space.count, s.chunk, members, member_, run);
    }
    return;
  }
  const std::uint64_t loop = loops_++;
  detail::WorkShare& slot = shared_->enter_loop(loop, s, space.count);
  switch (s.kind) {
    case Schedule::Kind::dynamic:
      for (detail::Span c; !(c = slot.counter.claim_dynamic(space.count, s.chunk)).empty();) run(c.lo, c.hi);
      break;
    case Schedule::Kind::guided:
      for (detail::Span c; !(c = slot.counter.claim_guided(space.count, s.chunk, members)).empty();) run(c.lo, c.hi);
      break;
    default: {
      // Adaptive: each member starts with its static block; idle members
      // steal halves. A chunk is at most 1/32 of a member's block.
      detail::StealableRanges ranges(0, space.count, slot.ranges.get(), members);
      const std::uint64_t grain = std::max<std::uint64_t>(1, ranges.units() / (32 * static_cast<std::uint64_t>(members)));
      ranges.run_member(member_, grain, [&] { return shared_->cancelled(); }, run);
      shared_->throw_if_cancelled();
      break;
    }
  }
  shared_->leave_loop(slot, loop);
}

namespace detail {
// Members of a region: options.num_threads, or one per worker. Throws
// std::invalid_argument for a negative count.
int team_size(const ParallelOptions& options, int workers);
}  // namespace detail

template <class Body>
  requires std::invocable<Body&, Team&>
void parallel(const ParallelOptions& options, Body&& body) {
  detail::run_on_ult([&] {
    const int workers = this_ult::num_workers();
    const int members = detail::team_size(options, workers);
    const int here = this_ult::worker_index();
    detail::MemberArray<int, 16> worker_of(static_cast<std::size_t>(members));
    if (options.placement.empty()) {
      for (int k = 0; k < members; ++k) worker_of[k] = detail::rotated_worker(here, k, workers);
    } else {
      const auto& chosen = detail::team_workers(options.placement, members, here);
      for (int k = 0; k < members; ++k) worker_of[k] = chosen[static_cast<std::size_t>(k)];
    }
    detail::TeamShared shared(members, detail::wait_spin_ns());
    auto member = [&](int k) {
      trace::Scope traced(label("parallel region"));  // a slice in a trace; a load and a branch otherwise
      Team team(shared, k);
      body(team);
    };
    auto on_error = [&](std::exception_ptr e) { shared.fail(std::move(e)); };
    detail::run_crew({members, 0, &worker_of[0], shared.spin_ns()}, member, on_error);
    shared.rethrow_if_failed();
  });
}

template <class Body>
  requires std::invocable<Body&, Team&>
void parallel(Body&& body) {
  parallel(ParallelOptions{}, body);
}

}  // namespace weft
