// Parallel regions: the team's shared state (barrier, single, worksharing
// slots, cancellation) and where its members run. See
// detail/team_shared.hpp and detail/team_placement.hpp.
#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <string>

#include "weft/apps/detail/spin_wait.hpp"
#include "weft/apps/parallel_region.hpp"
#include "weft/apps/detail/team_placement.hpp"
#include "weft/apps/detail/team_shared.hpp"
#include "weft/runtime/runtime.hpp"

namespace weft::detail {

std::int64_t wait_spin_ns() {
  Runtime* rt = Runtime::current();
  return rt ? static_cast<std::int64_t>(rt->config().idle_spin_us) * 1000 : 0;
}

// ------------------------------------------------------------------ TeamShared

TeamShared::TeamShared(int members, std::int64_t spin_ns) : members_(members), spin_ns_(spin_ns) {
  for (int s = 0; s < kSlots; ++s) slots_[s].state.store(4 * static_cast<std::uint64_t>(s), std::memory_order_relaxed);
}

void TeamShared::barrier() {
  throw_if_cancelled();
  if (members_ == 1) return;
  const std::uint64_t word = barrier_word_.fetch_add(1, std::memory_order_acq_rel);
  const auto phase = static_cast<std::uint32_t>(word >> 32);
  if ((word & 0xFFFFFFFFu) + 1 == static_cast<std::uint64_t>(members_)) {
    // The last arrival: the next phase, no arrivals yet. seq_cst pairs with a
    // parking member's store of barrier_sleepers_ before its phase check.
    barrier_word_.store(static_cast<std::uint64_t>(phase + 1) << 32, std::memory_order_seq_cst);
    if (barrier_sleepers_.load(std::memory_order_seq_cst)) wake_barrier_sleepers();
    return;
  }
  auto passed = [&] {
    return static_cast<std::uint32_t>(barrier_word_.load(std::memory_order_acquire) >> 32) != phase || cancelled();
  };
  if (!spin_until(passed, spin_ns_)) park_in_barrier(phase);
  throw_if_cancelled();
}

void TeamShared::park_in_barrier(std::uint32_t phase) {
  auto passed = [&] {
    return static_cast<std::uint32_t>(barrier_word_.load(std::memory_order_seq_cst) >> 32) != phase || cancelled();
  };
  while (true) {
    WaitQueue::Waiter me;
    barrier_queue_.lock();
    barrier_queue_.push(&me);
    barrier_sleepers_.store(true, std::memory_order_seq_cst);
    if (passed()) {
      barrier_queue_.remove(&me);
      barrier_queue_.unlock();
      return;
    }
    barrier_queue_.unlock();
    WaitQueue::wait(me);
    if (passed()) return;
    // Woken by the completion of the previous phase (it had not taken the
    // lock yet when this member registered for the next one): wait again.
  }
}

void TeamShared::wake_barrier_sleepers() {
  barrier_queue_.lock();
  WaitQueue::Waiter* list = barrier_queue_.pop_all();
  barrier_sleepers_.store(false, std::memory_order_relaxed);
  barrier_queue_.unlock();
  WaitQueue::signal_all(list);
}

void TeamShared::fail(std::exception_ptr e) {
  error_.record(std::move(e));
  wake_barrier_sleepers();  // under the queue's lock: a member registering now sees the flag
}

// ------------------------------------------------------------------ worksharing slots

void TeamShared::set_up(WorkShare& slot, const Schedule& schedule, std::uint64_t count) {
  slot.schedule = schedule;
  slot.count = count;
  slot.counter.reset();
  if (schedule.kind == Schedule::Kind::adaptive) {
    if (!slot.ranges) slot.ranges = std::make_unique<RangeSlot[]>(static_cast<std::size_t>(members_));
    StealableRanges ranges(0, count, slot.ranges.get(), members_);
    for (int k = 0; k < members_; ++k) {
      const Span b = block_of(ranges.units(), members_, k);
      ranges.assign(k, b.lo, b.hi);
    }
  }
  slot.left.store(0, std::memory_order_relaxed);
}

WorkShare& TeamShared::enter_loop(std::uint64_t loop, const Schedule& schedule, std::uint64_t count) {
  WorkShare& slot = slots_[loop % kSlots];
  const std::uint64_t free_for_loop = 4 * loop, ready = 4 * loop + 2;
  auto settled = [&] {
    const std::uint64_t s = slot.state.load(std::memory_order_acquire);
    return s == ready || s == free_for_loop || cancelled();
  };
  while (true) {
    std::uint64_t s = slot.state.load(std::memory_order_acquire);
    if (s == ready) break;
    if (s == free_for_loop && slot.state.compare_exchange_strong(s, free_for_loop + 1, std::memory_order_acquire)) {
      set_up(slot, schedule, count);
      slot.state.store(ready, std::memory_order_release);
      return slot;
    }
    throw_if_cancelled();
    if (s == free_for_loop + 1) {
      // Another member is setting the slot up: a few stores, no wait.
      sync::cpu_relax();
      this_ult::yield();
      continue;
    }
    // A member still works on loop - kSlots (this one ran ahead with
    // nowait): wait for it like for a barrier, but poll instead of parking.
    if (!spin_until(settled, spin_ns_)) this_ult::sleep_for(std::chrono::microseconds(20));
  }
  if (slot.count != count || !(slot.schedule == schedule))
    throw std::invalid_argument("weft::Team::for_each: the members disagree on loop " + std::to_string(loop) +
                                " of the region: one runs " + std::to_string(slot.count) +
                                " iterations with schedule " + to_string(slot.schedule) + ", another " +
                                std::to_string(count) + " with " + to_string(schedule) +
                                " (every member must meet the same loops, in the same order)");
  return slot;
}

void TeamShared::leave_loop(WorkShare& slot, std::uint64_t loop) {
  if (slot.left.fetch_add(1, std::memory_order_acq_rel) + 1 == members_)
    slot.state.store(4 * (loop + kSlots), std::memory_order_release);
}

// ------------------------------------------------------------------ placement

int team_size(const ParallelOptions& options, int workers) {
  if (options.num_threads < 0)
    throw std::invalid_argument("weft::parallel: ParallelOptions::num_threads = " +
                                std::to_string(options.num_threads) +
                                " is negative (0 means one member per worker)");
  return options.num_threads == 0 ? workers : options.num_threads;
}

std::vector<int> place_team(const sched::Topology& topology, std::span<const int> worker_cpus,
                            sched::Policy policy, int members, int caller_worker) {
  const int workers = static_cast<int>(worker_cpus.size());
  if (members < 1) throw std::invalid_argument("weft::parallel: a team needs at least one member");
  if (caller_worker < 0 || caller_worker >= workers)
    throw std::invalid_argument("weft::parallel: the caller's worker " + std::to_string(caller_worker) +
                                " is not one of the runtime's " + std::to_string(workers));
  std::vector<int> team(static_cast<std::size_t>(members));
  if (policy == sched::Policy::None) {
    for (int k = 0; k < members; ++k) team[k] = rotated_worker(caller_worker, k, workers);
    return team;
  }
  const std::string name(sched::to_string(policy));
  for (int cpu : worker_cpus)
    if (cpu < 0)
      throw std::invalid_argument("weft::parallel: placement " + name +
                                  " chooses cores, but this runtime's workers are not pinned "
                                  "(Config::pin_workers = false or WEFT_PIN=0); use no placement");
  const int m = std::min(members, topology.num_contexts());
  const sched::Placement placed = sched::place(topology, policy, m);
  // Each chosen context's worker: the one pinned there (first pass), else
  // the nearest, the least used of equally near ones (second pass).
  std::vector<int> load(static_cast<std::size_t>(workers), 0);
  std::vector<int> choice(placed.contexts.size(), -1);
  for (std::size_t i = 0; i < placed.contexts.size(); ++i) {
    const int cpu = topology.os_cpu(placed.contexts[i]);
    const auto pinned_there = std::find(worker_cpus.begin(), worker_cpus.end(), cpu);
    if (pinned_there == worker_cpus.end()) continue;
    choice[i] = static_cast<int>(pinned_there - worker_cpus.begin());
    ++load[static_cast<std::size_t>(choice[i])];
  }
  for (std::size_t i = 0; i < placed.contexts.size(); ++i) {
    if (choice[i] >= 0) continue;
    int best = -1;
    double best_latency = std::numeric_limits<double>::infinity();
    for (int w = 0; w < workers; ++w) {
      const int wctx = topology.context_of_os_cpu(worker_cpus[static_cast<std::size_t>(w)]);
      if (wctx < 0) continue;
      const double latency = topology.latency(placed.contexts[i], wctx);
      if (best < 0 || latency < best_latency || (latency == best_latency && load[w] < load[best])) {
        best = w;
        best_latency = latency;
      }
    }
    if (best < 0)
      throw std::invalid_argument("weft::parallel: placement " + name +
                                  ": none of the runtime's worker CPUs is in its topology");
    ++load[static_cast<std::size_t>(best)];
    choice[i] = best;
  }
  // Members wrap round the choices; member 0 is the caller.
  std::vector<int> slots;
  for (int k = 0; k < members; ++k) slots.push_back(choice[k % choice.size()]);
  auto mine = std::find(slots.begin(), slots.end(), caller_worker);
  if (mine == slots.end()) mine = slots.end() - 1;
  slots.erase(mine);
  team[0] = caller_worker;
  std::copy(slots.begin(), slots.end(), team.begin() + 1);
  return team;
}

const std::vector<int>& team_workers(std::string_view placement, int members, int caller_worker) {
  Runtime* rt = Runtime::current();
  struct Entry {
    Runtime* runtime;
    std::string placement;
    int members, caller;
    std::vector<int> workers;
  };
  // Per worker thread (a started ULT does not migrate, and nothing here
  // switches), so no lock; a worker thread ends with its runtime.
  thread_local std::vector<Entry> cache;
  for (const Entry& e : cache)
    if (e.runtime == rt && e.members == members && e.caller == caller_worker && e.placement == placement)
      return e.workers;
  sched::Policy policy = sched::Policy::None;
  try {
    if (!placement.empty()) policy = sched::parse_policy(placement);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("weft::parallel: ParallelOptions::placement: ") + e.what());
  }
  std::vector<int> workers = place_team(rt->topology(), rt->worker_cpus(), policy, members, caller_worker);
  if (cache.size() == 16) cache.erase(cache.begin());
  cache.push_back({rt, std::string(placement), members, caller_worker, std::move(workers)});
  return cache.back().workers;
}

}  // namespace weft::detail
