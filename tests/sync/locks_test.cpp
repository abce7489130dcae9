// The lock family of weft/sync/locks: every lock from ULTs and plain threads
// mixed (mutual exclusion under random yields, also with a spin budget of
// one so that every waiter parks: no lost wake-ups), the standard wrappers
// and condition_variable_any, FIFO order of the fair locks, unlock by a
// non-holder, and each lock's own claims (array lock with more callers than
// slots, cohort handoffs, MUTEXEE's modes, reader-writer sharing).
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sync_test_util.hpp"
#include "weft/runtime.hpp"
#include "weft/sync/locks/array_lock.hpp"
#include "weft/sync/locks/clh_mutex.hpp"
#include "weft/sync/locks/cohort_lock.hpp"
#include "weft/sync/locks/mcs_lock.hpp"
#include "weft/sync/locks/mrqd_lock.hpp"
#include "weft/sync/locks/mutexee_lock.hpp"
#include "weft/sync/locks/qd_lock.hpp"
#include "weft/sync/locks/rw_lock.hpp"
#include "weft/sync/locks/tas_lock.hpp"
#include "weft/sync/locks/ticket_lock.hpp"
#include "weft/sync/locks/ttas_lock.hpp"
#include "weft/sync/locks/wait_budget.hpp"

namespace {

using namespace weft::sync;
using namespace weft::sync::test;

// Cohort locks with two clusters (even and odd CPUs), so that both clusters
// and the global lock are used on a one-socket machine.
std::vector<int> two_clusters() {
  std::vector<int> c(256);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<int>(i % 2);
  return c;
}
struct TwoClusterHticket : HticketLock {
  TwoClusterHticket() : HticketLock(two_clusters(), 4) {}
};
struct TwoClusterCohortMcs : CohortMcsLock {
  TwoClusterCohortMcs() : CohortMcsLock(two_clusters(), 4) {}
};
struct SmallArrayLock : ArrayLock {
  SmallArrayLock() : ArrayLock(2) {}  // fewer slots than callers
};
struct MutexeeShortFairness : MutexeeLock {
  MutexeeShortFairness() : MutexeeLock(std::chrono::microseconds(200)) {}
};

template <class L>
constexpr bool kFifo = std::is_same_v<L, TicketLock> || std::is_same_v<L, McsLock> || std::is_same_v<L, ClhMutex> ||
                       std::is_same_v<L, ArrayLock>;
// Locks that detect an unlock without a holder in every build (TicketLock
// only in debug builds: it would cost a load of the contended line).
template <class L>
constexpr bool kAlwaysChecksUnlock = !std::is_same_v<L, TicketLock>;

template <class L>
class Locks : public ::testing::Test {};
using AllLocks = ::testing::Types<TasLock, TtasLock, TicketLock, McsLock, ClhMutex, ArrayLock, SmallArrayLock, HticketLock,
                                  TwoClusterHticket, TwoClusterCohortMcs, MutexeeLock, MutexeeShortFairness, RwLock,
                                  QdLock<>, MrqdLock<>>;
TYPED_TEST_SUITE(Locks, AllLocks);

// `per_worker` ULTs on each worker and `threads` plain threads run `iters`
// critical sections each: the `inside` flag proves exclusion, the plain
// counter (TSan watches it) proves the critical sections are ordered.
template <class L>
void exclusion(L& lock, int workers, int per_worker, int threads, int iters, bool yield_inside) {
  weft::Runtime rt(runtime_config(workers));
  std::atomic<int> inside{0};
  std::atomic<int> violations{0};
  long counter = 0;
  auto body = [&](int who, bool ult) {
    Rng rng(static_cast<std::uint64_t>(who) + 1);
    for (int i = 0; i < iters; ++i) {
      lock.lock();
      if (inside.fetch_add(1, std::memory_order_relaxed) != 0) violations.fetch_add(1);
      ++counter;
      local_work(rng, 50);
      if (ult && yield_inside && rng.below(4) == 0) weft::this_ult::yield();
      inside.fetch_sub(1, std::memory_order_relaxed);
      lock.unlock();
      if (ult) between_ops(rng, 100);
      else local_work(rng, 100);
    }
  };
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) ts.emplace_back([&, t] { body(1000 + t, false); });
  run_ults(rt, per_worker, [&](int u) { body(u, true); });
  for (auto& t : ts) t.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(counter, static_cast<long>(workers * per_worker + threads) * iters);
}

