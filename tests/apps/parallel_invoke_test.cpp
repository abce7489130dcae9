// parallel_invoke: every callable runs once; they are concurrent ULTs (they
// may wait for each other, even on one worker); the first exception reaches
// the caller after all have finished; nesting; from a plain thread.

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "parallel_test_support.hpp"

namespace {

class ParallelInvoke : public weft::test::WorkersTest {};
INSTANTIATE_TEST_SUITE_P(Workers, ParallelInvoke, ::testing::Values(1, 2), weft::test::workers_name);

TEST_P(ParallelInvoke, RunsEveryCallableOnce) {
  on_runtime([&] {
    std::atomic<int> a{0}, b{0}, c{0}, d{0};
    weft::parallel_invoke([&] { a++; });
    weft::parallel_invoke([&] { a++; }, [&] { b++; });
    weft::parallel_invoke([&] { a++; }, [&] { b++; }, [&] { c++; }, [&] { d++; });
    EXPECT_EQ(a.load(), 3);
    EXPECT_EQ(b.load(), 2);
    EXPECT_EQ(c.load(), 1);
    EXPECT_EQ(d.load(), 1);
  });
}

TEST_P(ParallelInvoke, CallablesAreConcurrentAndMayWaitForEachOther) {
  on_runtime([&] {
    // Each waits for the other's arrival: needs both running at once, which
    // ULTs give even on one worker.
    weft::Latch both(2);
    weft::parallel_invoke([&] { both.arrive_and_wait(); }, [&] { both.arrive_and_wait(); });
    weft::Latch three(3);
    weft::parallel_invoke([&] { three.arrive_and_wait(); }, [&] { three.arrive_and_wait(); },
                          [&] { three.arrive_and_wait(); });
  });
}

TEST_P(ParallelInvoke, TheFirstExceptionReachesTheCallerAfterAllFinished) {
  on_runtime([&] {
    std::atomic<int> finished{0};
    try {
      weft::parallel_invoke([&] {
        weft::this_ult::sleep_for(std::chrono::milliseconds(2));
        finished++;
      }, [&] { throw std::runtime_error("second"); }, [&] {
        weft::this_ult::yield();
        finished++;
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "second");
    }
    EXPECT_EQ(finished.load(), 2);
  });
}

TEST_P(ParallelInvoke, NestsRecursively) {
  on_runtime([&] {
    std::function<long(int)> fib = [&](int n) -> long {
      if (n < 2) return n;
      long x = 0, y = 0;
      weft::parallel_invoke([&] { x = fib(n - 1); }, [&] { y = fib(n - 2); });
      return x + y;
    };
    EXPECT_EQ(fib(weft::test::kSanitized ? 12 : 18), weft::test::kSanitized ? 144 : 2584);
  });
}

TEST(ParallelInvokeRuntime, WorksFromAPlainThread) {
  std::atomic<int> on_ults{0};
  weft::parallel_invoke([&] { on_ults += weft::this_ult::inside(); }, [&] { on_ults += weft::this_ult::inside(); });
  EXPECT_EQ(on_ults.load(), 2);
}

}  // namespace
