// Parallel regions: team size and membership, where members run, barriers
// under many members with random yields (spinning and parked), single,
// master, critical, worksharing loops (every schedule, nowait chains longer
// than the slot ring), cancellation by an exception, nesting, options, and a
// pinned runtime with a placement policy; on 1 and 2 workers.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <vector>

#include "parallel_test_support.hpp"
#include "weft/apps/detail/team_shared.hpp"
#include "weft/sched/cpuset.hpp"

namespace {

using weft::Team;
using weft::test::all_schedules;
using weft::test::HitCounter;
using weft::test::maybe_yield;
using weft::test::scaled;
using weft::test::spin_for;

weft::ParallelOptions threads(int n) {
  weft::ParallelOptions o;
  o.num_threads = n;
  return o;
}
weft::ParallelOptions placed(int n, const char* policy) {
  weft::ParallelOptions o = threads(n);
  o.placement = policy;
  return o;
}

// Runtimes of 1 and 2 workers, each with the default wait (spin, then park)
// and with no spinning at all (every wait parks at once).
struct RegionParam {
  int workers;
  int idle_spin_us;
};
class ParallelRegion : public ::testing::TestWithParam<RegionParam> {
 protected:
  int workers() const { return GetParam().workers; }
  template <class F>
  void on_runtime(F&& f) {
    weft::Config c = weft::test::unpinned(GetParam().workers);
    c.idle_spin_us = GetParam().idle_spin_us;
    weft::Runtime rt(c);
    rt.run(std::forward<F>(f));
  }
};
INSTANTIATE_TEST_SUITE_P(Workers, ParallelRegion,
                         ::testing::Values(RegionParam{1, 50}, RegionParam{2, 50}, RegionParam{1, 0},
                                           RegionParam{2, 0}),
                         [](const auto& info) {
                           return std::to_string(info.param.workers) + "workers_spin" +
                                  std::to_string(info.param.idle_spin_us) + "us";
                         });

TEST_P(ParallelRegion, ATeamHasOneMemberPerWorkerByDefaultAndMemberZeroIsTheCaller) {
  on_runtime([&] {
    const auto caller = weft::this_ult::id();
    const int here = weft::this_ult::worker_index();
    std::vector<std::atomic<int>> seen(static_cast<std::size_t>(workers()));
    std::vector<int> worker_of(static_cast<std::size_t>(workers()), -1);
    std::atomic<int> bad_size{0};
    weft::parallel([&](Team& t) {
      if (t.num_threads() != workers()) bad_size++;
      seen[static_cast<std::size_t>(t.thread_num())]++;
      worker_of[static_cast<std::size_t>(t.thread_num())] = weft::this_ult::worker_index();
      if (t.thread_num() == 0) EXPECT_EQ(weft::this_ult::id(), caller);
      else EXPECT_NE(weft::this_ult::id(), caller);
    });
    EXPECT_EQ(bad_size.load(), 0);
    for (int k = 0; k < workers(); ++k) {
      EXPECT_EQ(seen[static_cast<std::size_t>(k)].load(), 1) << "member " << k;
      EXPECT_EQ(worker_of[static_cast<std::size_t>(k)], (here + k) % workers()) << "member " << k;
    }
  });
}

TEST_P(ParallelRegion, MoreMembersThanWorkersShareThem) {
  on_runtime([&] {
    const int members = 16;
    std::vector<std::atomic<int>> seen(members);
    weft::parallel(threads(members), [&](Team& t) {
      EXPECT_EQ(t.num_threads(), members);
      seen[static_cast<std::size_t>(t.thread_num())]++;
      t.barrier();
      t.barrier();
    });
    for (auto& s : seen) EXPECT_EQ(s.load(), 1);
  });
}

TEST_P(ParallelRegion, NoMemberPassesABarrierBeforeAllArrive) {
  const int members = weft::test::kSanitized ? 12 : 24;
  const int phases = static_cast<int>(scaled(200, 4));
  on_runtime([&] {
    std::vector<std::atomic<int>> phase_of(static_cast<std::size_t>(members));
    std::atomic<int> early{0}, late{0};
    weft::parallel(threads(members), [&](Team& t) {
      std::minstd_rand rng(static_cast<unsigned>(t.thread_num()) * 7 + 1);
      for (int p = 1; p <= phases; ++p) {
        maybe_yield(rng);
        phase_of[static_cast<std::size_t>(t.thread_num())].store(p);
        t.barrier();
        // Everyone has reached phase p, nobody has gone past p + 1.
        for (auto& other : phase_of) {
          const int q = other.load();
          if (q < p) early++;
          if (q > p + 1) late++;
        }
        maybe_yield(rng, 3);
      }
    });
    EXPECT_EQ(early.load(), 0);
    EXPECT_EQ(late.load(), 0);
  });
}

TEST_P(ParallelRegion, SingleRunsOnceAndEveryoneSeesItsEffect) {
  const int singles = static_cast<int>(scaled(200, 4));
  on_runtime([&] {
    const int members = workers() + 3;
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(2 * singles));
    std::atomic<int> stale{0};
    int value = -1;  // written by the single, read by all after its barrier
    weft::parallel(threads(members), [&](Team& t) {
      std::minstd_rand rng(static_cast<unsigned>(t.thread_num()) + 11);
      for (int s = 0; s < singles; ++s) {
        maybe_yield(rng);
        t.single([&] {
          runs[static_cast<std::size_t>(s)]++;
          value = s;
        });
        if (value != s) stale++;
        t.single([&] { runs[static_cast<std::size_t>(singles + s)]++; }, weft::nowait);
        t.barrier();
      }
    });
    for (auto& r : runs) EXPECT_EQ(r.load(), 1);
    EXPECT_EQ(stale.load(), 0);
  });
}

