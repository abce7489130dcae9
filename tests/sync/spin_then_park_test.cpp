// The waiting helpers of weft/sync: the measured budget, ParkingFlag (one
// waiter, one setter, spin then park) and ParkingLot (many waiters, woken
// one, by key or all), from ULTs and plain threads.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sync_test_util.hpp"
#include "weft/runtime.hpp"
#include "weft/sync/detail/parking_lot.hpp"
#include "weft/sync/detail/spin_then_park.hpp"
#include "weft/sync/locks/wait_budget.hpp"

namespace {

using weft::sync::WaitBudget;
using weft::sync::detail::ParkingFlag;
using weft::sync::detail::ParkingLot;
using namespace weft::sync::test;

TEST(WaitBudget, MeasuredFiguresArePositiveAndDerivedFromThem) {
  const WaitBudget& b = weft::sync::wait_budget();
  EXPECT_GT(b.relax_ns, 0);
  EXPECT_GT(b.coherence_ns, 0);
  EXPECT_GE(b.thread_wake_ns, 1000);  // clamped: a futex turnaround takes microseconds
  const WaitBudget d = WaitBudget::derive(b.relax_ns, b.coherence_ns, b.backoff_quantum_ns, b.thread_wake_ns);
  EXPECT_EQ(d.thread_spins, b.thread_spins);
  EXPECT_EQ(d.ult_spins, b.ult_spins);
  EXPECT_EQ(d.mutexee_lock_spins, b.mutexee_lock_spins);
  EXPECT_FALSE(b.to_string().empty());
  std::printf("%s\n", b.to_string().c_str());
}

TEST(WaitBudget, DeriveFollowsTheFormulas) {
  // relax 10 ns, coherence 100 ns, quantum 50 ns, futex turnaround 7000 ns.
  const WaitBudget b = WaitBudget::derive(10, 100, 50, 7000);
  EXPECT_EQ(b.thread_spins, 700u);          // spin as long as a sleep/wake costs
  EXPECT_EQ(b.ult_spins, 20u);              // two line transfers
  EXPECT_EQ(b.ult_yields, 70u);             // a futex turnaround in 100-ns yield rounds
  EXPECT_EQ(b.backoff_spins, 5u);           // one quantum
  EXPECT_EQ(b.mutexee_lock_spins, 800u);    // 8000/7000 of the turnaround
  EXPECT_EQ(b.mutexee_unlock_spins, 13u);   // 384/308 of the coherence latency, rounded up
  EXPECT_EQ(b.mutexee_lock_spins_min, 26u); // 256/8000 of the lock side
  EXPECT_EQ(b.mutexee_unlock_spins_min, 5u);
}

TEST(WaitBudget, DeriveRejectsBadLatencies) {
  EXPECT_THROW(WaitBudget::derive(0, 100, 50, 7000), std::invalid_argument);
  EXPECT_THROW(WaitBudget::derive(10, -1, 50, 7000), std::invalid_argument);
  EXPECT_THROW(WaitBudget::derive(10, 100, NAN, 7000), std::invalid_argument);
  EXPECT_THROW(WaitBudget::derive(10, 100, 50, INFINITY), std::invalid_argument);
  EXPECT_NO_THROW(WaitBudget::derive(10, 100, 0, 7000));  // one context: no backoff
}

TEST(ParkingFlag, ThreadWaiterSleepsUntilSet) {
  ParkingFlag f;
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    f.wait(1);  // park at once
    done.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(done.load());
  f.set();
  waiter.join();
  EXPECT_TRUE(done.load());
  EXPECT_TRUE(f.is_set());
}

TEST(ParkingFlag, SetBeforeWaitReturnsAtOnceAndResetRearms) {
  ParkingFlag f;
  f.set();
  f.wait();
  f.set();  // a second set() does nothing
  EXPECT_TRUE(f.is_set());
  f.reset();
  EXPECT_FALSE(f.is_set());
  f.set();
  f.wait();
}

TEST(ParkingFlag, WaitUntilTimesOutThenALateSetStillSets) {
  ParkingFlag f;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(f.wait_until(t0 + std::chrono::milliseconds(5)));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(5));
  f.set();
  EXPECT_TRUE(f.is_set());
  EXPECT_TRUE(f.wait_until(std::chrono::steady_clock::now()));
}

