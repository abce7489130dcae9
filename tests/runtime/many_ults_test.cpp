// Very many blocked ULTs at once: 10^5 parked (10^4 under the sanitizers),
// woken in random order from either worker; the ULT limit and its error;
// stacks given back and reused.

#include <algorithm>
#include <atomic>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace weft::test {
namespace {

#if defined(__SANITIZE_THREAD__)
constexpr long kMany = 6'000;  // ThreadSanitizer tracks at most 8128 threads and fibers at once
#elif defined(__SANITIZE_ADDRESS__)
constexpr long kMany = 10'000;
#else
constexpr long kMany = 100'000;
#endif

class ManyUlts : public WorkersTest {};

// Each ULT parks on its own flag; a waker unparks them in a random order.
TEST_P(ManyUlts, ParkAtOnceAndWakeInRandomOrder) {
  Config c = config();
  c.stack_size = 16 * 1024;
  Runtime rt(c);
  rt.run([] {
    struct Slot {
      std::atomic<UltRef> who{};
      std::atomic<bool> go{false};
    };
    std::vector<Slot> slots(static_cast<std::size_t>(kMany));
    std::atomic<long> parked{0}, done{0};
    std::vector<Ult<long>> ults;
    ults.reserve(slots.size());
    for (long i = 0; i < kMany; ++i)
      ults.push_back(spawn([&, i] {
        Slot& s = slots[static_cast<std::size_t>(i)];
        s.who.store(this_ult::ref());
        parked.fetch_add(1);
        while (!s.go.load(std::memory_order_acquire)) park();
        done.fetch_add(1);
        return i;
      }));
    while (parked.load() < kMany) this_ult::yield();
    EXPECT_EQ(done.load(), 0);

    std::vector<long> order(static_cast<std::size_t>(kMany));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::minstd_rand(42));
    // Half woken from here, half from a ULT that may run on the other worker.
    auto wake = [&](std::size_t from, std::size_t to) {
      for (std::size_t k = from; k < to; ++k) {
        Slot& s = slots[static_cast<std::size_t>(order[k])];
        s.go.store(true, std::memory_order_release);
        unpark(s.who.load());
      }
    };
    auto helper = spawn([&] { wake(order.size() / 2, order.size()); });
    wake(0, order.size() / 2);
    helper.join();

    long sum = 0;
    for (auto& u : ults) sum += u.join();
    EXPECT_EQ(sum, kMany * (kMany - 1) / 2);
    EXPECT_EQ(done.load(), kMany);
  });
}

TEST_P(ManyUlts, LatchReleasesEveryParkedUlt) {
  Config c = config();
  c.stack_size = 16 * 1024;
  Runtime rt(c);
  const long n = kMany / 4;
  rt.run([n] {
    Latch gate(1);
    std::atomic<long> arrived{0}, passed{0};
    std::vector<Ult<void>> ults;
    for (long i = 0; i < n; ++i)
      ults.push_back(spawn([&] {
        arrived.fetch_add(1);
        gate.wait();
        passed.fetch_add(1);
      }));
    while (arrived.load() < n) this_ult::yield();
    gate.count_down();
    for (auto& u : ults) u.join();
    EXPECT_EQ(passed.load(), n);
  });
}

// Past Config::max_ults, spawn throws at the call, says why, and the runtime
// goes on working with the ULTs it has.
TEST_P(ManyUlts, SpawnPastTheLimitThrowsANamedError) {
  Config c = config();
  c.max_ults = 2000;
  Runtime rt(c);
  rt.run([] {
    Latch gate(1);
    std::vector<Ult<void>> ults;
    std::string message;
    try {
      for (int i = 0; i < 10'000; ++i) ults.push_back(spawn([&] { gate.wait(); }));
    } catch (const UltLimitError& e) {
      message = e.what();
    }
    ASSERT_FALSE(message.empty()) << "10000 spawns against a limit of 2000 did not throw";
    // Checked whenever a worker's free list of control blocks runs dry, so it
    // may admit somewhat more than the limit, never ten thousand.
    EXPECT_GE(ults.size(), 1999u);
    EXPECT_LT(ults.size(), 10'000u);
    EXPECT_NE(message.find("live ULTs"), std::string::npos) << message;
    EXPECT_NE(message.find("Config::max_ults"), std::string::npos) << message;
    EXPECT_NE(message.find("WEFT_MAX_ULTS"), std::string::npos) << message;
    EXPECT_NE(message.find("stack"), std::string::npos) << message;
    gate.count_down();
    for (auto& u : ults) u.join();
    EXPECT_EQ(spawn([] { return 7; }).join(), 7);  // below the limit again
  });
}

// A TaskGroup whose spawn throws does not count the ULT it could not start:
// wait() returns once the members that did start are done (it waited forever).
TEST_P(ManyUlts, TaskGroupPastTheLimitStillWaitsOnlyForItsMembers) {
  Config c = config();
  c.max_ults = 2000;
  Runtime rt(c);
  rt.run([] {
    Latch gate(1);
    std::atomic<int> ran{0};
    int started = 0;
    bool threw = false;
    TaskGroup group;
    try {
      for (; started < 10'000; ++started)
        group.run([&] {
          gate.wait();
          ran.fetch_add(1);
        });
    } catch (const UltLimitError&) {
      threw = true;
    }
    ASSERT_TRUE(threw) << "10000 spawns against a limit of 2000 did not throw";
    gate.count_down();
    group.wait();
    EXPECT_EQ(ran.load(), started);
    group.run([&] { ran.fetch_add(1); });  // below the limit again
    group.wait();
    EXPECT_EQ(ran.load(), started + 1);
  });
}

TEST(ManyUltsConfig, NegativeLimitIsAnError) {
  Config c;
  c.workers = 1;
  c.max_ults = -1;
  EXPECT_THROW(Runtime rt(c), std::invalid_argument);
}

// Stacks given back to the system are usable again (their guard pages too:
// the overflow death test runs after a trim in stack_overflow_test.cpp).
TEST_P(ManyUlts, StacksAreReusedAfterTheirMemoryIsGivenBack) {
  Config c = config();
  c.stack_size = 16 * 1024;
  for (int round = 0; round < 3; ++round) {
    {
      Runtime rt(c);
      rt.run([] {
        std::vector<Ult<int>> ults;
        for (int i = 0; i < 2000; ++i)
          ults.push_back(spawn([i] {
            volatile char page[8192];  // touch two pages of the stack
            page[0] = static_cast<char>(i);
            page[8191] = static_cast<char>(i);
            this_ult::yield();
            return page[0] + page[8191];
          }));
        for (int i = 0; i < 2000; ++i) EXPECT_EQ(ults[static_cast<std::size_t>(i)].join(), 2 * static_cast<char>(i));
      });
    }
    release_unused_stacks();
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, ManyUlts, ::testing::Values(1, 2),
                         [](const auto& info) { return std::to_string(info.param) + "w"; });

}  // namespace
}  // namespace weft::test
