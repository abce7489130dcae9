// MCTOP-PLACE pin-next / unpin (Pinner) and the placement pool (thesis §7.6).
// Slot semantics run on synthetic machines (no OS pinning); the pinning tests
// run on this machine's topology (the CPUs this process may use) and check
// the affinity with sched_getaffinity.
#include "weft/sched/place_pool.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <barrier>
#include <set>
#include <thread>

#include "weft/sched/cpuset.hpp"

using namespace weft::sched;
using V = std::vector<int>;

namespace {

const Topology& ivy() {  // 2 sockets x 10 cores x 2 SMT; core c = contexts {2c, 2c+1}
  static Topology t = Topology::from_hwloc_synthetic("pack:2 core:10 pu:2");
  return t;
}

const Topology& here() {
  static Topology t = Topology::discover();
  return t;
}

std::set<int> affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  std::set<int> out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.insert(c);
  return out;
}

}  // namespace

TEST(Pinner, SlotsAreHandedOutInPlacementOrderAndReused) {
  Pinner p(ivy(), Policy::ConCoreHwc, 12);
  // CON_CORE_HWC, 12: the 10 cores' first contexts 0,2,...,18, then 1, 3.
  EXPECT_EQ(p.placement().contexts, (V{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 1, 3}));
  EXPECT_EQ(p.capacity(), 12);
  EXPECT_EQ(p.acquire(), 0);
  EXPECT_EQ(p.acquire(), 1);
  EXPECT_EQ(p.acquire(), 2);
  p.release(1);
  EXPECT_EQ(p.in_use(), 2);
  EXPECT_EQ(p.acquire(), 1);  // the lowest free slot first
  for (int i = 3; i < 12; ++i) EXPECT_EQ(p.acquire(), i);
  EXPECT_FALSE(p.acquire());  // all taken
  EXPECT_EQ(p.in_use(), 12);
  p.release(7);
  EXPECT_EQ(p.acquire(), 7);
  EXPECT_THROW(p.release(12), std::invalid_argument);
  p.release(0);
  EXPECT_THROW(p.release(0), std::invalid_argument);  // not taken any more
}

TEST(Pinner, InfoDescribesTheContext) {
  Pinner p(ivy(), Policy::ConCoreHwc, 12);
  // Slot 10 is context 1: core 0's second context, socket 0, the 11th slot of socket 0.
  PinInfo i = p.info(10);
  EXPECT_EQ(i.context, 1);
  EXPECT_EQ(i.os_cpu, 1);
  EXPECT_EQ(i.core, 0);
  EXPECT_EQ(i.context_in_core, 1);
  EXPECT_EQ(i.core_in_socket, 0);
  EXPECT_EQ(i.socket, 0);
  EXPECT_EQ(i.nth_socket, 0);
  EXPECT_EQ(i.slot_in_socket, 10);
  EXPECT_TRUE(i.pinned);
  Pinner rr(ivy(), Policy::RrCore, 4);
  // RR_CORE, 4: 0, 20, 2, 22. Slot 3 = context 22 = core 11 = socket 1's 2nd core.
  EXPECT_EQ(rr.placement().contexts, (V{0, 20, 2, 22}));
  i = rr.info(3);
  EXPECT_EQ(i.context, 22);
  EXPECT_EQ(i.core, 11);
  EXPECT_EQ(i.core_in_socket, 1);
  EXPECT_EQ(i.socket, 1);
  EXPECT_EQ(i.nth_socket, 1);
  EXPECT_EQ(i.slot_in_socket, 1);  // slot 1 (context 20) is socket 1's first
  EXPECT_THROW(rr.info(4), std::out_of_range);
  EXPECT_FALSE(Pinner(ivy(), Policy::None, 3).info(0).pinned);
  EXPECT_THROW({ Pinner bad(ivy(), Policy::ConHwc, 41); }, std::invalid_argument);  // place()'s refusal
}

