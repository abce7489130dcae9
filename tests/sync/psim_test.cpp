// PSim and PSim-x (wait-free universal construction; Osci paper §4-6):
// semantics with one handle, the handle limit and slot reuse (per-worker
// slot banks), the wait-free bound (every apply returns within two attempts,
// served), PSimStack-x (linearizable histories, exactly-once), and on the
// weft runtime with many ULTs per worker (1 and 2 workers, random yields and
// local work): linearizable histories, exactly-once, and the combining
// degree PSim-x gets from its post-announce yield compared with plain PSim.
// PSimQueue-x (SimQueue) is in psim_queue_test.cpp.
#include "weft/sync/psim.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sync_test_util.hpp"
#include "weft/runtime.hpp"
#include "weft/sync/bounded_stack.hpp"
#include "weft/sync/combining_queue.hpp"
#include "weft/sync/combining_stack.hpp"
#include "weft/sync/fetch_multiply.hpp"
#include "weft/sync/psim_stack.hpp"
#include "weft/testing/linearizability.hpp"

namespace ws = weft::sync;
using namespace weft::sync::test;  // sync_test_util.hpp

namespace {

using FM = ws::FetchMultiply<std::uint64_t>;
using FA = ws::FetchAdd<std::uint64_t>;

static_assert(ws::CombiningObject<ws::PSim<FM>>);
static_assert(ws::CombiningObject<ws::PSim<FA, ws::SpinWait>>);
static_assert(ws::CombiningObject<ws::PSimStack<int>>);
static_assert(ws::CombiningObject<ws::OsciQueue<int>>);
static_assert(ws::CombiningObject<ws::OsciStack<int>>);
// PSim copies its state: heap-owning or shared-memory-writing objects are rejected.
static_assert(ws::PSimState<FM>);
static_assert(ws::PSimState<ws::InlineQueue<std::uint64_t, 16>>);
static_assert(ws::PSimState<ws::InlineStack<int, 16>>);
static_assert(!ws::PSimState<ws::BoundedStack<int>>);
static_assert(!ws::PSimState<ws::BoundedQueue<int>>);
static_assert(!ws::PSimState<ws::detail::EnqueueEnd<int>>);
static_assert(!ws::PSimState<ws::detail::DequeueEnd<int>>);

ws::PSimConfig plain(std::size_t max_handles = 0) {
  return {.max_handles = max_handles, .yield_after_announce = false};
}

void expect_wait_free(const ws::PSimStats& p, std::uint64_t applies) {
  EXPECT_EQ(p.applies, applies);
  EXPECT_LE(p.max_attempts, 2u) << "PSim: a request is served within two attempts";
  EXPECT_EQ(p.unserved_after_two, 0u) << "returned after two failed attempts with the request not served";
  EXPECT_EQ(p.own_sc + p.served_by_other + p.after_two_failures, applies);
  EXPECT_LE(p.sc_attempts, 2 * applies);
  EXPECT_LE(p.attempts, 2 * applies);
}

}  // namespace

// ------------------------------------------------------------ one handle

TEST(PSim, SingleHandleSemantics) {
  for (bool x : {false, true}) {
    ws::PSim<FM> obj(FM{3}, ws::PSimConfig{.max_handles = 4, .yield_after_announce = x});
    EXPECT_EQ(obj.yields_after_announce(), x);
    auto h = obj.handle();
    EXPECT_EQ(obj.apply(h, 5), 3u);
    EXPECT_EQ(obj.apply(h, 7), 15u);
    EXPECT_EQ(obj.apply(h, 1), 105u);
    EXPECT_EQ(obj.unsafe_object().value, 105u);
    const ws::CombiningStats s = obj.stats();
    EXPECT_EQ(s.requests, 3u);
    EXPECT_EQ(s.rounds, 3u);  // alone: one SC per request
    const ws::PSimStats p = obj.psim_stats();
    expect_wait_free(p, 3);
    EXPECT_EQ(p.own_sc, 3u);
    EXPECT_EQ(p.max_attempts, 1u);
  }
}