TEST_P(ParallelRegion, MasterRunsOnMemberZeroOnly) {
  on_runtime([&] {
    std::atomic<int> runs{0}, wrong{0};
    weft::parallel(threads(5), [&](Team& t) {
      t.master([&] {
        runs++;
        if (t.thread_num() != 0) wrong++;
      });
    });
    EXPECT_EQ(runs.load(), 1);
    EXPECT_EQ(wrong.load(), 0);
  });
}

TEST_P(ParallelRegion, CriticalExcludesTheOtherMembers) {
  const int rounds = static_cast<int>(scaled(500, 5));
  on_runtime([&] {
    long counter = 0;  // not atomic: the lock is the only protection
    std::atomic<int> inside{0}, overlap{0};
    weft::parallel(threads(6), [&](Team& t) {
      std::minstd_rand rng(static_cast<unsigned>(t.thread_num()) + 3);
      for (int r = 0; r < rounds; ++r)
        t.critical([&] {
          if (inside.fetch_add(1) != 0) overlap++;
          const long v = counter;
          maybe_yield(rng);  // another member runs meanwhile and must not get in
          counter = v + 1;
          inside.fetch_sub(1);
        });
    });
    EXPECT_EQ(counter, 6L * rounds);
    EXPECT_EQ(overlap.load(), 0);
  });
}

