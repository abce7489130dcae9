// Spawn, join, detach, futures, exceptions, bulk spawn, calls from outside.

#include <array>
#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace weft::test {
namespace {

using UltTest = WorkersTest;
INSTANTIATE_TEST_SUITE_P(Workers, UltTest, ::testing::Values(1, 2));

TEST_P(UltTest, RunReturnsTheValue) {
  Runtime rt(config());
  EXPECT_EQ(rt.run([] { return 6 * 7; }), 42);
  EXPECT_EQ(rt.run([] { return std::string("weft"); }), "weft");
}

TEST_P(UltTest, JoinReturnsMoveOnlyAndLargeResults) {
  Runtime rt(config());
  auto p = rt.run([] { return std::make_unique<int>(7); });
  EXPECT_EQ(*p, 7);
  struct Big { char bytes[1024]; };
  auto big = rt.run([] { Big b{}; b.bytes[1000] = 'x'; return b; });
  EXPECT_EQ(big.bytes[1000], 'x');
}

TEST_P(UltTest, LargeCapturesWork) {
  Runtime rt(config());
  std::vector<int> v(1000, 1);
  std::array<long, 64> arr{};
  arr[63] = 5;
  EXPECT_EQ(rt.run([v, arr] { return static_cast<long>(v.size()) + arr[63]; }), 1005);
}

long fib(int n) {
  if (n < 2) return n;
  auto child = spawn([n] { return fib(n - 1); });
  long b = fib(n - 2);
  return child.join() + b;
}

TEST_P(UltTest, NestedSpawnJoinComputesFib) {
  Runtime rt(config());
  EXPECT_EQ(rt.run([] { return fib(20); }), 6765);
}

// 10^6 in optimized builds; sanitizers make each switch ~1000x dearer (TSan
// creates a fiber per ULT), so fewer there.
#if defined(WEFT_TSAN) || defined(WEFT_ASAN)
constexpr long kManySpawns = 20'000;
constexpr std::size_t kBulk = 10'000;
#else
constexpr long kManySpawns = 1'000'000;
constexpr std::size_t kBulk = 100'000;
#endif

TEST_P(UltTest, MillionSpawnJoin) {
  Runtime rt(config());
  long sum = rt.run([] {
    long s = 0;
    for (long i = 0; i < kManySpawns; ++i) s += spawn([i] { return i; }).join();
    return s;
  });
  EXPECT_EQ(sum, kManySpawns * (kManySpawns - 1) / 2);
}

TEST_P(UltTest, ExceptionsReachTheJoiner) {
  Runtime rt(config());
  auto u = rt.spawn([]() -> int { throw std::runtime_error("boom"); });
  EXPECT_THROW(
      {
        try {
          u.join();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "boom");
          throw;
        }
      },
      std::runtime_error);
  // From inside a ULT too, for a child joined by its parent.
  bool caught = rt.run([] {
    auto child = spawn([] { throw std::logic_error("inner"); });
    try {
      child.join();
    } catch (const std::logic_error&) {
      return true;
    }
    return false;
  });
  EXPECT_TRUE(caught);
}

TEST_P(UltTest, FuturesDeliverValuesAndExceptions) {
  Runtime rt(config());
  rt.run([] {
    std::vector<Future<int>> futures;
    for (int i = 0; i < 100; ++i) futures.push_back(async([i] { return i * i; }));
    for (int i = 0; i < 100; ++i) EXPECT_EQ(futures[i].get(), i * i);
    auto bad = async([]() -> int { throw std::runtime_error("future"); });
    bad.wait();
    EXPECT_TRUE(bad.ready());
    EXPECT_THROW(bad.get(), std::runtime_error);
  });
  auto f = rt.async([] { return 3; });  // and from a plain thread
  EXPECT_EQ(f.get(), 3);
}

TEST_P(UltTest, FutureGetParksOnlyTheUlt) {
  // One worker: a ULT blocked in get() must not stop the worker from running
  // the ULT that produces the value.
  Runtime rt(config());
  int v = rt.run([] {
    std::atomic<bool> go{false};
    auto producer = spawn_on(0, [&] {
      while (!go.load()) this_ult::yield();
      return 9;
    });
    auto consumer = spawn_on(0, [&] { return async([&] { return 1; }).get(); });
    go = true;
    return producer.join() + consumer.join();
  });
  EXPECT_EQ(v, 10);
}

TEST_P(UltTest, DetachedUltsFinishBeforeShutdown) {
  std::atomic<int> done{0};
  {
    Runtime rt(config());
    for (int i = 0; i < 1000; ++i)
      rt.spawn([&] {
          this_ult::yield();
          done.fetch_add(1);
        }).detach();
  }  // destruction waits for all of them
  EXPECT_EQ(done.load(), 1000);
}

TEST_P(UltTest, ShutdownWithPendingWorkRunsIt) {
  std::atomic<int> done{0};
  {
    Runtime rt(config());
    rt.spawn([&] {
        for (int i = 0; i < 200; ++i)
          spawn([&] {
            this_ult::sleep_for(std::chrono::microseconds(50));
            done.fetch_add(1);
          }).detach();
      }).detach();
    rt.shutdown();
    EXPECT_EQ(done.load(), 200);
    rt.shutdown();  // idempotent
  }
  EXPECT_EQ(done.load(), 200);
}