TEST(PSim, HandleLimitAndSlotReuse) {
  ws::PSim<FA> obj(FA{}, plain(3));
  EXPECT_EQ(obj.max_handles(), 3u);
  auto a = obj.handle();
  auto b = obj.handle();
  auto c = obj.handle();
  EXPECT_EQ(a.slot(), 0u);
  EXPECT_EQ(b.slot(), 1u);
  EXPECT_EQ(c.slot(), 2u);
  try {
    [[maybe_unused]] auto d = obj.handle();
    FAIL() << "a 4th handle with max_handles = 3";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("max_handles = 3"), std::string::npos) << e.what();
  }
  EXPECT_EQ(obj.apply(a, 1), 0u);
  EXPECT_EQ(obj.apply(b, 2), 1u);
  {
    auto moved = std::move(b);  // the moved-from handle gives nothing back
    EXPECT_EQ(obj.apply(moved, 4), 3u);
  }                             // slot 1 is free again
  auto d = obj.handle();
  EXPECT_EQ(d.slot(), 1u);
  // The recycled slot keeps its toggle bit: the new handle's requests work.
  EXPECT_EQ(obj.apply(d, 8), 7u);
  EXPECT_EQ(obj.apply(c, 16), 15u);
  EXPECT_EQ(obj.apply(d, 0), 31u);
  expect_wait_free(obj.psim_stats(), 6);
}

TEST(PSimStack, SingleHandleLifoAndCapacity) {
  ws::PSimStack<int, 4> s(2);
  expect_single_handle_lifo(s);
}

// ------------------------------------------------------------ std::threads

// Four threads on two cores (plain PSim never waits, so oversubscription
// cannot stall anyone), slots spread over three toggle words (> 128 slots):
// every request applied exactly once, and the wait-free bound holds.
TEST(PSim, WaitFreeBoundAndExactlyOnceAcrossToggleWords) {
  ws::PSim<FA, ws::SpinWait> obj(FA{}, plain(200));
  // Occupy slots 0..129, then free 5 and 64: the workers get 5, 64, 130, 131.
  std::vector<ws::PSim<FA, ws::SpinWait>::Handle> filler;
  for (int i = 0; i < 130; ++i) filler.push_back(obj.handle());
  filler[5] = {};
  filler[64] = {};
  constexpr int kThreads = 4;
  const int ops = scaled(50000, 2000);
  std::vector<std::vector<Applied>> got(kThreads);
  std::vector<std::size_t> slots(kThreads);
  std::vector<ws::PSim<FA, ws::SpinWait>::Handle> hs;
  for (int t = 0; t < kThreads; ++t) {
    hs.push_back(obj.handle());
    slots[static_cast<std::size_t>(t)] = hs.back().slot();
  }
  EXPECT_EQ(slots, (std::vector<std::size_t>{5, 64, 130, 131}));
  run_threads(kThreads, [&](int t) {
    auto& h = hs[static_cast<std::size_t>(t)];
    auto& mine = got[static_cast<std::size_t>(t)];
    mine.reserve(static_cast<std::size_t>(ops));
    Rng rng(static_cast<std::uint64_t>(t + 11));
    for (int i = 0; i < ops; ++i) {
      const std::uint64_t inc = 1 + rng.below(100);
      mine.push_back({obj.apply(h, inc), inc});
      local_work(rng, 64);
    }
  });
  const std::uint64_t final_value = obj.apply(hs[0], 0);
  expect_exact_chain(concat(got), final_value);
  const std::uint64_t applies = std::uint64_t(kThreads) * std::uint64_t(ops) + 1;
  const ws::PSimStats p = obj.psim_stats();
  expect_wait_free(p, applies);
  EXPECT_EQ(obj.stats().requests, applies);
  ::testing::Test::RecordProperty("after_two_failures", std::to_string(p.after_two_failures));
  ::testing::Test::RecordProperty("served_by_other", std::to_string(p.served_by_other));
}

