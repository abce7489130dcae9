// Runtime::stats() adds up: every ULT spawned runs exactly once, steals
// succeed at most as often as they are attempted, parks are matched by
// unparks, the time split covers the workers' lifetime, the start-up times
// follow the constructor's order; WEFT_STATS prints
// the table at shutdown and rejects a bad value naming the variable.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace weft {
namespace {

using test::WorkersTest;

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int kTreeDepth = 8;
#else
constexpr int kTreeDepth = 12;
#endif

// A binary tree of calls with random yields, one half of each on a spawned ULT: 2^depth - 1 ULTs.
void tree(int depth, unsigned seed) {
  std::minstd_rand rng(seed);
  test::maybe_yield(rng);
  if (depth == 0) return;
  auto left = spawn([=] { tree(depth - 1, seed * 3 + 1); });
  test::maybe_yield(rng);
  tree(depth - 1, seed * 3 + 2);
  left.join();
}

TEST_P(WorkersTest, EveryUltSpawnedRunsOnceAndStealsNeverExceedAttempts) {
  Runtime rt(config());
  constexpr int kExternal = 5;
  std::vector<Ult<void>> roots;
  for (int i = 0; i < kExternal; ++i) roots.push_back(rt.spawn([i] { tree(kTreeDepth, static_cast<unsigned>(i)); }));
  for (auto& r : roots) r.join();
  rt.shutdown();  // quiescent: every counter is final
  const Stats s = rt.stats();
  const WorkerStats t = s.total();
  ASSERT_EQ(s.workers.size(), static_cast<std::size_t>(GetParam()));
  const std::uint64_t spawned = std::uint64_t{kExternal} << kTreeDepth;  // each root and 2^depth - 1 children
  EXPECT_EQ(s.external_spawns, static_cast<std::uint64_t>(kExternal));
  EXPECT_EQ(t.spawns + s.external_spawns, spawned);
  EXPECT_EQ(t.ults_run, spawned);
  std::uint64_t steals = 0;
  for (const WorkerStats& w : s.workers) {
    for (int d = 0; d < kStealDistanceClasses; ++d)
      EXPECT_LE(w.steals_by_distance[d], w.steal_attempts_by_distance[d]) << "worker " << w.worker << " class " << d;
    steals += w.steals;
    EXPECT_LE(w.inline_runs, w.ults_run);
  }
  EXPECT_EQ(steals, t.steals);
  if (GetParam() == 1) {
    EXPECT_EQ(t.steal_attempts(), 0u);  // nobody to steal from
  }
}

TEST_P(WorkersTest, ParksAreMatchedByUnparksAndYieldsAreCounted) {
  Runtime rt(config());
  constexpr int kRounds = 200;
  rt.run([] {
    // A ping-pong: each side parks until the other unparks it.
    std::atomic<int> turn{0};
    UltRef first = this_ult::ref();
    auto second = spawn([&, first] {
      for (int i = 0; i < kRounds; ++i) {
        while (turn.load() != 2 * i + 1) this_ult::yield();
        turn.store(2 * i + 2);
        unpark(first);
      }
    });
    for (int i = 0; i < kRounds; ++i) {
      turn.store(2 * i + 1);
      while (turn.load() != 2 * i + 2) park();
    }
    second.join();
  });
  rt.shutdown();
  const WorkerStats t = rt.stats().total();
  EXPECT_GT(t.unparks, 0u);
  EXPECT_LE(t.parks, t.unparks + rt.stats().external_unparks) << "each counted park is ended by a counted unpark";
  EXPECT_GT(t.switches, 0u);
}

TEST(Stats, YieldsOnOneWorkerAreCountedAndTheTimeSplitCoversTheLifetime) {
  Config c;
  c.workers = 1;
  c.pin_workers = false;
  c.idle_spin_us = 0;  // sleeps at once when idle (a long spin could outlast the 5 ms timer)
  Runtime rt(c);
  rt.run([] {
    auto other = spawn([] {
      for (int i = 0; i < 100; ++i) this_ult::yield();
    });
    for (int i = 0; i < 100; ++i) this_ult::yield();
    other.join();
  });
  rt.run([] { this_ult::sleep_for(std::chrono::milliseconds(5)); });  // idle: spins, then sleeps
  rt.shutdown();
  const WorkerStats w = rt.stats().workers[0];
  EXPECT_GE(w.yields, 100u);
  EXPECT_GT(w.sleeps, 0u);
  EXPECT_GT(w.sleeping_ns, 0u);
  EXPECT_GT(w.spinning_ns, 0u);
  EXPECT_GT(w.busy_ns, 0u);
  EXPECT_GE(w.busy_ns + w.spinning_ns + w.sleeping_ns, 5'000'000u) << "the 5 ms sleep lies inside the lifetime";
}

// The start-up times follow the constructor's order, and a worker's loop
// begins only after it was handed to its thread (after every worker was
// built), whatever the machine's speed.
TEST_P(WorkersTest, StartupTimesFollowTheConstructorsOrder) {
  Runtime rt(config());
  std::vector<Ult<int>> tasks;
  for (int w = 0; w < rt.num_workers(); ++w) tasks.push_back(rt.spawn_on(w, [] { return this_ult::worker_index(); }));
  for (auto& t : tasks) t.join();  // every worker's loop has begun
  const Stats s = rt.stats();
  const StartupStats& up = s.startup;
  EXPECT_LE(up.threads_taken_ns, up.workers_built_ns);
  EXPECT_LE(up.workers_built_ns, up.workers_handed_ns);
  EXPECT_LE(up.workers_handed_ns, up.constructor_ns);
  EXPECT_GT(up.constructor_ns, 0u);
  for (const WorkerStats& w : s.workers) {
    EXPECT_GE(w.started_after_ns, up.workers_built_ns) << "worker " << w.worker;
    EXPECT_LE(w.started_after_ns, s.last_worker_started_ns());
  }
  EXPECT_GT(s.last_worker_started_ns(), 0u);
  EXPECT_NE(s.to_string().find("last worker running"), std::string::npos);
}

TEST(Stats, PrintStatsWritesTheTableAtShutdown) {
  Config c;
  c.workers = 2;
  c.pin_workers = false;
  c.print_stats = true;
  ::testing::internal::CaptureStderr();
  {
    Runtime rt(c);
    rt.run([] { return 1; });
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("statistics at shutdown"), std::string::npos) << err;
  EXPECT_NE(err.find("ults_run"), std::string::npos) << err;
  EXPECT_NE(err.find("total"), std::string::npos) << err;
  EXPECT_NE(err.find("busy%"), std::string::npos) << err;
}

TEST(Stats, WeftStatsIsReadFromTheEnvironmentAndABadValueNamesIt) {
  ::setenv("WEFT_STATS", "1", 1);
  EXPECT_TRUE(Config::from_env().print_stats);
  ::setenv("WEFT_STATS", "0", 1);
  EXPECT_FALSE(Config::from_env().print_stats);
  ::setenv("WEFT_STATS", "often", 1);
  try {
    Config::from_env();
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("WEFT_STATS"), std::string::npos) << e.what();
  }
  ::unsetenv("WEFT_STATS");
}

INSTANTIATE_TEST_SUITE_P(OneAndTwoWorkers, WorkersTest, ::testing::Values(1, 2));

}  // namespace
}  // namespace weft