TEST(Pinner, ConcurrentAcquireNeverHandsOutASlotTwice) {
  Pinner p(ivy(), Policy::RrHwc, 5);
  std::vector<std::atomic<int>> holders(5);
  std::atomic<int> max_in_use{0}, errors{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&] {
      for (int k = 0; k < 20000; ++k) {
        std::optional<int> s = p.acquire();
        if (!s) continue;
        if (holders[*s].fetch_add(1) != 0) errors++;
        int n = p.in_use();
        int m = max_in_use.load();
        while (n > m && !max_in_use.compare_exchange_weak(m, n)) {
        }
        holders[*s].fetch_sub(1);
        p.release(*s);
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_LE(max_in_use.load(), 5);
  EXPECT_EQ(p.in_use(), 0);
}

TEST(Pinner, PinNextPinsTheThreadAndUnpinRestoresIt) {
  const Topology& t = here();
  const std::set<int> before = affinity();
  Pinner p(t, Policy::Sequential, t.num_contexts());
  std::optional<PinInfo> i = p.pin_next();
  ASSERT_TRUE(i);
  EXPECT_EQ(i->slot, 0);
  EXPECT_EQ(i->os_cpu, t.os_cpu(0));
  EXPECT_EQ(affinity(), std::set<int>{t.os_cpu(0)});
  EXPECT_EQ(sched_getcpu(), t.os_cpu(0));
  // Pinning again returns the same context; no second slot is taken.
  EXPECT_EQ(p.pin_next()->slot, 0);
  EXPECT_EQ(p.in_use(), 1);
  EXPECT_EQ(p.current()->slot, 0);
  EXPECT_TRUE(p.unpin());
  EXPECT_EQ(affinity(), before);
  EXPECT_EQ(p.in_use(), 0);
  EXPECT_FALSE(p.current());
  EXPECT_FALSE(p.unpin());  // holds nothing any more
}

TEST(Pinner, EveryThreadGetsItsOwnContext) {
  const Topology& t = here();
  const int n = t.num_contexts();
  Pinner p(t, Policy::Sequential, n);
  const int threads = n + 2;  // two threads find nothing free
  std::vector<int> got(threads, -2);
  std::vector<std::set<int>> aff(threads);
  std::barrier all_pinned(threads);
  std::vector<std::thread> ts;
  for (int k = 0; k < threads; ++k)
    ts.emplace_back([&, k] {
      std::set<int> mine = affinity();
      auto i = p.pin_next();
      got[k] = i ? i->os_cpu : -1;
      aff[k] = affinity();
      all_pinned.arrive_and_wait();  // nobody unpins before everyone tried
      if (i) {
        EXPECT_TRUE(p.unpin());
        EXPECT_EQ(affinity(), mine);
      }
    });
  for (auto& th : ts) th.join();
  std::set<int> cpus;
  int none = 0;
  for (int k = 0; k < threads; ++k) {
    if (got[k] == -1) {
      ++none;
      continue;
    }
    EXPECT_TRUE(cpus.insert(got[k]).second) << "cpu " << got[k] << " given twice";
    EXPECT_EQ(aff[k], std::set<int>{got[k]});
  }
  EXPECT_EQ(none, 2);
  EXPECT_EQ(static_cast<int>(cpus.size()), n);
  EXPECT_EQ(p.in_use(), 0);
}

TEST(Pinner, NoneTakesASlotButLeavesTheAffinity) {
  const Topology& t = here();
  const std::set<int> before = affinity();
  Pinner p(t, Policy::None, 1);
  auto i = p.pin_next();
  ASSERT_TRUE(i);
  EXPECT_FALSE(i->pinned);
  EXPECT_EQ(affinity(), before);
  EXPECT_TRUE(p.unpin());
  EXPECT_EQ(affinity(), before);
}

TEST(PlacementPool, SelectCachesPlacements) {
  PlacementPool pool(ivy());
  EXPECT_THROW(pool.current(), std::logic_error);
  const Placement& a = pool.select(Policy::ConHwc, 4);
  EXPECT_EQ(a.contexts, (V{0, 1, 2, 3}));
  const Placement& b = pool.select(Policy::RrCore, 4);
  EXPECT_EQ(b.contexts, (V{0, 20, 2, 22}));
  EXPECT_EQ(&pool.current(), &b);
  EXPECT_EQ(&pool.select(Policy::ConHwc, 4), &a);  // reused, not rebuilt
  EXPECT_EQ(pool.num_placements(), 2u);
  pool.select(Policy::ConHwc, 4, 1);  // another socket count is another placement
  EXPECT_EQ(pool.num_placements(), 3u);
  EXPECT_THROW(pool.select(Policy::ConHwc, 41), std::invalid_argument);
  EXPECT_EQ(pool.current().policy, Policy::ConHwc);  // unchanged by the failed select
  EXPECT_EQ(pool.num_placements(), 3u);
  PlacementPool selected(ivy(), Policy::BalanceCore, 6);
  EXPECT_EQ(selected.current().policy, Policy::BalanceCore);
}

TEST(PlacementPool, ThreadsFollowTheSelectionBetweenPhases) {
  const Topology& t = here();
  const int n = t.num_contexts();
  PlacementPool pool(t, Policy::Sequential, n);
  // Phase 1: every thread pins (SEQUENTIAL). Phase 2: the selection becomes
  // a one-context placement; at their next pin() every thread gives its
  // context back and one of them gets the single new one.
  std::vector<int> phase1(n, -1), phase2(n, -2);
  std::vector<std::set<int>> aff2(n);
  std::barrier sync(n + 1);
  std::vector<std::thread> ts;
  for (int k = 0; k < n; ++k)
    ts.emplace_back([&, k] {
      const std::set<int> mine = affinity();
      auto a = pool.pin();
      phase1[k] = a ? a->os_cpu : -1;
      EXPECT_EQ(pool.pin()->slot, a->slot);  // same selection: kept
      sync.arrive_and_wait();                // all pinned
      sync.arrive_and_wait();                // main selected phase 2
      auto b = pool.pin();
      phase2[k] = b ? b->os_cpu : -1;
      aff2[k] = affinity();
      if (!b) {
        EXPECT_EQ(aff2[k], mine);  // nothing free: back on its own affinity
      }
      sync.arrive_and_wait();
      EXPECT_EQ(pool.unpin(), b.has_value());
      EXPECT_EQ(affinity(), mine);
      EXPECT_FALSE(pool.unpin());
    });
  sync.arrive_and_wait();
  std::set<int> distinct(phase1.begin(), phase1.end());
  EXPECT_EQ(static_cast<int>(distinct.size()), n);
  EXPECT_EQ(distinct.count(-1), 0u);
  pool.select(Policy::ConHwc, 1);
  sync.arrive_and_wait();
  sync.arrive_and_wait();
  for (auto& th : ts) th.join();
  int pinned = 0;
  for (int k = 0; k < n; ++k)
    if (phase2[k] >= 0) {
      ++pinned;
      EXPECT_EQ(phase2[k], t.os_cpu(0));
      EXPECT_EQ(aff2[k], std::set<int>{t.os_cpu(0)});
    }
  EXPECT_EQ(pinned, 1);
}