TEST_P(ParallelRegion, ForEachRunsEveryIndexOnceForEverySchedule) {
  on_runtime([&] {
    for (int members : {1, workers(), 5}) {
      for (const auto& [name, s] : all_schedules()) {
        for (long n : {0L, 1L, 3L, 1000L, scaled(100'000, 10)}) {
          HitCounter hits(static_cast<std::uint64_t>(n));
          weft::parallel(threads(members), [&](Team& t) {
            t.for_each(0L, n, [&](long i) { hits.hit(static_cast<std::uint64_t>(i)); }, s);
            // The implicit barrier: every index has run when anyone gets here.
            if (hits.total() != static_cast<std::uint64_t>(n)) ADD_FAILURE() << "passed the loop's barrier early";
          });
          EXPECT_TRUE(hits.every_once()) << name << ", n = " << n << ", " << members << " members";
        }
      }
    }
  });
}

TEST_P(ParallelRegion, NowaitLoopsChainFurtherThanTheSlotRing) {
  const int loops = 3 * weft::detail::TeamShared::kSlots + 1;
  on_runtime([&] {
    std::vector<std::unique_ptr<HitCounter>> hits;
    for (int l = 0; l < loops; ++l) hits.push_back(std::make_unique<HitCounter>(500));
    weft::parallel(threads(4), [&](Team& t) {
      std::minstd_rand rng(static_cast<unsigned>(t.thread_num()) + 5);
      if (t.thread_num() == 1) weft::this_ult::sleep_for(std::chrono::milliseconds(1));  // a laggard
      for (int l = 0; l < loops; ++l) {
        const weft::Schedule s = all_schedules()[static_cast<std::size_t>(l) % all_schedules().size()].schedule;
        t.for_each(0, 500, [&](int i) {
          hits[static_cast<std::size_t>(l)]->hit(static_cast<std::uint64_t>(i));
          if (i % 97 == 0) maybe_yield(rng);
        }, s, weft::nowait);
      }
      t.barrier();
    });
    for (int l = 0; l < loops; ++l) EXPECT_TRUE(hits[static_cast<std::size_t>(l)]->every_once()) << "loop " << l;
  });
}

TEST_P(ParallelRegion, MembersThatDisagreeOnALoopGetAnError) {
  on_runtime([&] {
    try {
      weft::parallel(threads(2), [&](Team& t) {
        t.for_each(0, t.thread_num() == 0 ? 100 : 200, [](int) {}, weft::schedule_dynamic());
      });
      FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("disagree"), std::string::npos) << e.what();
    }
  });
}

// ------------------------------------------------------------------ exceptions

TEST_P(ParallelRegion, AThrowingMemberReleasesTheOthersFromTheirBarrierAndReachesTheCaller) {
  on_runtime([&] {
    for (int thrower : {0, 3}) {
      std::atomic<int> after_barrier{0};
      try {
        weft::parallel(threads(6), [&](Team& t) {
          if (t.thread_num() == thrower) {
            weft::this_ult::sleep_for(std::chrono::microseconds(300));  // the others are parked by now
            throw std::runtime_error("member " + std::to_string(thrower));
          }
          t.barrier();
          after_barrier++;
        });
        FAIL() << "no exception";
      } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "member " + std::to_string(thrower));
      }
      EXPECT_EQ(after_barrier.load(), 0) << "a member passed a barrier the thrower never reached";
    }
  });
}

TEST_P(ParallelRegion, AThrowInAForEachSkipsTheRemainingChunks) {
  const long n = 100'000;
  on_runtime([&] {
    for (const auto& s : {weft::schedule_dynamic(1), weft::schedule_adaptive(), weft::schedule_static(1),
                          weft::schedule_guided(1)}) {
      const bool guided = s.kind == weft::Schedule::Kind::guided;
      // Only the chunks members had claimed before they saw the failure may
      // run (guided's first chunks are a third of the loop and more).
      const long bound = guided ? n : n / 2;
      // Every iteration but the throwing one takes a while, so that members
      // that go on while the thrower's thread is preempted between its throw
      // and the failure's record (a loaded machine: with cheap iterations
      // this failed once in five repeats of the suite under ctest -j2) would
      // need 10 ms (guided) or 100 ms to reach the bound; a member that sees
      // the failure in time runs a few.
      const auto iteration_time = guided ? std::chrono::nanoseconds(100) : std::chrono::microseconds(2);
      std::atomic<long> ran{0};
      std::atomic<bool> first{true};
      EXPECT_THROW(weft::parallel(threads(3), [&](Team& t) {
        t.for_each(0L, n, [&](long) {
          ran++;
          if (first.exchange(false)) throw std::logic_error("the first iteration to run");
          spin_for(iteration_time);
        }, s);
      }), std::logic_error) << weft::to_string(s);
      EXPECT_LT(ran.load(), bound) << weft::to_string(s);
    }
  });
}

