#pragma once
// The state the members of one parallel region share (internal): the team
// barrier, `single` arbitration, the `critical` lock, the worksharing slots
// of Team::for_each, and cancellation (a member threw).
//
// Barrier: one word holds the phase (high 32 bits) and the arrivals of the
// current phase (low 32 bits). An arrival is one fetch_add; the last arrival
// stores the next phase with the count reset; the others spin on the phase
// (yielding to co-located members), then park on a wait queue. A cancelled
// team makes every barrier throw TeamCancelled.
//
// Worksharing slots: Team::for_each with a dynamic, guided or adaptive
// schedule needs state shared by the members for the one loop. Loops are
// numbered in the order a member meets them (all members meet the same
// loops in the same order, as OpenMP requires); loop c uses slot c % kSlots.
// The first member to arrive sets the slot up, the last to leave frees it for
// loop c + kSlots. A member running kSlots loops ahead (nowait) waits.

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>

#include "weft/apps/detail/crew.hpp"
#include "weft/apps/detail/loop_schedules.hpp"
#include "weft/apps/schedule.hpp"
#include "weft/runtime/detail/wait_queue.hpp"
#include "weft/runtime/mutex.hpp"

namespace weft::detail {

// One worksharing loop's shared state.
struct WorkShare {
  // 4c: free for loop c; 4c + 1: being set up for it; 4c + 2: ready for it.
  alignas(kCacheLine) std::atomic<std::uint64_t> state{0};
  std::atomic<int> left{0};  // members done with the loop
  Schedule schedule;         // as the first member passed them (checked by the others)
  std::uint64_t count = 0;
  std::unique_ptr<RangeSlot[]> ranges;  // adaptive: one per member, allocated on first use
  ChunkCounter counter;                 // dynamic, guided
};

class TeamShared {
 public:
  static constexpr int kSlots = 4;

  TeamShared(int members, std::int64_t spin_ns);
  TeamShared(const TeamShared&) = delete;
  TeamShared& operator=(const TeamShared&) = delete;

  int members() const { return members_; }
  std::int64_t spin_ns() const { return spin_ns_; }

  // Throws TeamCancelled if the team is (or gets) cancelled while waiting.
  void barrier();

  bool cancelled() const { return error_.failed(); }
  void throw_if_cancelled() const {
    if (cancelled()) throw TeamCancelled{};
  }
  // A member threw: keep the first exception, cancel the team, wake the
  // members parked in the barrier.
  void fail(std::exception_ptr e);
  void rethrow_if_failed() { error_.rethrow_if_failed(); }

  // The member whose `single` count is `mine` runs the single if it is the
  // first to get there.
  bool claim_single(std::uint64_t mine) {
    return single_next_.compare_exchange_strong(mine, mine + 1, std::memory_order_acq_rel);
  }
  Mutex& critical_mutex() { return critical_; }

  // Loop number `loop` of a member: waits until its slot is set up (setting
  // it up if this member is first) and returns it. Throws
  // std::invalid_argument if the members disagree on the loop (count or
  // schedule), TeamCancelled if the team is cancelled meanwhile.
  WorkShare& enter_loop(std::uint64_t loop, const Schedule& schedule, std::uint64_t count);
  void leave_loop(WorkShare& slot, std::uint64_t loop);

 private:
  void park_in_barrier(std::uint32_t phase);
  void wake_barrier_sleepers();
  void set_up(WorkShare& slot, const Schedule& schedule, std::uint64_t count);

  const int members_;
  const std::int64_t spin_ns_;
  alignas(kCacheLine) std::atomic<std::uint64_t> barrier_word_{0};
  alignas(kCacheLine) std::atomic<bool> barrier_sleepers_{false};
  WaitQueue barrier_queue_;
  alignas(kCacheLine) std::atomic<std::uint64_t> single_next_{0};
  alignas(kCacheLine) ErrorSlot error_;
  Mutex critical_;
  WorkShare slots_[kSlots];
};

}  // namespace weft::detail