TEST_P(UltTest, DestroyingAJoinableHandleJoins) {
  Runtime rt(config());
  std::atomic<bool> ran{false};
  { auto u = rt.spawn([&] { ran = true; }); }
  EXPECT_TRUE(ran.load());
}

TEST_P(UltTest, SpawnOnRunsOnTheChosenWorker) {
  Runtime rt(config());
  for (int w = 0; w < rt.num_workers(); ++w) {
    EXPECT_EQ(rt.spawn_on(w, [] { return this_ult::worker_index(); }).join(), w);
    EXPECT_EQ(rt.run([w] { return spawn_on(w, [] { return this_ult::worker_index(); }).join(); }), w);
  }
  EXPECT_THROW(rt.spawn_on(rt.num_workers(), [] {}), std::out_of_range);
  EXPECT_THROW(rt.spawn_on(-2, [] {}), std::out_of_range);
}

TEST_P(UltTest, BulkSpawnWithTaskGroup) {
  Runtime rt(config());
  std::vector<std::atomic<int>> hits(kBulk);
  rt.run([&] {
    TaskGroup group;
    group.run_n(hits.size(), [&](std::size_t i) { hits[i].fetch_add(1); });
    group.wait();
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  EXPECT_THROW(rt.run([] {
    TaskGroup group;
    group.run([] { throw std::runtime_error("group"); });
    group.run([] {});
    group.wait();
  }),
               std::runtime_error);
}

TEST_P(UltTest, ManyExternalThreadsSubmitAndJoin) {
  Runtime rt(config());
  std::vector<std::thread> threads;
  std::atomic<long> total{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) total += rt.spawn([i] { return i; }).join();
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(total.load(), 4L * 1999 * 2000 / 2);
}

TEST(UltOutside, ThisUltOutsideAUlt) {
  EXPECT_FALSE(this_ult::inside());
  EXPECT_EQ(this_ult::worker_index(), -1);
  EXPECT_EQ(this_ult::id(), 0u);
  this_ult::yield();  // falls back to the thread's
}

TEST(UltOutside, SpawnWithoutRuntimeIsAClearError) {
  try {
    spawn([] {});
    FAIL() << "expected std::logic_error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("no weft::Runtime is running"), std::string::npos);
  }
}

// The group's destructor used to wait forever for the ULT it could not spawn.
TEST(UltOutside, TaskGroupWithoutRuntimeThrowsAndDestroysCleanly) {
  bool ran = false;
  {
    TaskGroup group;
    EXPECT_THROW(group.run([&] { ran = true; }), std::logic_error);
    group.wait();
  }
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace weft::test

// ---- join's fast path: a ULT joined before it started runs on its joiner's
// stack (Worker::run_inline), and behaves exactly like one on its own stack.
namespace weft::test {
namespace {

class InlineJoin : public WorkersTest {};
INSTANTIATE_TEST_SUITE_P(Workers, InlineJoin, ::testing::Values(1, 2));

TEST_P(InlineJoin, AChildJoinedBeforeItStartsRunsInline) {
  Config c = config();
  c.workers = 1;  // with two, the other worker may steal the child first
  Runtime rt(c);
  const auto ids = rt.spawn_on(0, [] {
    const std::uint64_t parent = this_ult::id();
    auto child = spawn([] { return this_ult::id(); });
    const std::uint64_t child_id = child.id();
    const std::uint64_t seen = child.join();
    return std::array<std::uint64_t, 3>{parent, child_id, seen};
  }).join();
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_EQ(ids[1], ids[2]) << "this_ult::id() inside the child must be the child's";
  EXPECT_GT(rt.stats().total().inline_runs, 0u);
}

// The inline child parks (its joiner's frames wait below it) and is woken by
// another ULT; both then finish normally.
TEST_P(InlineJoin, AnInlineChildMayParkAndBeWokenFromAnotherUlt) {
  Runtime rt(config());
  rt.run([] {
    for (int round = 0; round < 200; ++round) {
      Latch gate(1);
      std::atomic<bool> child_waiting{false};
      auto opener = spawn([&] {
        while (!child_waiting.load()) this_ult::yield();
        gate.count_down();
      });
      auto child = spawn([&] {
        child_waiting.store(true);
        gate.wait();
        this_ult::yield();
        return round;
      });
      EXPECT_EQ(child.join(), round);
      opener.join();
    }
  });
}

TEST_P(InlineJoin, ExceptionsAndResultsOfInlineChildrenReachTheJoiner) {
  Runtime rt(config());
  rt.run([] {
    auto bad = spawn([]() -> int { throw std::runtime_error("inline"); });
    EXPECT_THROW(bad.join(), std::runtime_error);
    auto big = spawn([] { return std::string(1000, 'x'); });
    EXPECT_EQ(big.join().size(), 1000u);
  });
}

// Nesting deeper than the stack has room for: children then run on stacks of
// their own, so a chain of joins far deeper than one stack holds still works.
int chain(int depth) {
  if (depth == 0) return 0;
  volatile char frame[1024];  // ~1 KiB of stack per level
  frame[0] = 1;
  return spawn([depth] { return chain(depth - 1); }).join() + frame[0];
}

TEST_P(InlineJoin, DeepJoinChainsFallBackToOwnStacks) {
  Config c = config();
  c.stack_size = 64 * 1024;  // ~128 levels fit on one (doubled) stack
  Runtime rt(c);
  EXPECT_EQ(rt.run([] { return chain(2000); }), 2000);
}

}  // namespace
}  // namespace weft::test
