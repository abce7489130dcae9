// Mutex, condition variable, semaphore, latch, barrier, park/unpark and
// sleep_for under stress: many ULTs, random yields, 1 and 2 workers.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace weft::test {
namespace {

using PrimitivesTest = WorkersTest;
INSTANTIATE_TEST_SUITE_P(Workers, PrimitivesTest, ::testing::Values(1, 2));

template <class F>
void run_ults(Runtime& rt, int n, F body) {
  rt.run([&] {
    TaskGroup group;
    for (int i = 0; i < n; ++i) group.run([&body, i] { body(i); });
    group.wait();
  });
}

TEST_P(PrimitivesTest, MutexProtectsACounterUnderRandomYields) {
  Runtime rt(config());
  Mutex m;
  long counter = 0;        // guarded by m
  int inside = 0;          // guarded by m: mutual exclusion check
  constexpr int kUlts = 200, kIters = 500;
  run_ults(rt, kUlts, [&](int id) {
    std::minstd_rand rng(static_cast<unsigned>(id));
    for (int i = 0; i < kIters; ++i) {
      std::lock_guard lock(m);
      ASSERT_EQ(++inside, 1);
      maybe_yield(rng);  // yielding while holding the lock: others must park, not spin forever
      ++counter;
      --inside;
    }
  });
  EXPECT_EQ(counter, long{kUlts} * kIters);
}

TEST_P(PrimitivesTest, MutexWorksFromPlainThreadsAndUltsTogether) {
  Runtime rt(config());
  Mutex m;
  long counter = 0;
  std::thread outsider([&] {
    for (int i = 0; i < 20000; ++i) {
      std::unique_lock lock(m);
      ++counter;
    }
  });
  run_ults(rt, 50, [&](int) {
    for (int i = 0; i < 400; ++i) {
      std::scoped_lock lock(m);
      ++counter;
    }
  });
  outsider.join();
  EXPECT_EQ(counter, 20000 + 50 * 400);
  EXPECT_TRUE(m.try_lock());
  EXPECT_FALSE(m.try_lock());
  m.unlock();
}

// Eight rounds: an unpark that found a token pending used to skip its
// read-modify-write of the park word, so a consumer could take the older
// token, miss its `signaled` flag and park for good (a hang in ~1 of 8
// rounds on 2 workers, park.cpp's unpark()).
TEST_P(PrimitivesTest, ConditionVariableBoundedBuffer) {
  Runtime rt(config());
  for (int round = 0; round < 8; ++round) {
    Mutex m;
    ConditionVariable not_empty, not_full;
    std::deque<int> buffer;
    constexpr std::size_t kCapacity = 4;
    constexpr int kProducers = 20, kPerProducer = 500;
    std::atomic<long> consumed_sum{0};
    std::atomic<int> consumed{0};
    rt.run([&] {
      TaskGroup group;
      for (int p = 0; p < kProducers; ++p)
        group.run([&, p] {
          std::minstd_rand rng(static_cast<unsigned>(p));
          for (int i = 0; i < kPerProducer; ++i) {
            std::unique_lock lock(m);
            not_full.wait(lock, [&] { return buffer.size() < kCapacity; });
            buffer.push_back(i);
            not_empty.notify_one();
            lock.unlock();
            maybe_yield(rng);
          }
        });
      for (int c = 0; c < kProducers; ++c)
        group.run([&] {
          for (int i = 0; i < kPerProducer; ++i) {
            std::unique_lock lock(m);
            not_empty.wait(lock, [&] { return !buffer.empty(); });
            consumed_sum += buffer.front();
            buffer.pop_front();
            ++consumed;
            not_full.notify_one();
          }
        });
      group.wait();
    });
    ASSERT_EQ(consumed.load(), kProducers * kPerProducer) << "round " << round;
    ASSERT_EQ(consumed_sum.load(), long{kProducers} * (kPerProducer - 1) * kPerProducer / 2) << "round " << round;
  }
}

TEST_P(PrimitivesTest, NotifyAllWakesEveryWaiter) {
  Runtime rt(config());
  Mutex m;
  ConditionVariable cv;
  bool go = false;
  std::atomic<int> woke{0};
  rt.run([&] {
    TaskGroup group;
    for (int i = 0; i < 100; ++i)
      group.run([&] {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return go; });
        ++woke;
      });
    this_ult::sleep_for(std::chrono::milliseconds(2));
    {
      std::lock_guard lock(m);
      go = true;
    }
    cv.notify_all();
    group.wait();
  });
  EXPECT_EQ(woke.load(), 100);
}

