// Fair yield (design: "after yield(), every other ready ULT of that worker
// runs once before the yielder runs again"), which Osci's batching relies on.

#include <cfenv>
#include <map>
#include <vector>

#include <xmmintrin.h>

#include "test_support.hpp"

namespace weft::test {
namespace {

using YieldTest = WorkersTest;
INSTANTIATE_TEST_SUITE_P(Workers, YieldTest, ::testing::Values(1, 2));

// Between two consecutive runs of the same ULT, no other ULT runs twice.
void expect_round_robin(const std::vector<int>& log) {
  std::map<int, std::size_t> last;
  for (std::size_t p = 0; p < log.size(); ++p) {
    auto it = last.find(log[p]);
    if (it != last.end()) {
      std::map<int, int> seen;
      for (std::size_t q = it->second + 1; q < p; ++q)
        ASSERT_LE(++seen[log[q]], 1) << "ULT " << log[q] << " ran twice between two runs of ULT "
                                     << log[p] << " (log positions " << it->second << ".." << p << ")";
    }
    last[log[p]] = p;
  }
}

TEST_P(YieldTest, ManyUltsRunInStrictRoundRobin) {
  Runtime rt(config());
  constexpr int kUlts = 64, kRounds = 50;
  std::vector<int> log;  // all writers are on worker 0
  rt.spawn_on(0, [&] {
      std::vector<Ult<void>> ults;
      for (int i = 0; i < kUlts; ++i)
        ults.push_back(spawn_on(0, [&, i] {
          for (int r = 0; r < kRounds; ++r) {
            log.push_back(i);
            this_ult::yield();
          }
        }));
      for (auto& u : ults) u.join();
    }).join();
  ASSERT_EQ(log.size(), static_cast<std::size_t>(kUlts * kRounds));
  for (std::size_t p = 0; p < log.size(); ++p) ASSERT_EQ(log[p], static_cast<int>(p % kUlts)) << "at " << p;
}

TEST_P(YieldTest, UnevenWorkloadsStayFair) {
  Runtime rt(config());
  constexpr int kUlts = 40;
  std::vector<int> log;
  rt.spawn_on(0, [&] {
      std::vector<Ult<void>> ults;
      std::minstd_rand rng(7);
      for (int i = 0; i < kUlts; ++i) {
        int rounds = 1 + static_cast<int>(rng() % 60);
        ults.push_back(spawn_on(0, [&, i, rounds] {
          for (int r = 0; r < rounds; ++r) {
            log.push_back(i);
            this_ult::yield();
          }
        }));
      }
      for (auto& u : ults) u.join();
    }).join();
  expect_round_robin(log);
}

TEST(YieldUnstarted, YieldRunsEveryUnstartedUltFirst) {
  // One worker, so nobody can steal: a yield must start every ULT spawned
  // before it, stealable ones included, before the yielder continues.
  Config c;
  c.workers = 1;
  c.pin_workers = false;
  Runtime rt(c);
  int started = rt.run([] {
    int count = 0;
    std::vector<Ult<void>> children;
    for (int i = 0; i < 10; ++i)
      children.push_back(spawn([&] {
        ++count;
        this_ult::yield();
      }));
    this_ult::yield();
    int seen = count;
    for (auto& ch : children) ch.join();
    return seen;
  });
  EXPECT_EQ(started, 10);
}

TEST(YieldUnstarted, SpinningOnYieldLetsAnUnstartedUltRun) {
  Config c;
  c.workers = 1;
  c.pin_workers = false;
  Runtime rt(c);
  bool ok = rt.run([] {
    bool flag = false;
    auto setter = spawn([&] { flag = true; });
    while (!flag) this_ult::yield();  // would livelock if new ULTs waited behind yielders
    setter.join();
    return flag;
  });
  EXPECT_TRUE(ok);
}

TEST_P(YieldTest, YieldAloneReturnsAtOnce) {
  Runtime rt(config());
  rt.spawn_on(0, [] {
      for (int i = 0; i < 1000; ++i) this_ult::yield();
    }).join();
  SUCCEED();
}

// The rounding mode as the x87 unit has it (glibc's fegetround reads the x87
// control word) and as SSE has it (MXCSR bits 13-14, in the same encoding).
int x87_rounding() { return std::fegetround(); }
int sse_rounding() { return static_cast<int>(_mm_getcsr() & 0x6000u) >> 3; }

// A switch keeps each ULT's floating-point control words (MXCSR, x87), as
// Boost.Context's does: a ULT that sets a rounding mode and yields does not
// hand it to the next ULT (context_switch_x86_64.S saves and loads them).
TEST(ContextSwitch, EachUltKeepsItsRoundingMode) {
  Config c;
  c.workers = 1;
  c.pin_workers = false;
  Runtime rt(c);
  rt.run([] {
    auto check = [](int mode) {
      EXPECT_EQ(x87_rounding(), mode);
      EXPECT_EQ(sse_rounding(), mode);
    };
    // Both start (and so get their contexts) before either changes its mode.
    auto up = spawn([&] {
      this_ult::yield();
      std::fesetround(FE_UPWARD);
      this_ult::yield();  // the other ULT runs with its own mode meanwhile
      check(FE_UPWARD);
      std::fesetround(FE_TONEAREST);
    });
    auto down = spawn([&] {
      this_ult::yield();
      check(FE_TONEAREST);
      std::fesetround(FE_DOWNWARD);
      this_ult::yield();
      check(FE_DOWNWARD);
      std::fesetround(FE_TONEAREST);
    });
    up.join();
    down.join();
    check(FE_TONEAREST);
  });
}

}  // namespace
}  // namespace weft::test
