// The stack allocator on its own (runtime/src/stack_allocator.hpp): LIFO
// reuse, guard pages that fault, the canary fallback, spilling to and
// refilling from the process-wide depot, memory given back.

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <set>
#include <vector>

#include "stack_allocator.hpp"
#include <weft/runtime.hpp>

namespace weft::detail {
namespace {

constexpr std::size_t kUsable = 32 * 1024;

// Resets the forced guard on scope exit.
struct ForcedGuard {
  explicit ForcedGuard(StackGuard g) { StackCache::force_guard_for_testing(static_cast<int>(g)); }
  ~ForcedGuard() { StackCache::force_guard_for_testing(-1); }
};

bool resident(const char* p) {
  const long page = sysconf(_SC_PAGESIZE);
  unsigned char vec = 0;
  auto* aligned = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(p) & ~static_cast<std::uintptr_t>(page - 1));
  EXPECT_EQ(mincore(aligned, static_cast<std::size_t>(page), &vec), 0);
  return vec & 1;
}

TEST(StackCache, ReusesTheMostRecentlyReleasedStackFirst) {
  StackCache cache(kUsable, 16, -1);
  Stack a = cache.acquire();
  Stack b = cache.acquire();
  EXPECT_NE(a.lo, b.lo);
  cache.release(a);
  cache.release(b);
  EXPECT_EQ(cache.acquire().lo, b.lo);
  EXPECT_EQ(cache.acquire().lo, a.lo);
}

TEST(StackCache, StacksAreDisjointAndWritable) {
  StackCache cache(kUsable, 1024, -1);
  std::vector<Stack> stacks;
  std::set<char*> seen;
  for (int i = 0; i < 300; ++i) {  // several slabs
    Stack s = cache.acquire();
    s.lo[0] = 1;
    s.lo[cache.usable_bytes() - 1] = 1;
    EXPECT_TRUE(seen.insert(s.lo).second);
    stacks.push_back(s);
  }
  std::sort(stacks.begin(), stacks.end(), [](Stack x, Stack y) { return x.lo < y.lo; });
  for (std::size_t i = 1; i < stacks.size(); ++i)
    EXPECT_GE(static_cast<std::size_t>(stacks[i].lo - stacks[i - 1].lo), cache.usable_bytes());
  for (Stack s : stacks) cache.release(s);
}

TEST(StackCache, ManyStacksSpillToTheDepotAndOtherCachesTakeThem) {
  std::set<char*> first;
  {
    StackCache a(kUsable, 8, -1);
    std::vector<Stack> held;
    for (int i = 0; i < 200; ++i) held.push_back(a.acquire());
    for (Stack s : held) {
      first.insert(s.lo);
      a.release(s);
    }
    EXPECT_LE(a.cached(), 8 + StackCache::kBatch);  // the rest went to the depot
  }
  StackCache b(kUsable, 8, -1);
  int reused = 0;
  std::vector<Stack> held;
  for (int i = 0; i < 200; ++i) {
    held.push_back(b.acquire());
    reused += first.count(held.back().lo) ? 1 : 0;
  }
  EXPECT_GE(reused, 190) << "a new cache should refill from the depot, not map new slabs";
  for (Stack s : held) b.release(s);
}

TEST(StackCache, TrimGivesTheMemoryBackAndTheStackStaysUsable) {
  std::vector<char*> touched;
  {
    StackCache a(kUsable, 0, -1);
    std::vector<Stack> held;
    for (std::size_t i = 0; i < StackCache::kBatch * 2; ++i) held.push_back(a.acquire());
    for (Stack s : held) {
      s.lo[kUsable - 1] = 42;  // the top of the stack, where a ULT starts
      touched.push_back(s.lo + kUsable - 1);
      a.release(s);
    }
  }
  StackCache::trim_all_depots();
  int still_resident = 0;
  for (char* p : touched) still_resident += resident(p) ? 1 : 0;
  EXPECT_EQ(still_resident, 0);
  StackCache b(kUsable, 0, -1);
  Stack s = b.acquire();
  s.lo[kUsable - 1] = 7;  // faults in a fresh zero page
  EXPECT_EQ(s.lo[kUsable - 1], 7);
  b.release(s);
}

// An idle worker trims with "is work waiting?" as the stop (Worker::idle):
// the trim stops before the next madvise once it says yes, and the stacks it
// did not reach stay in the depot, resident, for a later trim. A size of its
// own, so that no other test's stacks share the depot.
TEST(StackCache, TrimStopsWhenWorkIsWaitingAndKeepsTheRest) {
  constexpr std::size_t usable = 48 * 1024;
  StackCache::trim_all_depots();  // other tests' warm stacks would be trimmed first
  std::set<char*> ours;
  std::vector<char*> tops;
  {
    StackCache a(usable, 0, -1);
    std::vector<Stack> held;
    for (std::size_t i = 0; i < StackCache::kBatch * 2; ++i) held.push_back(a.acquire());
    for (Stack s : held) {
      s.lo[usable - 1] = 42;
      ours.insert(s.lo);
      tops.push_back(s.lo + usable - 1);
      a.release(s);
    }
  }
  auto count_resident = [&] {
    int n = 0;
    for (char* p : tops) n += resident(p) ? 1 : 0;
    return n;
  };
  ASSERT_EQ(count_resident(), static_cast<int>(tops.size()));

  int asked = 0;
  const int let_through = StackCache::kBatch + 5;  // stops inside the second batch
  StackCache::trim_all_depots([&] { return ++asked > let_through; });
  EXPECT_EQ(asked, let_through + 1) << "asked once before each madvise, then once more";
  EXPECT_EQ(count_resident(), static_cast<int>(tops.size()) - let_through);

  StackCache::trim_all_depots();  // the rest was kept for later
  EXPECT_EQ(count_resident(), 0);

  StackCache b(usable, 0, -1);  // and every stack is still handed out
  std::vector<Stack> again;
  std::set<char*> seen;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    again.push_back(b.acquire());
    seen.insert(again.back().lo);
  }
  EXPECT_EQ(seen, ours);
  for (Stack s : again) b.release(s);
}