TEST_P(PrimitivesTest, SemaphoreBoundsConcurrency) {
  Runtime rt(config());
  Semaphore slots(3);
  std::atomic<int> inside{0}, max_inside{0};
  run_ults(rt, 100, [&](int id) {
    std::minstd_rand rng(static_cast<unsigned>(id));
    for (int i = 0; i < 50; ++i) {
      slots.acquire();
      int now = ++inside;
      int seen = max_inside.load();
      while (now > seen && !max_inside.compare_exchange_weak(seen, now)) {
      }
      maybe_yield(rng, 2);
      --inside;
      slots.release();
    }
  });
  EXPECT_LE(max_inside.load(), 3);
  EXPECT_GE(max_inside.load(), 1);
  EXPECT_TRUE(slots.try_acquire());
}

TEST_P(PrimitivesTest, LatchReleasesWaitersOnlyAtZero) {
  Runtime rt(config());
  for (int round = 0; round < 50; ++round) {
    Latch latch(20);
    std::atomic<int> arrived{0};
    std::atomic<bool> early{false};
    run_ults(rt, 40, [&](int id) {
      if (id < 20) {
        ++arrived;
        latch.count_down();
      } else {
        latch.wait();
        if (arrived.load() != 20) early = true;
      }
    });
    EXPECT_FALSE(early.load());
    EXPECT_TRUE(latch.try_wait());
  }
}

TEST_P(PrimitivesTest, BarrierKeepsPhasesInStep) {
  Runtime rt(config());
  constexpr int kParties = 16, kPhases = 200;
  std::atomic<int> completions{0};
  Barrier barrier(kParties, [&] { ++completions; });
  std::vector<std::atomic<int>> at_phase(kPhases);
  std::atomic<bool> out_of_step{false};
  run_ults(rt, kParties, [&](int id) {
    std::minstd_rand rng(static_cast<unsigned>(id));
    for (int p = 0; p < kPhases; ++p) {
      ++at_phase[p];
      maybe_yield(rng);
      barrier.arrive_and_wait();
      if (at_phase[p].load() != kParties) out_of_step = true;  // everyone arrived at phase p
    }
  });
  EXPECT_FALSE(out_of_step.load());
  EXPECT_EQ(completions.load(), kPhases);
}

TEST_P(PrimitivesTest, BarrierArriveAndDrop) {
  Runtime rt(config());
  Barrier barrier(4);
  std::atomic<int> passes{0};
  run_ults(rt, 4, [&](int id) {
    if (id == 0) {
      barrier.arrive_and_drop();
      return;
    }
    for (int p = 0; p < 20; ++p) {
      barrier.arrive_and_wait();
      ++passes;
    }
  });
  EXPECT_EQ(passes.load(), 60);
}

TEST_P(PrimitivesTest, ParkUnparkHasNoLostWakeups) {
  Runtime rt(config());
  constexpr int kPairs = 50, kRounds = 200;
  run_ults(rt, kPairs, [&](int) {
    std::atomic<int> turn{0};
    UltRef waiter = this_ult::ref();
    auto partner = spawn([&] {
      for (int r = 0; r < kRounds; ++r) {
        while (turn.load() != 2 * r + 1) this_ult::yield();
        turn.store(2 * r + 2);
        unpark(waiter);
      }
    });
    for (int r = 0; r < kRounds; ++r) {
      turn.store(2 * r + 1);
      while (turn.load() != 2 * r + 2) park();
    }
    partner.join();
  });
  SUCCEED();
}

TEST_P(PrimitivesTest, UnparkFromAPlainThreadWakesAParkedUlt) {
  Runtime rt(config());
  std::atomic<UltRef*> slot{nullptr};
  std::atomic<bool> released{false};
  UltRef ref;
  auto u = rt.spawn([&] {
    ref = this_ult::ref();
    slot.store(&ref);
    while (!released.load()) park();
    return true;
  });
  while (!slot.load()) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // let it park and the worker sleep
  released = true;
  unpark(*slot.load());
  EXPECT_TRUE(u.join());
}

TEST_P(PrimitivesTest, SleepForWaitsAtLeastTheDuration) {
  Runtime rt(config());
  run_ults(rt, 20, [&](int id) {
    auto d = std::chrono::microseconds(100 * (id + 1));
    auto start = std::chrono::steady_clock::now();
    this_ult::sleep_for(d);
    EXPECT_GE(std::chrono::steady_clock::now() - start, d);
  });
}