TEST_P(ParallelRegion, AThrowInASingleReachesTheCaller) {
  on_runtime([&] {
    EXPECT_THROW(weft::parallel([&](Team& t) {
      t.single([] { throw std::domain_error("single"); });
      t.barrier();
    }), std::domain_error);
  });
}

// ------------------------------------------------------------------ nesting, options

TEST_P(ParallelRegion, RegionsNest) {
  on_runtime([&] {
    std::atomic<int> inner_members{0};
    weft::parallel(threads(3), [&](Team& outer) {
      weft::parallel(threads(4), [&](Team& inner) {
        inner_members++;
        inner.barrier();
        inner.for_each(0, 100, [](int) {}, weft::schedule_dynamic(3));
      });
      outer.barrier();
    });
    EXPECT_EQ(inner_members.load(), 12);
  });
}

TEST_P(ParallelRegion, LoopsNestInsideRegions) {
  on_runtime([&] {
    HitCounter hits(3 * 1000);
    weft::parallel(threads(3), [&](Team& t) {
      weft::parallel_for(0, 1000, [&](int i) { hits.hit(static_cast<std::uint64_t>(t.thread_num() * 1000 + i)); });
    });
    EXPECT_TRUE(hits.every_once());
  });
}

TEST(ParallelRegionOptions, BadOptionsAreErrorsNamingThem) {
  weft::Runtime rt(weft::test::unpinned(2));
  rt.run([] {
    try {
      weft::parallel(threads(-2), [](Team&) {});
      ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("num_threads"), std::string::npos) << e.what();
    }
    try {
      weft::parallel(placed(0, "CLOSEST_PLEASE"), [](Team&) {});
      ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("CLOSEST_PLEASE"), std::string::npos) << e.what();
    }
    try {
      weft::parallel(placed(0, "RR_CORE"), [](Team&) {});  // the workers are not pinned
      ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("not pinned"), std::string::npos) << e.what();
    }
  });
}

TEST(ParallelRegionOptions, APlacementPutsTheMembersOnThePinnedWorkersItChooses) {
  if (weft::sched::allowed_cpus().size() < 2) GTEST_SKIP() << "needs two CPUs to pin two workers";
  weft::Config c;
  c.workers = 2;
  c.pin_workers = true;
  weft::Runtime rt(c);
  rt.run([&] {
    for (const char* policy : {"SEQUENTIAL", "CON_CORE", "RR_CORE", "BALANCE_CORE_HWC", "NONE"}) {
      for (int members : {1, 2, 3}) {
        const std::vector<int> expected =
            weft::detail::place_team(rt.topology(), rt.worker_cpus(),
                                     weft::sched::parse_policy(policy), members, weft::this_ult::worker_index());
        std::vector<int> got(static_cast<std::size_t>(members), -1);
        weft::parallel(placed(members, policy), [&](Team& t) {
          got[static_cast<std::size_t>(t.thread_num())] = weft::this_ult::worker_index();
        });
        EXPECT_EQ(got, expected) << policy << ", " << members << " members";
      }
    }
  });
}

TEST(ParallelRegionRuntime, FromAPlainThreadMemberZeroRunsOnWorkerZero) {
  std::atomic<int> member0_worker{-1}, members{0};
  weft::parallel([&](Team& t) {
    members++;
    if (t.thread_num() == 0) member0_worker = weft::this_ult::worker_index();
  });
  EXPECT_EQ(member0_worker.load(), 0);
  EXPECT_EQ(members.load(), weft::Runtime::current()->num_workers());
}

}  // namespace
