// The two-instance combining queue (OsciQueue/CC-Queue shape) and the
// combining stack: linearizable histories, and under stress every enqueued
// (pushed) value comes out exactly once.
#include "weft/sync/combining_queue.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "sync_test_util.hpp"
#include "weft/sync/combining_stack.hpp"
#include "weft/sync/dsmsynch.hpp"
#include "weft/testing/linearizability.hpp"

namespace ws = weft::sync;
using namespace weft::sync::test;  // sync_test_util.hpp

namespace {

template <class S>
using CCYield = ws::CCSynch<S, ws::YieldWait>;
template <class S>
using DSMYield = ws::DSMSynch<S, ws::YieldWait>;

static_assert(ws::CombiningObject<ws::CombiningQueue<int>>);
static_assert(ws::CombiningObject<ws::CombiningStack<int>>);

template <class Q>
void queue_histories(int threads, int histories, int ops) {
  container_histories<Q>(OnThreads{threads},
                         {.rounds = histories, .ops = ops, .seed_step = 31, .value_scale = 100000},
                         [](Rng& rng) { local_work(rng, 256); });
}

}  // namespace

TEST(CombiningQueue, SingleThreadFifoAndCapacity) {
  ws::CombiningQueue<int> q(3);
  expect_single_handle_fifo(q);
}

TEST(CombiningQueue, HistoriesAreLinearizableSpin2Threads) { queue_histories<ws::CombiningQueue<int>>(2, 300, 80); }
TEST(CombiningQueue, HistoriesAreLinearizableYield4Threads) {
  queue_histories<ws::CombiningQueue<int, CCYield>>(4, 200, 60);
}
TEST(CombiningQueue, HistoriesAreLinearizableWithDSMSynch) {
  queue_histories<ws::CombiningQueue<int, DSMYield>>(3, 200, 60);
}

// Producers enqueue distinct values, consumers dequeue until all are seen.
TEST(CombiningQueue, ExactlyOnce2Producers2Consumers) {
  ws::CombiningQueue<int, CCYield> q(64);
  queue_exactly_once<int>(q, 2, 2, 50000);
}
TEST(CombiningQueue, ExactlyOnce1Producer1ConsumerSpin) {
  ws::CombiningQueue<int> q(64);
  queue_exactly_once<int>(q, 1, 1, 100000);
}

TEST(CombiningStack, SingleThreadLifo) {
  ws::CombiningStack<int> s(2);
  expect_single_handle_lifo(s);
}

TEST(CombiningStack, HistoriesAreLinearizable) {
  container_histories<ws::CombiningStack<int, CCYield>>(
      OnThreads{3}, {.rounds = 250, .ops = 60, .seed_step = 13, .value_scale = 1000},
      [](Rng& rng) { local_work(rng, 256); });
}

TEST(CombiningStack, ExactlyOnce) {
  ws::CombiningStack<int, CCYield> s(100000);
  constexpr int kThreads = 4, kPer = 20000;
  std::vector<std::vector<int>> got(kThreads);
  run_threads(kThreads, [&](int t) {
    auto h = s.handle();
    auto& mine = got[static_cast<std::size_t>(t)];
    for (int i = 0; i < kPer; ++i) {
      ASSERT_TRUE(s.push(h, t * kPer + i));
      if (i % 2) {
        auto v = s.pop(h);
        ASSERT_TRUE(v.has_value());  // we pushed at least as much as we popped
        mine.push_back(*v);
      }
    }
  });
  auto h = s.handle();
  std::vector<int> all = concat(got);
  while (auto v = s.pop(h)) all.push_back(*v);
  expect_each_once(std::move(all), kThreads * kPer);
}