TEST(PSimStack, HistoriesAreLinearizable) {
  container_histories<ws::PSimStack<int, 8>>(
      OnThreads{3}, {.rounds = scaled(200, 20), .ops = 60, .seed_step = 13, .value_scale = 1000},
      [](Rng& rng) { local_work(rng, 256); });
}

TEST(PSimStack, ExactlyOnce) {
  constexpr int kThreads = 4;
  const int per = scaled(20000, 1000);
  ws::PSimStack<int, 256> s(256);
  std::vector<std::vector<int>> got(kThreads);
  run_threads(kThreads, [&](int t) {
    auto h = s.handle();
    auto& mine = got[static_cast<std::size_t>(t)];
    for (int i = 0; i < per; ++i) {
      ASSERT_TRUE(s.push(h, t * per + i));  // at most 4 x 2 elements at once
      auto v = s.pop(h);
      ASSERT_TRUE(v.has_value());  // we pushed first
      mine.push_back(*v);
    }
  });
  auto h = s.handle();
  EXPECT_FALSE(s.pop(h).has_value());
  expect_each_once(concat(got), static_cast<std::size_t>(kThreads * per));
}

// ------------------------------------------------------------ weft runtime

namespace {

template <class Obj>
void runtime_fetch_multiply_histories(int workers, int per_worker, int ops, int histories, ws::PSimConfig cfg) {
  weft::Runtime rt(runtime_config(workers));
  const int n = workers * per_worker;
  for (int round = 0; round < histories; ++round) {
    Obj obj(FM{}, cfg);
    const auto hist = record_history(
        obj, OnUlts{rt, per_worker}, ops, static_cast<std::uint64_t>(round * 1009 + 1),
        [](Rng& rng, int, int) -> std::uint64_t { return rng.next() | 1u; },
        [](Rng& rng) { between_ops(rng, 512); });
    ASSERT_TRUE(linearizable(ws::FetchMultiplyModel<std::uint64_t>{}, hist)) << "history " << round;
    ASSERT_EQ(obj.stats().requests, static_cast<std::uint64_t>(n * ops));
    expect_wait_free(obj.psim_stats(), static_cast<std::uint64_t>(n * ops));
  }
}

template <class Obj>
void runtime_exactly_once(int workers, int per_worker, int ops, ws::PSimConfig cfg) {
  weft::Runtime rt(runtime_config(workers));
  const int n = workers * per_worker;
  Obj obj(FA{}, cfg);
  std::vector<Applied> all =
      ult_fetch_adds(rt, obj, per_worker, ops, [](Rng& rng) { between_ops(rng, 128); });
  ASSERT_EQ(all.size(), static_cast<std::size_t>(n * ops));
  auto h = obj.handle();
  const std::uint64_t final_value = obj.apply(h, 0);
  expect_exact_chain(std::move(all), final_value);
  const ws::CombiningStats s = obj.stats();
  EXPECT_EQ(s.requests, static_cast<std::uint64_t>(n * ops) + 1);
  expect_wait_free(obj.psim_stats(), static_cast<std::uint64_t>(n * ops) + 1);
  ::testing::Test::RecordProperty("combining_degree", std::to_string(s.degree()));
}

using PSimFM = ws::PSim<FM>;
using PSimFA = ws::PSim<FA>;
const ws::PSimConfig kPSimX{};  // yield after announcing

}  // namespace

TEST(PSimRuntime, PSimXHistoriesLinearizable1Worker16Ults) {
  runtime_fetch_multiply_histories<PSimFM>(1, 16, 30, scaled(40, 5), kPSimX);
}
TEST(PSimRuntime, PSimXHistoriesLinearizable2Workers16Ults) {
  runtime_fetch_multiply_histories<PSimFM>(2, 16, 30, scaled(40, 5), kPSimX);
}
TEST(PSimRuntime, PlainPSimHistoriesLinearizable2Workers8Ults) {
  runtime_fetch_multiply_histories<PSimFM>(2, 8, 30, scaled(40, 5), plain());
}
TEST(PSimRuntime, PSimXExactlyOnce2Workers32Ults) {
  runtime_exactly_once<PSimFA>(2, 32, scaled(3000, 300), kPSimX);
}
TEST(PSimRuntime, PSimXExactlyOnce1Worker32Ults) {
  runtime_exactly_once<PSimFA>(1, 32, scaled(3000, 300), kPSimX);
}
TEST(PSimRuntime, PlainPSimExactlyOnce2Workers16Ults) {
  runtime_exactly_once<PSimFA>(2, 16, scaled(3000, 300), plain());
}