TYPED_TEST(Locks, MutualExclusionFromUltsAndThreads) {
  TypeParam lock;
  exclusion(lock, 2, 4, 2, scaled(1500, 100), true);
}

TYPED_TEST(Locks, MutualExclusionOnOneWorkerWithYieldsInside) {
  TypeParam lock;
  exclusion(lock, 1, 6, 0, scaled(800, 60), true);
}

// A spin budget of one pause: every contended waiter parks or sleeps, so a
// lost wake-up would hang the test.
TYPED_TEST(Locks, EveryWaiterParksWithoutLostWakeUps) {
  const WaitBudget saved = wait_budget();
  set_wait_budget(WaitBudget::derive(1e9, 1e-3, 0, 1e-3));  // every spin count is 1
  ASSERT_EQ(wait_budget().thread_spins, 1u);
  TypeParam lock;
  exclusion(lock, 2, 3, 2, scaled(600, 60), true);
  set_wait_budget(saved);
}

TYPED_TEST(Locks, StandardWrappersAndConditionVariableAny) {
  TypeParam a, b;
  {
    std::lock_guard g(a);
    EXPECT_FALSE(a.try_lock());
  }
  {
    std::unique_lock u(a, std::try_to_lock);
    EXPECT_TRUE(u.owns_lock());
  }
  {
    std::scoped_lock both(a, b);
  }
  // Producer/consumer on plain threads.
  std::condition_variable_any cv;
  int items = 0;
  const int n = scaled(200, 20);
  std::thread consumer([&] {
    for (int got = 0; got < n; ++got) {
      std::unique_lock u(a);
      cv.wait(u, [&] { return items > 0; });
      --items;
    }
  });
  for (int i = 0; i < n; ++i) {
    {
      std::lock_guard g(a);
      ++items;
    }
    cv.notify_one();
  }
  consumer.join();
  EXPECT_EQ(items, 0);
}

// One worker, FIFO scheduling: waiters reach the lock's doorway in spawn
// order while a holder keeps it; they must get it in that order.
TYPED_TEST(Locks, FairLocksGrantInArrivalOrder) {
  if constexpr (!kFifo<TypeParam>) {
    GTEST_SKIP() << "not a FIFO lock";
  } else {
    weft::Runtime rt(runtime_config(1));
    TypeParam lock;
    constexpr int k = 6;
    std::atomic<int> arrived{0};
    std::vector<int> arrival, granted;
    auto holder = rt.spawn([&] {
      lock.lock();
      while (arrived.load() < k) weft::this_ult::yield();
      for (int i = 0; i < 20; ++i) weft::this_ult::yield();  // all spin out their budget and park
      lock.unlock();
    });
    std::vector<weft::Ult<void>> waiters;
    for (int w = 0; w < k; ++w)
      waiters.push_back(rt.spawn([&, w] {
        arrival.push_back(w);
        arrived.fetch_add(1);
        lock.lock();  // the doorway follows without a yield in between
        granted.push_back(w);
        lock.unlock();
      }));
    holder.join();
    for (auto& u : waiters) u.join();
    EXPECT_EQ(granted, arrival);
  }
}

TYPED_TEST(Locks, UnlockWithoutHolderIsAnError) {
#ifdef NDEBUG
  if constexpr (!kAlwaysChecksUnlock<TypeParam>) GTEST_SKIP() << "checked in debug builds only";
#endif
  TypeParam lock;
  EXPECT_THROW(lock.unlock(), std::logic_error);
  lock.lock();  // still usable
  lock.unlock();
  EXPECT_TRUE(lock.try_lock());
  lock.unlock();
}

TEST(ArrayLock, RejectsFewerThanTwoSlots) {
  EXPECT_THROW(ArrayLock(1), std::invalid_argument);
  EXPECT_EQ(ArrayLock(3).slots(), 3u);
}

