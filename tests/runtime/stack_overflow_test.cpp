// A ULT that overflows its stack is reported as such, naming the ULT, its
// stack size and how to raise it.

#include <gtest/gtest.h>

#include <weft/runtime.hpp>

#include "stack_allocator.hpp"
#include "worker.hpp"

namespace weft::test {
namespace {

__attribute__((noinline)) int recurse(int depth) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  if (depth == 1 << 30) return frame[0];
  return recurse(depth + 1) + frame[0];
}

__attribute__((noinline)) int recurse_a_little(int depth = 0) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  return depth == 64 ? frame[0] : recurse_a_little(depth + 1) + frame[0];
}

// One unpinned worker with stacks of `stack_size`.
Config one_worker(std::size_t stack_size) {
  Config c;
  c.workers = 1;
  c.pin_workers = false;
  c.stack_size = stack_size;
  return c;
}

TEST(StackOverflowDeathTest, IsReportedWithSizeAndRemedy) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        Runtime rt(one_worker(64 * 1024));
        rt.run([] { return recurse(0); });
      },
      "stack overflow in ULT #[0-9]+ on worker 0: it ran into the guard page below its stack "
      "\\(its stack: 131072 bytes, twice Config::stack_size\\).*WEFT_STACK_SIZE");
}

constexpr std::size_t kCanaryTestStack = 64 * 1024 + 4096;  // a size no earlier runtime used: fresh stacks
// Beyond the guard-page budget (or by force, here), a stack has a canary
// instead: an overflow is reported when the ULT next switches away.
// Recurses down to a few hundred bytes past the bottom of the running ULT's
// stack (white box: the scheduler knows where it is), then yields.
__attribute__((noinline)) void overflow_then_yield(const char* bottom) {
  volatile char frame[256];
  frame[0] = 1;
  if (const_cast<const char*>(&frame[0]) > bottom - 256)
    overflow_then_yield(bottom);
  else
    this_ult::yield();
  frame[1] = frame[0];
}

TEST(StackOverflowDeathTest, CanaryStacksReportAnOverflowAtTheNextSwitch) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        detail::StackCache::force_guard_for_testing(static_cast<int>(detail::StackGuard::canary));
        Runtime rt(one_worker(kCanaryTestStack));
        rt.run([] {
          auto other = spawn([] { this_ult::yield(); });  // someone to switch to
          overflow_then_yield(detail::tls_worker->current()->stack_lo);
          other.join();
        });
      },
      "stack overflow in ULT #[0-9]+ on worker 0: (its saved stack pointer lies below its stack|the canary "
      "word at the bottom of its stack was overwritten"
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
      // The sanitizers' switch annotations need kilobytes of stack below the
      // deepest frame, past the unprotected page below the slab's first
      // stack, where a fault is reported as one into a guard page.
      "|it ran into the guard page below its stack"
#endif
      ").*WEFT_STACK_SIZE");
}

// The guard still works once stacks have been recycled and their memory
// given back to the system.
TEST(StackOverflowDeathTest, IsReportedOnARecycledStackToo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        {
          Runtime warm(one_worker(64 * 1024));
          warm.run([] { return recurse_a_little(); });
        }
        release_unused_stacks();
        Runtime rt(one_worker(64 * 1024));
        rt.run([] { return recurse(0); });
      },
      "stack overflow in ULT #[0-9]+ on worker 0: it ran into the guard page below its stack");
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