TEST_P(PrimitivesTest, SleepingUltsDoNotBlockTheirWorker) {
  Runtime rt(config());
  std::atomic<int> progressed{0};
  rt.spawn_on(0, [&] {
      auto sleeper = spawn_on(0, [] { this_ult::sleep_for(std::chrono::milliseconds(20)); });
      auto runner = spawn_on(0, [&] { progressed = 1; });
      runner.join();
      EXPECT_FALSE(sleeper.done());  // the runner ran while the sleeper slept
      sleeper.join();
    }).join();
  EXPECT_EQ(progressed.load(), 1);
}

TEST_P(PrimitivesTest, ConditionVariableWaitForTimesOutWithoutANotify) {
  Runtime rt(config());
  Mutex m;
  ConditionVariable cv;
  run_ults(rt, 20, [&](int id) {
    const auto d = std::chrono::microseconds(200 * (id + 1));
    std::unique_lock lock(m);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(cv.wait_for(lock, d), std::cv_status::timeout);
    EXPECT_GE(std::chrono::steady_clock::now() - start, d);
    EXPECT_TRUE(lock.owns_lock());
  });
}

TEST_P(PrimitivesTest, ConditionVariableWaitForReturnsOnNotify) {
  Runtime rt(config());
  Mutex m;
  ConditionVariable cv;
  bool ready = false;
  rt.run([&] {
    auto waiter = spawn([&] {
      std::unique_lock lock(m);
      return cv.wait_for(lock, std::chrono::seconds(60), [&] { return ready; });
    });
    this_ult::sleep_for(std::chrono::milliseconds(1));
    {
      std::lock_guard lock(m);
      ready = true;
    }
    cv.notify_one();
    EXPECT_TRUE(waiter.join());  // long before the 60 s deadline
  });
}

TEST_P(PrimitivesTest, ConditionVariableTimedWaitsRaceWithNotifies) {
  // Consumers wait with short deadlines while producers notify at random:
  // every item is consumed exactly once, a timed-out waiter leaves the queue
  // (notify_one is never spent on it), and no timer outlives its waiter.
  Runtime rt(config());
  Mutex m;
  ConditionVariable cv;
  std::deque<int> items;
  constexpr int kProducers = 8, kConsumers = 8, kPerProducer = 300;
  std::atomic<long> sum{0};
  std::atomic<int> consumed{0}, timeouts{0};
  rt.run([&] {
    TaskGroup group;
    for (int p = 0; p < kProducers; ++p)
      group.run([&, p] {
        std::minstd_rand rng(static_cast<unsigned>(p));
        for (int i = 1; i <= kPerProducer; ++i) {
          {
            std::lock_guard lock(m);
            items.push_back(i);
          }
          cv.notify_one();
          if (rng() % 16 == 0) this_ult::sleep_for(std::chrono::microseconds(rng() % 50));
          maybe_yield(rng);
        }
      });
    for (int c = 0; c < kConsumers; ++c)
      group.run([&] {
        std::unique_lock lock(m);
        while (consumed.load() < kProducers * kPerProducer) {
          if (!cv.wait_for(lock, std::chrono::microseconds(30), [&] { return !items.empty(); })) {
            ++timeouts;
            continue;
          }
          sum += items.front();
          items.pop_front();
          ++consumed;
        }
        cv.notify_all();  // the others re-check the count
      });
    group.wait();
  });
  EXPECT_EQ(consumed.load(), kProducers * kPerProducer);
  EXPECT_EQ(sum.load(), static_cast<long>(kProducers) * kPerProducer * (kPerProducer + 1) / 2);
}

TEST_P(PrimitivesTest, ParkUntilTimesOutAndUnparkWinsBeforeTheDeadline) {
  Runtime rt(config());
  rt.run([] {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(park_until(start + std::chrono::milliseconds(2)));
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2));
    UltRef self = this_ult::ref();
    auto waker = spawn([self] { unpark(self); });
    bool unparked = false;
    while (!unparked) unparked = park_until(std::chrono::steady_clock::now() + std::chrono::seconds(60));
    waker.join();
  });
}

TEST(PrimitivesPlainThread, ConditionVariableWaitForOutsideAUlt) {
  Mutex m;
  ConditionVariable cv;
  std::unique_lock lock(m);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(cv.wait_for(lock, std::chrono::milliseconds(3)), std::cv_status::timeout);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(3));
  bool ready = false;
  std::thread notifier([&] {
    std::lock_guard g(m);
    ready = true;
    cv.notify_one();
  });
  EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return ready; }));
  lock.unlock();
  notifier.join();
}

}  // namespace
}  // namespace weft::test
