// Config::hosted_worker and Runtime::host: worker 0 runs on a thread the
// program lends it, and only while it does.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace weft {
namespace {

Config hosted_config(int workers) {
  Config c;
  c.workers = workers;
  c.pin_workers = false;
  c.hosted_worker = true;
  return c;
}

thread_local int this_threads_value = 0;

class HostedWorker : public ::testing::TestWithParam<int> {};

TEST_P(HostedWorker, RunsTheFunctionOnTheCallersThreadAndReturnsItsResult) {
  Runtime rt(hosted_config(GetParam()));
  this_threads_value = 41;
  const pid_t me = gettid();
  const int got = rt.host([me] {
    EXPECT_EQ(this_ult::worker_index(), 0);
    EXPECT_EQ(gettid(), me);
    return ++this_threads_value;  // the caller's thread-local storage
  });
  EXPECT_EQ(got, 42);
  EXPECT_EQ(this_threads_value, 42);
  EXPECT_FALSE(this_ult::inside());  // the thread is plain again
  EXPECT_THROW(rt.host([]() -> int { throw std::runtime_error("from the hosted ULT"); }), std::runtime_error);
}

// Every ULT that ran on worker 0 ran on the lending thread, the others on the
// workers' own threads; all of them finish, with random yields and parks
// between, round after round (worker 0 steals, and is stolen from).
TEST_P(HostedWorker, UltsStartedOnWorkerZeroRunOnTheLendingThread) {
  Runtime rt(hosted_config(GetParam()));
  const pid_t me = gettid();
  std::atomic<int> wrong_thread{0}, ran_on_zero{0};
  for (int round = 0; round < 50; ++round) {
    std::atomic<int> done{0};
    rt.host([&] {
      std::vector<Ult<void>> children;
      for (int i = 0; i < 64; ++i)
        children.push_back(spawn([&, i] {
          std::minstd_rand rng(static_cast<unsigned>(round * 64 + i + 1));
          for (int step = 0; step < 4; ++step) {
            if ((this_ult::worker_index() == 0) != (gettid() == me)) wrong_thread.fetch_add(1);
            test::maybe_yield(rng, 2);
          }
          if (this_ult::worker_index() == 0) ran_on_zero.fetch_add(1);
          done.fetch_add(1);
        }));
      for (auto& c : children) c.join();
    });
    EXPECT_EQ(done.load(), 64);
  }
  EXPECT_EQ(wrong_thread.load(), 0);
  EXPECT_GT(ran_on_zero.load(), 0);
}

// The lending thread's CPU does a worker's share: while the hosted ULT waits
// (here for a ULT that keeps worker 1 busy until the work it spawned is
// done, or five seconds have passed), worker 0 steals and runs that work.
TEST(HostedWorkerSteals, WorkOtherWorkersSpawnedRunsOnTheLendingThread) {
  Runtime rt(hosted_config(2));
  const pid_t me = gettid();
  std::atomic<int> on_lender{0};
  rt.host([&] {
    Ult<void> busy = spawn_on(1, [&] {
      std::vector<Ult<void>> work;
      for (int i = 0; i < 16; ++i)
        work.push_back(spawn([&] {
          if (gettid() == me) on_lender.fetch_add(1);
        }));
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (on_lender.load() < 16 && std::chrono::steady_clock::now() < give_up) {
      }
      for (auto& w : work) w.join();
    });
    busy.join();
  });
  EXPECT_EQ(on_lender.load(), 16);
}

// A ULT pinned to worker 0 while no thread hosts it runs once worker 0 is
// hosted again and gets to it (the hosted function yields or waits), or, at
// the latest, when the runtime shuts down.
TEST(HostedWorkerAway, PinnedWorkWaitsForTheNextHostOrTheShutdown) {
  std::atomic<int> ran{0};
  {
    Runtime rt(hosted_config(2));
    rt.spawn_on(0, [&] { ran.fetch_add(1); }).detach();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(ran.load(), 0);  // worker 0 is away
    rt.host([] { this_ult::yield(); });
    EXPECT_EQ(ran.load(), 1);
    rt.spawn_on(0, [&] { ran.fetch_add(1); }).detach();
    // Plain threads' spawns go to workers that have a thread.
    EXPECT_EQ(rt.run([] { return 7; }), 7);
  }
  EXPECT_EQ(ran.load(), 2);
}

TEST(HostedWorkerErrors, MisuseIsALogicErrorNamingTheProblem) {
  Config two;
  two.workers = 2;
  two.pin_workers = false;
  Runtime plain(two);
  EXPECT_THROW(plain.host([] {}), std::logic_error);

  Config one = hosted_config(1);
  EXPECT_THROW(Runtime{one}, std::invalid_argument);

  Runtime rt(hosted_config(2));
  rt.host([] {});
  EXPECT_THROW(rt.run([&rt] { rt.host([] {}); }), std::logic_error);  // from a ULT
  std::thread other([&rt] {
    try {
      rt.host([] {});
      ADD_FAILURE() << "a second thread hosted worker 0";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("another thread hosts worker 0"), std::string::npos) << e.what();
    }
  });
  other.join();
  rt.host([] {});  // the first thread still may
}

INSTANTIATE_TEST_SUITE_P(Workers, HostedWorker, ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::to_string(info.param) + "workers";
                         });

}  // namespace
}  // namespace weft
