// The sync layer in a trace (weft/runtime/trace.hpp), read back with
// tests/runtime/check_trace.py: every combining round is a "combine" slice on
// its combiner's track whose "served" arguments add up to the operations
// applied and whose count is the object's stats().rounds; a lock wait that
// outlasted its spin budget and parked is a "parked wait" slice.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "../runtime/trace_checker.hpp"
#include "weft/runtime.hpp"
#include "weft/sync/ccsynch.hpp"
#include "weft/sync/dsmsynch.hpp"
#include "weft/sync/flat_combining.hpp"
#include "weft/sync/hsynch.hpp"
#include "weft/sync/osci.hpp"
#include "weft/sync/locks/mcs_lock.hpp"
#include "weft/sync/locks/ticket_lock.hpp"
#include "weft/sync/locks/wait_budget.hpp"
#include "weft/sync/oyama.hpp"
#include "weft/sync/psim.hpp"

namespace weft {
namespace {

namespace ws = weft::sync;

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int kUltsPerWorker = 3, kOpsPerUlt = 40;
#else
constexpr int kUltsPerWorker = 4, kOpsPerUlt = 150;
#endif

// A counter: apply returns the count before the increment.
struct Counter {
  using Op = std::uint32_t;
  using Result = std::uint64_t;
  std::uint64_t value = 0;
  Result apply(const Op& add) noexcept {
    const std::uint64_t before = value;
    value += add;
    return before;
  }
};

using testing::temp_path;
using testing::unpinned;

template <class Obj>
class CombiningTrace : public ::testing::Test {};
using Traced = ::testing::Types<ws::CCSynch<Counter, ws::YieldWait>, ws::DSMSynch<Counter, ws::YieldWait>,
                                ws::HSynch<Counter, ws::YieldWait>, ws::FlatCombining<Counter, ws::YieldWait>,
                                ws::Oyama<Counter, ws::YieldWait>, ws::Osci<Counter>, ws::PSim<Counter>>;
TYPED_TEST_SUITE(CombiningTrace, Traced);

TYPED_TEST(CombiningTrace, EveryRoundIsACombineSliceServingEveryOperationOnce) {
  constexpr bool kPSim = std::is_same_v<TypeParam, ws::PSim<Counter>>;
  constexpr int kWorkers = 2, kOps = kWorkers * kUltsPerWorker * kOpsPerUlt;
  TypeParam obj{Counter{}};
  const std::string path = temp_path("combining");
  Runtime rt(unpinned(kWorkers));
  trace::start(path);
  rt.run([&] {
    std::vector<Ult<void>> ults;
    for (int u = 0; u < kWorkers * kUltsPerWorker; ++u)
      ults.push_back(spawn_on(u % kWorkers, [&] {
        auto h = obj.handle();
        for (int i = 0; i < kOpsPerUlt; ++i) obj.apply(h, 1u);
      }));
    for (auto& u : ults) u.join();
  });
  ASSERT_TRUE(trace::stop().written);
  ASSERT_EQ(obj.unsafe_object().value, static_cast<std::uint64_t>(kOps));
  const ws::CombiningStats stats = obj.stats();
  const testing::TraceCounts t = testing::check_trace(path);
  ASSERT_EQ(t.status, 0) << t.output;
  ASSERT_EQ(t["dropped"], 0) << t.output;
  EXPECT_EQ(t["scopes_combine.served"], kOps) << t.output;  // each operation served in exactly one round
  EXPECT_EQ(static_cast<std::uint64_t>(kPSim ? t["scopes_combine.installed"] : t["scopes_combine"]), stats.rounds)
      << t.output;
  EXPECT_EQ(t["scopes_combine.by_ult"], t["scopes_combine"]) << t.output;  // each names its combiner
  // The wait policy's outcome: every combiner but PSim's says how many times
  // its caller yielded before it took the role (YieldWait: "yields").
  constexpr bool kWaitsTraced = !kPSim;
  EXPECT_EQ(t["scopes_combine.yields.n"], kWaitsTraced ? t["scopes_combine"] : 0) << t.output;
  EXPECT_EQ(t["scopes_combine.spins.n"], 0) << t.output;
  std::remove(path.c_str());
}

// One worker: the holder sleeps with the lock held, so the waiter's spin
// budget (1 spin, 1 yield here) runs out and it parks; the wait is one
// "parked wait" slice for MCS (one flag per waiter), at least one for a
// ParkingLot lock (ticket).
template <class Lock>
long parked_waits(const char* name) {
  const ws::WaitBudget saved = ws::wait_budget();
  ws::set_wait_budget(ws::WaitBudget::derive(1e9, 1e-3, 0, 1e-3));  // waiters park at once
  Lock lock;
  const std::string path = temp_path(name);
  Runtime rt(unpinned(1));
  trace::start(path);
  rt.run([&] {
    lock.lock();
    auto waiter = spawn([&] {
      lock.lock();
      lock.unlock();
    });
    this_ult::sleep_for(std::chrono::milliseconds(20));  // parks the holder: the waiter runs, spins, parks
    lock.unlock();
    waiter.join();
  });
  EXPECT_TRUE(trace::stop().written);
  ws::set_wait_budget(saved);
  const testing::TraceCounts t = testing::check_trace(path);
  EXPECT_EQ(t.status, 0) << t.output;
  std::remove(path.c_str());
  return t["scopes_parked wait"];
}

TEST(LockTrace, AWaitThatParkedIsAParkedWaitSlice) {
  EXPECT_EQ(parked_waits<ws::McsLock>("mcs"), 1);
  EXPECT_GE(parked_waits<ws::TicketLock>("ticket"), 1);
}

TEST(LockTrace, AnUncontendedLockRecordsNoWait) {
  ws::McsLock lock;
  const std::string path = temp_path("uncontended");
  Runtime rt(unpinned(1));
  trace::start(path);
  rt.run([&] {
    for (int i = 0; i < 100; ++i) {
      lock.lock();
      lock.unlock();
    }
  });
  ASSERT_TRUE(trace::stop().written);
  const testing::TraceCounts t = testing::check_trace(path);
  ASSERT_EQ(t.status, 0) << t.output;
  EXPECT_EQ(t["scopes_parked wait"], 0) << t.output;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace weft