TEST(StackCache, CanaryStacksCarryAnIntactCanary) {
  ForcedGuard canary(StackGuard::canary);
  StackCache cache(kUsable + 4096, 4, -1);  // a size no other test maps: fresh slabs
  Stack s = cache.acquire();
  EXPECT_EQ(s.guard, StackGuard::canary);
  EXPECT_TRUE(stack_canary_intact(s.lo));
  s.lo[0] = 0x55;
  EXPECT_FALSE(stack_canary_intact(s.lo));
  cache.release(s);
}

// Whether this kernel has guard markers (Linux >= 6.13); else the allocator
// uses mprotect'ed pages.
bool guard_markers_supported() {
  ForcedGuard marker(StackGuard::marker);
  StackCache cache(kUsable + 12288, 1, -1);
  Stack s = cache.acquire();
  cache.release(s);
  return s.guard == StackGuard::marker;
}

using StackCacheDeathTest = ::testing::Test;

void touch_below_a_fresh_stack(StackGuard g, std::size_t usable) {
  StackCache::force_guard_for_testing(static_cast<int>(g));
  StackCache cache(usable, 4, -1);
  Stack s = cache.acquire();
  if (s.guard != g) std::exit(3);
  *(s.lo - 1) = 1;  // the byte just below the stack: must fault
  std::exit(0);
}

// Died of the fault: by SIGSEGV, or (under a sanitizer, which catches the
// signal and reports it) by a failing exit; 0 = no fault, 3 = wrong guard.
bool faulted(int status) {
  if (WIFSIGNALED(status)) return WTERMSIG(status) == SIGSEGV;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3;
#else
  return false;
#endif
}

TEST_F(StackCacheDeathTest, TheGuardMarkerBelowAStackFaults) {
  if (!guard_markers_supported()) GTEST_SKIP() << "no MADV_GUARD_INSTALL on this kernel";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(touch_below_a_fresh_stack(StackGuard::marker, kUsable + 8192), faulted, "");
}

TEST_F(StackCacheDeathTest, TheGuardPageBelowAStackFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(touch_below_a_fresh_stack(StackGuard::page, kUsable + 16384), faulted, "");
}

}  // namespace
}  // namespace weft::detail