TEST(PSimRuntime, PSimStackXHistoriesLinearizable) {
  weft::Runtime rt(runtime_config(2));
  container_histories<ws::PSimStack<int, 8>>(
      OnUlts{rt, 3}, {.rounds = scaled(60, 8), .ops = 40, .seed_step = 19, .value_scale = 1000},
      [](Rng& rng) { between_ops(rng, 256); });
}

// A handle made on worker w takes a slot in one of w's banks of 64 (one
// Toggles word and cache line each): bank w, then w + workers, ...; plain
// threads take the lowest free slot.
TEST(PSimRuntime, HandlesOfAWorkerShareItsToggleWords) {
  weft::Runtime rt(runtime_config(2));
  PSimFA obj(FA{}, ws::PSimConfig{.max_handles = 256});
  std::vector<PSimFA::Handle> on0, on1;
  rt.spawn_on(0, [&] {
      for (int i = 0; i < 65; ++i) on0.push_back(obj.handle());
    }).join();
  rt.spawn_on(1, [&] {
      for (int i = 0; i < 3; ++i) on1.push_back(obj.handle());
    }).join();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(on0[static_cast<std::size_t>(i)].slot(), static_cast<std::size_t>(i));
  EXPECT_EQ(on0[64].slot(), 128u) << "worker 0's second bank is bank 2 (bank 1 is worker 1's)";
  for (int i = 0; i < 3; ++i) EXPECT_EQ(on1[static_cast<std::size_t>(i)].slot(), 64u + static_cast<std::size_t>(i));
  EXPECT_EQ(obj.handle().slot(), 67u) << "a plain thread takes the lowest free slot";
  // The handles work from any worker (a slot is a layout hint, not a binding).
  EXPECT_EQ(rt.spawn_on(1, [&] { return obj.apply(on0[0], 5); }).join(), 0u);
  EXPECT_EQ(rt.spawn_on(0, [&] { return obj.apply(on1[2], 1); }).join(), 5u);
  EXPECT_EQ(obj.apply(on0[64], 0), 6u);
}

TEST(PSimRuntime, PSimXCombiningDegreeWithSixteenUltsPerWorker) {
  constexpr int k = 16;
  const int ops = scaled(2000, 200);
  PSimFM x;
  const ws::CombiningStats sx = one_worker_degree(x, k, ops);
  PSimFM p(FM{}, plain());
  const ws::CombiningStats sp = one_worker_degree(p, k, ops);
  ::testing::Test::RecordProperty("psim_x_degree", std::to_string(sx.degree()));
  ::testing::Test::RecordProperty("psim_degree", std::to_string(sp.degree()));
  EXPECT_EQ(sx.requests, static_cast<std::uint64_t>(k * ops));
  EXPECT_EQ(sp.requests, static_cast<std::uint64_t>(k * ops));
  // PSim-x: all k announced requests in (nearly) every SC.
  EXPECT_GE(sx.degree(), 0.75 * k) << "PSim-x should combine the requests of all ULTs of the worker";
  // Plain PSim: exactly one request per SC when nothing preempts a ULT.
  EXPECT_LE(sp.degree(), 1.5);
  EXPECT_GE(sx.degree(), 8 * sp.degree());
  // PSim-x's yielders mostly find their request served when they run again.
  const ws::PSimStats px = x.psim_stats();
  expect_wait_free(px, static_cast<std::uint64_t>(k * ops));
  EXPECT_GE(px.served_by_other, static_cast<std::uint64_t>(k - 1) * static_cast<std::uint64_t>(ops) * 3 / 4);
  expect_wait_free(p.psim_stats(), static_cast<std::uint64_t>(k * ops));
}
