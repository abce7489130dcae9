// A ULT that overflows its stack is reported as such, naming the ULT, its
// stack size and how to raise it.

#include <gtest/gtest.h>

#include <weft/runtime.hpp>

namespace weft::test {
namespace {

__attribute__((noinline)) int recurse(int depth) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  if (depth == 1 << 30) return frame[0];
  return recurse(depth + 1) + frame[0];
}

TEST(StackOverflowDeathTest, IsReportedWithSizeAndRemedy) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        Config c;
        c.workers = 1;
        c.pin_workers = false;
        c.stack_size = 64 * 1024;
        Runtime rt(c);
        rt.run([] { return recurse(0); });
      },
      "stack overflow in ULT #[0-9]+ on worker 0: it used all of its 65536-byte stack.*"
      "WEFT_STACK_SIZE");
}

TEST(StackOverflow, DeepButFittingRecursionIsFine) {
  Config c;
  c.workers = 1;
  c.pin_workers = false;
  c.stack_size = 1024 * 1024;
  Runtime rt(c);
  EXPECT_EQ(rt.run([] {
    std::function<int(int)> f = [&](int d) { return d == 0 ? 0 : 1 + f(d - 1); };
    return f(1000);
  }),
            1000);
}

}  // namespace
}  // namespace weft::test
