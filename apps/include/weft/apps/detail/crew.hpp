#pragma once
// Fork-join of the members of one parallel construct (internal): member
// `self` runs on the calling ULT, every other member on a ULT of its own, and
// run_crew returns when all have finished. Every construct of the layer
// (parallel_for, parallel_reduce, parallel regions) is a crew.
//
// Helpers are started one of two ways:
//  * pinned: member k on worker pinned[k] (spawn_on). Static schedules and
//    team members use it, so a member's data stays where it touched it first.
//  * stealable: pushed on the caller's deque, for any idle worker to take.
//    Dynamic, guided and adaptive schedules use it. A helper nobody took by
//    the time the caller's own member is done has nothing left to do: the
//    caller retires it (one exchange on its flag) instead of waiting for a
//    worker, and its ULT, run at once by the join, returns without working.
//
// The wait for the helpers spins for the runtime's idle spin, then parks
// (completion.hpp). The helpers' ULTs are detached (pinned ones at once,
// stealable ones once their member has arrived), so the caller never waits
// for a ULT's exit path.
//
// Errors: a member's exception goes to on_error(std::exception_ptr) (the
// construct records the first and tells the others to stop); TeamCancelled,
// which a cancelled team throws through its members, is swallowed.

#include <atomic>
#include <cstdint>
#include <exception>
#include <utility>

#include "weft/apps/detail/member_storage.hpp"
#include "weft/apps/detail/completion.hpp"
#include "weft/runtime/ult.hpp"

namespace weft::detail {

// Thrown through the members of a cancelled team (a member threw); never
// reaches the user: the construct rethrows the member's exception instead.
struct TeamCancelled {};

// The first exception a member threw. Members poll failed() to skip the
// chunks that remain.
class ErrorSlot {
 public:
  bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }
  void record(std::exception_ptr e) noexcept {
    if (!failed_.exchange(true, std::memory_order_acq_rel)) error_ = std::move(e);
  }
  // After the crew has joined.
  void rethrow_if_failed() {
    if (failed_.load(std::memory_order_acquire)) std::rethrow_exception(error_);
  }

 private:
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

struct CrewPlan {
  int members = 1;
  int self = 0;                 // the member the caller runs
  const int* pinned = nullptr;  // worker of each member (indexed by member), or null: stealable
  std::int64_t spin_ns = 0;     // how long the caller spins before it parks
};

template <class Member, class OnError>
void run_member(Member& member, int k, OnError& on_error) noexcept {
  try {
    member(k);
  } catch (const TeamCancelled&) {
  } catch (...) {
    on_error(std::current_exception());
  }
}

template <class Member, class OnError>
void run_crew(const CrewPlan& plan, Member& member, OnError& on_error) {
  const int n = plan.members;
  if (n == 1) {
    run_member(member, plan.self, on_error);
    return;
  }
  const bool stealable = plan.pinned == nullptr;
  Completion done(n - 1);
  MemberArray<Padded<std::atomic<bool>>, 8> taken(stealable ? static_cast<std::size_t>(n) : 0);
  MemberArray<Ult<void>, 8> ults(stealable ? static_cast<std::size_t>(n) : 0);

  int spawned = 0;
  try {
    for (int k = 0; k < n; ++k) {
      if (k == plan.self) continue;
      // Everything the helper needs is in its own task block (no chain of
      // pointers through the caller's frame to pull across cores first).
      std::atomic<bool>* retired = stealable ? &taken[k].value : nullptr;
      auto start = [m = &member, e = &on_error, d = &done, retired, k] {
        if (retired && retired->exchange(true, std::memory_order_acq_rel)) return;  // the caller did it
        run_member(*m, k, *e);
        d->arrive();  // the last touch of the crew: the caller may return after it
      };
      if (stealable) {
        ults[k] = spawn(start);
      } else {
        // Detached now, while its task block is still in this core's cache
        // (later, the release would be a miss on a line its worker owns).
        spawn_on(plan.pinned[k], start).detach();
      }
      ++spawned;
    }
  } catch (...) {  // no memory for a ULT: the members not started count as done
    on_error(std::current_exception());
    for (int k = spawned; k < n - 1; ++k) done.arrive();
  }

  run_member(member, plan.self, on_error);

  if (stealable) {
    // Helpers no worker has taken yet: their share is done, retire them. The
    // join runs such a ULT inline (it sees the flag and returns); one that a
    // thief started a moment ago finishes just as fast.
    for (int k = n - 1; k >= 0; --k) {
      if (k == plan.self || !ults[k].joinable()) continue;
      if (!taken[k].value.exchange(true, std::memory_order_acq_rel)) {
        done.arrive();
        ults[k].join();
      }
    }
  }
  done.wait(plan.spin_ns);
  for (std::size_t k = 0; k < ults.size(); ++k)
    if (ults[k].joinable()) ults[k].detach();
}

}  // namespace weft::detail