// A ULT waiting for a ULT of its own worker must park (spinning would never
// see the set): one worker, waiter first.
TEST(ParkingFlag, UltWaiterParksForASetterOnItsOwnWorker) {
  weft::Runtime rt(runtime_config(1));
  ParkingFlag f;
  int order = 0;
  auto waiter = rt.spawn([&] {
    f.wait();
    EXPECT_EQ(order, 1);
  });
  auto setter = rt.spawn([&] {
    order = 1;
    f.set();
  });
  waiter.join();
  setter.join();
}

// Ping-pong with random timing and random spin budgets (0 = park at once):
// each side waits for the other's flag, so both park often; every wait
// returns (no lost wake-up) and what the setter wrote before set() is
// visible after wait(). ULT<->ULT on two workers, thread<->ULT, and
// ULT<->ULT on one worker.
TEST(ParkingFlag, NoLostWakeUpsInPingPong) {
  const int rounds = scaled(2000, 100);
  for (int mode = 0; mode < 3; ++mode) {
    weft::Runtime rt(runtime_config(mode == 2 ? 1 : 2));
    std::vector<ParkingFlag> ping(static_cast<std::size_t>(rounds)), pong(static_cast<std::size_t>(rounds));
    std::vector<int> payload(static_cast<std::size_t>(rounds), 0);
    auto side = [&](bool first) {
      Rng rng(first ? 1 : 2);
      for (int i = 0; i < rounds; ++i) {
        const auto at = static_cast<std::size_t>(i);
        local_work(rng, 100);
        if (rng.below(8) == 0) weft::this_ult::yield();
        const auto spins = static_cast<std::uint32_t>(rng.below(3) * 40);
        if (first) {
          payload[at] = i + 1;
          ping[at].set();
          pong[at].wait(spins);
        } else {
          ping[at].wait(spins);
          ASSERT_EQ(payload[at], i + 1);
          pong[at].set();
        }
      }
    };
    if (mode == 1) {
      auto a = rt.spawn_on(0, [&] { side(true); });
      std::thread b([&] { side(false); });
      a.join();
      b.join();
    } else {
      auto a = rt.spawn_on(0, [&] { side(true); });
      auto b = rt.spawn_on(mode == 2 ? 0 : 1, [&] { side(false); });
      a.join();
      b.join();
    }
  }
}

TEST(ParkingLot, WakesByKeyOneAndAll) {
  weft::Runtime rt(runtime_config(1));
  ParkingLot lot;
  std::atomic<int> gate{0};  // the waiters' condition: blocked while gate < their key
  std::vector<int> woke;
  std::vector<weft::Ult<void>> ults;
  for (int k = 1; k <= 4; ++k)
    ults.push_back(rt.spawn([&, k] {
      while (gate.load(std::memory_order_seq_cst) < k)
        lot.park_while([&] { return gate.load(std::memory_order_seq_cst) < k; }, static_cast<std::uint64_t>(k));
      woke.push_back(k);
    }));
  rt.run([&] {
    while (!lot.has_parked()) weft::this_ult::yield();
    for (int i = 0; i < 8; ++i) weft::this_ult::yield();  // all four park (one worker, FIFO)
    gate.store(3, std::memory_order_seq_cst);
    EXPECT_TRUE(lot.unpark_key(3));   // only the waiter with key 3
    EXPECT_FALSE(lot.unpark_key(7));  // nobody under 7
    for (int i = 0; i < 4; ++i) weft::this_ult::yield();
    EXPECT_EQ(woke, std::vector<int>{3});
    EXPECT_TRUE(lot.unpark_one());  // key 1 (the longest parked): its gate is open
    for (int i = 0; i < 4; ++i) weft::this_ult::yield();
    EXPECT_EQ(woke, (std::vector<int>{3, 1}));
    gate.store(10, std::memory_order_seq_cst);
    lot.unpark_all();
  });
  for (auto& u : ults) u.join();
  EXPECT_EQ(woke.size(), 4u);
  EXPECT_FALSE(lot.has_parked());
}

TEST(ParkingLot, DoesNotParkWhenTheConditionIsAlreadyFalseAndTimesOut) {
  ParkingLot lot;
  lot.park_while([] { return false; });  // returns at once
  EXPECT_FALSE(lot.has_parked());
  EXPECT_FALSE(lot.park_while_until([] { return true; },
                                     std::chrono::steady_clock::now() + std::chrono::milliseconds(2)));
  EXPECT_FALSE(lot.has_parked());
  EXPECT_FALSE(lot.unpark_one());
}

}  // namespace