TEST(CohortLock, RejectsBadClustersAndCountsLocalHandoffs) {
  EXPECT_THROW(HticketLock(std::vector<int>{0, -2}), std::invalid_argument);
  EXPECT_THROW(HticketLock(std::vector<int>{0}, 0), std::invalid_argument);
  EXPECT_GE(HticketLock().num_clusters(), 1);  // the topology's sockets
  // One worker, one cluster: while the holder yields inside its critical
  // section the others queue on the local lock, so releases pass the lock
  // within the cluster, at most max_local_handoffs - 1 times in a row.
  weft::Runtime rt(runtime_config(1));
  HticketLock lock(std::vector<int>(256, 0), 3);
  std::uint64_t global_releases = 0;
  run_ults(rt, 4, [&](int) {
    for (int i = 0; i < 50; ++i) {
      lock.lock();
      weft::this_ult::yield();
      lock.unlock();
    }
  });
  global_releases = 200 - lock.local_handoffs();
  EXPECT_GT(lock.local_handoffs(), 0u);
  EXPECT_GE(global_releases, 200u / 3);  // every third release at least goes global
}

// §5.5.1: MUTEXEE switches to mutex mode when more than 30 % of the
// handovers needed a sleep, and back once they do not.
TEST(MutexeeLock, AdaptsItsModeToTheShareOfSleepingHandovers) {
  const WaitBudget saved = wait_budget();
  set_wait_budget(WaitBudget::derive(1e9, 1e-3, 0, 1e-3));  // waiters park at once
  MutexeeLock lock;
  EXPECT_EQ(lock.mode(), MutexeeLock::Mode::spin);
  {
    weft::Runtime rt(runtime_config(1));
    run_ults(rt, 4, [&](int) {
      for (int i = 0; i < 700; ++i) {
        lock.lock();
        for (int y = 0; y < 4; ++y) weft::this_ult::yield();  // the others find it held and park
        lock.unlock();
        weft::this_ult::yield();  // the woken one takes it
      }
    });
  }
  EXPECT_EQ(lock.mode(), MutexeeLock::Mode::mutex);
  for (int i = 0; i < 2 * static_cast<int>(MutexeeLock::kAdaptEvery); ++i) {
    lock.lock();
    lock.unlock();
  }
  EXPECT_EQ(lock.mode(), MutexeeLock::Mode::spin);
  set_wait_budget(saved);
}

// Readers share the lock; a writer's two stores are seen together.
template <class L>
void readers_see_consistent_state(L& lock) {
  weft::Runtime rt(runtime_config(2));
  long a = 0, b = 0;
  std::atomic<int> bad{0};
  const int iters = scaled(2000, 150);
  run_ults(rt, 4, [&](int u) {
    Rng rng(static_cast<std::uint64_t>(u) + 3);
    for (int i = 0; i < iters; ++i) {
      if (rng.below(4) == 0) {
        std::lock_guard g(lock);
        ++a;
        if (rng.below(2)) weft::this_ult::yield();
        --b;
      } else {
        std::shared_lock s(lock);
        if (a + b != 0) bad.fetch_add(1);
        if (rng.below(8) == 0) weft::this_ult::yield();
      }
      between_ops(rng, 50);
    }
  });
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(a, -b);
  EXPECT_GT(a, 0);
}

TEST(RwLock, ReadersShareWritersExclude) {
  RwLock lock;
  lock.lock_shared();
  std::thread([&] {
    EXPECT_TRUE(lock.try_lock_shared());  // a second reader gets in
    EXPECT_FALSE(lock.try_lock());
    lock.unlock_shared();
  }).join();
  lock.unlock_shared();
  EXPECT_THROW(lock.unlock_shared(), std::logic_error);
  readers_see_consistent_state(lock);
}

TEST(MrqdLock, ReadersShareAndSeeConsistentState) {
  MrqdLock<> lock;
  lock.lock_shared();
  std::thread([&] {
    EXPECT_TRUE(lock.try_lock_shared());
    lock.unlock_shared();
  }).join();
  lock.unlock_shared();
  readers_see_consistent_state(lock);
}

}  // namespace
