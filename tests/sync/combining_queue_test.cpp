// The two-instance combining queue (OsciQueue/CC-Queue shape) and the
// combining stack: linearizable histories, and under stress every enqueued
// (pushed) value comes out exactly once.
#include "weft/sync/combining_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sync_test_util.hpp"
#include "weft/sync/combining_stack.hpp"
#include "weft/sync/dsmsynch.hpp"
#include "weft/sync/linearizability.hpp"

namespace ws = weft::sync;
using weft::sync::test::local_work;
using weft::sync::test::Rng;
using weft::sync::test::run_threads;

namespace {

template <class S>
using CCYield = ws::CCSynch<S, ws::YieldWait>;
template <class S>
using DSMYield = ws::DSMSynch<S, ws::YieldWait>;

static_assert(ws::CombiningObject<ws::CombiningQueue<int>>);
static_assert(ws::CombiningObject<ws::CombiningStack<int>>);

template <class Q>
void queue_histories(int threads, int histories, int ops) {
  constexpr std::size_t cap = 5;
  for (int round = 0; round < histories; ++round) {
    Q q(cap);
    ws::HistoryRecorder<ws::QueueOp<int>, ws::QueueResult<int>> rec(static_cast<std::size_t>(threads),
                                                                    static_cast<std::size_t>(ops));
    run_threads(threads, [&](int t) {
      auto h = q.handle();
      Rng rng(static_cast<std::uint64_t>(round * 31 + t + 1));
      for (int i = 0; i < ops; ++i) {
        const auto op = rng.below(100) < 48 ? ws::QueueOp<int>::enqueue(t * 100000 + i) : ws::QueueOp<int>::dequeue();
        rec.thread(static_cast<std::size_t>(t)).call(op, [&] { return q.apply(h, op); });
        local_work(rng, 256);
      }
    });
    const auto r = ws::check_linearizability(ws::QueueModel<int>(cap), rec.history());
    ASSERT_EQ(r.verdict, ws::Verdict::linearizable) << "history " << round << ": " << r.detail;
  }
}

// Producers enqueue distinct values, consumers dequeue until all are seen.
template <class Q>
void queue_exactly_once(int producers, int consumers, int per_producer) {
  Q q(64);
  const int n = producers + consumers;
  std::vector<std::vector<int>> got(static_cast<std::size_t>(n));
  std::atomic<int> consumed{0};
  const int total = producers * per_producer;
  run_threads(n, [&](int t) {
    auto h = q.handle();
    if (t < producers) {
      for (int i = 0; i < per_producer; ++i) {
        const int v = t * per_producer + i;
        while (!q.enqueue(h, v)) std::this_thread::yield();  // full
      }
    } else {
      auto& mine = got[static_cast<std::size_t>(t)];
      mine.reserve(static_cast<std::size_t>(total));
      while (consumed.load(std::memory_order_relaxed) < total) {
        if (auto v = q.dequeue(h)) {
          mine.push_back(*v);
          consumed.fetch_add(1, std::memory_order_relaxed);
        } else {
          std::this_thread::yield();
        }
      }
    }
  });
  std::vector<int> all;
  for (auto& v : got) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), static_cast<std::size_t>(total));
  for (int i = 0; i < total; ++i) ASSERT_EQ(all[static_cast<std::size_t>(i)], i);
  // Per producer, a single consumer sees that producer's values in order (FIFO).
  for (std::size_t c = static_cast<std::size_t>(producers); c < got.size(); ++c) {
    std::vector<int> last(static_cast<std::size_t>(producers), -1);
    for (int v : got[c]) {
      const auto p = static_cast<std::size_t>(v / per_producer);
      ASSERT_GT(v, last[p]);
      last[p] = v;
    }
  }
  auto h = q.handle();
  EXPECT_FALSE(q.dequeue(h).has_value());
}

}  // namespace

TEST(CombiningQueue, SingleThreadFifoAndCapacity) {
  ws::CombiningQueue<int> q(3);
  auto h = q.handle();
  EXPECT_EQ(q.capacity(), 3u);
  EXPECT_FALSE(q.dequeue(h).has_value());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(q.enqueue(h, i));
  EXPECT_FALSE(q.enqueue(h, 99));
  for (int round = 0; round < 10; ++round) {  // wraps around the ring
    EXPECT_EQ(q.dequeue(h), std::optional<int>(round));
    EXPECT_TRUE(q.enqueue(h, round + 3));
  }
}

TEST(CombiningQueue, HistoriesAreLinearizableSpin2Threads) { queue_histories<ws::CombiningQueue<int>>(2, 300, 80); }
TEST(CombiningQueue, HistoriesAreLinearizableYield4Threads) {
  queue_histories<ws::CombiningQueue<int, CCYield>>(4, 200, 60);
}
TEST(CombiningQueue, HistoriesAreLinearizableWithDSMSynch) {
  queue_histories<ws::CombiningQueue<int, DSMYield>>(3, 200, 60);
}
TEST(CombiningQueue, ExactlyOnce2Producers2Consumers) {
  queue_exactly_once<ws::CombiningQueue<int, CCYield>>(2, 2, 50000);
}
TEST(CombiningQueue, ExactlyOnce1Producer1ConsumerSpin) { queue_exactly_once<ws::CombiningQueue<int>>(1, 1, 100000); }

TEST(CombiningStack, SingleThreadLifo) {
  ws::CombiningStack<int> s(2);
  auto h = s.handle();
  EXPECT_FALSE(s.pop(h).has_value());
  EXPECT_TRUE(s.push(h, 1));
  EXPECT_TRUE(s.push(h, 2));
  EXPECT_FALSE(s.push(h, 3));
  EXPECT_EQ(s.pop(h), std::optional<int>(2));
  EXPECT_EQ(s.pop(h), std::optional<int>(1));
}

TEST(CombiningStack, HistoriesAreLinearizable) {
  constexpr std::size_t cap = 5;
  for (int round = 0; round < 250; ++round) {
    ws::CombiningStack<int, CCYield> s(cap);
    ws::HistoryRecorder<ws::StackOp<int>, ws::StackResult<int>> rec(3, 60);
    run_threads(3, [&](int t) {
      auto h = s.handle();
      Rng rng(static_cast<std::uint64_t>(round * 13 + t + 1));
      for (int i = 0; i < 60; ++i) {
        const auto op = rng.below(2) ? ws::StackOp<int>::push(t * 1000 + i) : ws::StackOp<int>::pop();
        rec.thread(static_cast<std::size_t>(t)).call(op, [&] { return s.apply(h, op); });
        local_work(rng, 256);
      }
    });
    const auto r = ws::check_linearizability(ws::StackModel<int>(cap), rec.history());
    ASSERT_EQ(r.verdict, ws::Verdict::linearizable) << "history " << round << ": " << r.detail;
  }
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
  std::vector<int> all;
  for (auto& v : got) all.insert(all.end(), v.begin(), v.end());
  while (auto v = s.pop(h)) all.push_back(*v);
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPer));
  for (int i = 0; i < kThreads * kPer; ++i) ASSERT_EQ(all[static_cast<std::size_t>(i)], i);
}
