// PSimQueue-x: SimQueue (Fatourou & Kallimanis SPAA'11 §5) over two PSim
// instances with ULTs (Osci paper §6). FIFO order with one handle; the
// generation-guarded link that makes node reuse safe; linearizable histories
// (std::threads with plain PSim, ULTs on 1 and 2 workers with random yields)
// and the wait-free bound on both instances; every value out exactly once
// under stress (many ULTs, random yields, 1 and 2 workers; producers and
// consumers on threads); node reuse (bounded memory over 10^6 operations, a
// queue prefilled with 8192 elements); the combining degree PSim-x's yield
// gives the queue.
#include "weft/sync/psim_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sync_test_util.hpp"
#include "weft/runtime.hpp"
#include "weft/testing/linearizability.hpp"

namespace ws = weft::sync;
using namespace weft::sync::test;  // sync_test_util.hpp

namespace {

static_assert(ws::CombiningObject<ws::PSimQueue<int>>);
static_assert(ws::CombiningObject<ws::PSimQueue<std::uint64_t, ws::SpinWait>>);

using Queue = ws::PSimQueue<std::uint64_t>;                     // PSimQueue-x
using SpinQueue = ws::PSimQueue<std::uint64_t, ws::SpinWait>;  // with plain(): SimQueue

ws::PSimConfig plain(std::size_t max_handles = 0) {
  return {.max_handles = max_handles, .yield_after_announce = false};
}

void expect_wait_free(const ws::PSimStats& p) {
  EXPECT_LE(p.max_attempts, 2u) << "PSim: a request is served within two attempts";
  EXPECT_EQ(p.unserved_after_two, 0u) << "returned after two failed attempts with the request not served";
  EXPECT_EQ(p.own_sc + p.served_by_other + p.after_two_failures, p.applies);
}

template <class Q>
void expect_wait_free(const Q& q, std::uint64_t operations) {
  const ws::PSimStats e = q.enqueue_stats(), d = q.dequeue_stats();
  EXPECT_EQ(e.applies + d.applies, operations);
  expect_wait_free(e);
  expect_wait_free(d);
  EXPECT_EQ(q.stats().requests, operations) << "every operation applied in exactly one installed state";
}

// Histories of `rounds` fresh queues: each caller applies `ops` random
// operations (48% enqueues of caller x 100000 + i); no history may be
// non-linearizable as an unbounded FIFO queue. A history whose operations
// overlap so much (callers preempted mid-operation on a loaded machine) that
// the checker gives up is undecided, not a failure; at least 3/4 of the
// rounds must be decided linearizable.
template <class Q, class Callers, class Pause>
void queue_histories(const Callers& callers, int rounds, int ops, ws::PSimConfig cfg, Pause pause) {
  int undecided = 0;
  for (int round = 0; round < rounds; ++round) {
    Q q(cfg);
    const auto hist = record_history(
        q, callers, ops, static_cast<std::uint64_t>(round) * 31 + 1,
        [](Rng& rng, int caller, int i) {
          return random_queue_op<typename Q::Op>(rng, static_cast<std::uint64_t>(caller) * 100000 + i);
        },
        pause);
    const std::size_t unbounded = static_cast<std::size_t>(callers.callers()) * static_cast<std::size_t>(ops);
    const auto verdict = ws::check_linearizability(ws::QueueModel<std::uint64_t>(unbounded), hist);
    ASSERT_NE(verdict.verdict, ws::Verdict::not_linearizable) << "history " << round << ": " << verdict.detail;
    if (verdict.verdict == ws::Verdict::gave_up) ++undecided;
    expect_wait_free(q, unbounded);
  }
  EXPECT_LE(4 * undecided, rounds) << undecided << " of " << rounds << " histories undecided";
}

// `per_worker` ULTs on each worker of `rt` each enqueue `per` distinct values
// (u x per + i), dequeue one after each, and do random local work and yields
// in between. Returns what they dequeued; the queue is empty afterwards.
std::vector<std::uint64_t> ult_pairs(weft::Runtime& rt, Queue& q, int per_worker, int per) {
  std::vector<std::vector<std::uint64_t>> got(static_cast<std::size_t>(rt.num_workers() * per_worker));
  run_ults(rt, per_worker, [&](int u) {
    auto h = q.handle();
    Rng rng(static_cast<std::uint64_t>(u) + 5);
    auto& mine = got[static_cast<std::size_t>(u)];
    mine.reserve(static_cast<std::size_t>(per));
    for (int i = 0; i < per; ++i) {
      q.enqueue(h, static_cast<std::uint64_t>(u) * static_cast<std::uint64_t>(per) + static_cast<std::uint64_t>(i));
      between_ops(rng, 64);
      const std::optional<std::uint64_t> v = q.dequeue(h);
      ASSERT_TRUE(v.has_value()) << "empty right after our own enqueue (not linearizable)";
      mine.push_back(*v);
      between_ops(rng, 64);
    }
  });
  return concat(got);
}

}  // namespace

// ------------------------------------------------------------ one handle

TEST(PSimQueue, SingleHandleFifoUnbounded) {
  for (bool x : {false, true}) {
    Queue q(ws::PSimConfig{.max_handles = 4, .yield_after_announce = x});
    auto h = q.handle();
    EXPECT_FALSE(q.dequeue(h).has_value());
    for (std::uint64_t i = 0; i < 1000; ++i) q.enqueue(h, i);  // many pool batches
    for (std::uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(q.dequeue(h), std::optional<std::uint64_t>(i));
    EXPECT_FALSE(q.dequeue(h).has_value());
    // The CombiningObject surface.
    EXPECT_EQ(q.apply(h, Queue::Op::enqueue(7)), (Queue::Result{true, 0}));
    EXPECT_EQ(q.apply(h, Queue::Op::dequeue()), (Queue::Result{true, 7}));
    EXPECT_EQ(q.apply(h, Queue::Op::dequeue()), (Queue::Result{false, 0}));
    expect_wait_free(q, 2 * 1000 + 2 + 3);
    // Alone, every request is its own SC.
    EXPECT_EQ(q.enqueue_stats().own_sc, 1001u);
  }
}

TEST(PSimQueue, HandleLimit) {
  Queue q(plain(2));
  auto a = q.handle();
  auto b = q.handle();
  EXPECT_THROW((void)q.handle(), std::length_error);
  b = {};
  auto c = q.handle();  // the freed slot
  q.enqueue(a, 1);
  EXPECT_EQ(q.dequeue(c), std::optional<std::uint64_t>(1));
}

// The link that appends a batch is a CAS from the unlinked mark of the
// generation its state recorded: once the node is recycled, a stale link
// (a slow combiner's, or a dequeuer's help) must not take.
TEST(PSimQueue, StaleLinkFailsOnARecycledNode) {
  using Node = ws::detail::QueueNode<std::uint64_t>;
  Node first, last, other;
  first.gen = 1;
  first.next.store(Node::unlinked(1));
  EXPECT_EQ(first.next_node(), nullptr);
  Node::link(&first, 1, &last);
  EXPECT_EQ(first.next_node(), &last);
  Node::link(&first, 1, &other);  // linked already: nothing
  EXPECT_EQ(first.next_node(), &last);
  first.gen = 2;  // recycled: the pool advances the generation
  first.next.store(Node::unlinked(2));
  Node::link(&first, 1, &other);  // a stale state's link
  EXPECT_EQ(first.next_node(), nullptr);
  Node::link(&first, 2, &other);
  EXPECT_EQ(first.next_node(), &other);
}

// ------------------------------------------------------------ std::threads

TEST(PSimQueue, HistoriesLinearizableSimQueueSpin4Threads) {
  queue_histories<SpinQueue>(OnThreads{4}, scaled(150, 15), 24, plain(), [](Rng& rng) { local_work(rng, 256); });
}
TEST(PSimQueue, HistoriesLinearizablePSimX3Threads) {
  queue_histories<Queue>(OnThreads{3}, scaled(150, 15), 24, {}, [](Rng& rng) { local_work(rng, 256); });
}

TEST(PSimQueue, ExactlyOnce2Producers2ConsumersSimQueue) {
  SpinQueue q(plain());
  const int per = scaled(50000, 3000);
  queue_exactly_once<std::uint64_t>(q, 2, 2, per);
  expect_wait_free(q.enqueue_stats());
  expect_wait_free(q.dequeue_stats());
}

// ------------------------------------------------------------ weft runtime

TEST(PSimQueueRuntime, HistoriesLinearizable1Worker4Ults) {
  weft::Runtime rt(runtime_config(1));
  queue_histories<Queue>(OnUlts{rt, 4}, scaled(100, 10), 24, {}, [](Rng& rng) { between_ops(rng, 256); });
}
// (Two ULTs per worker: with three, an occasional history of 2 x 3 x 16
// operations takes the checker past its budget of 5 x 10^6 configurations,
// although it is linearizable; the unbounded queue's states are long.)
TEST(PSimQueueRuntime, HistoriesLinearizable2Workers2Ults) {
  weft::Runtime rt(runtime_config(2));
  queue_histories<Queue>(OnUlts{rt, 2}, scaled(150, 15), 24, {}, [](Rng& rng) { between_ops(rng, 256); });
}

TEST(PSimQueueRuntime, ExactlyOnce2Workers32Ults) {
  weft::Runtime rt(runtime_config(2));
  Queue q;
  const int per = scaled(3000, 300);
  ASSERT_NO_FATAL_FAILURE(expect_each_once(ult_pairs(rt, q, 32, per), static_cast<std::size_t>(64 * per)));
  auto h = q.handle();
  EXPECT_FALSE(q.dequeue(h).has_value());
  expect_wait_free(q, 2 * 64 * static_cast<std::uint64_t>(per) + 1);
}
TEST(PSimQueueRuntime, ExactlyOnce1Worker32Ults) {
  weft::Runtime rt(runtime_config(1));
  Queue q;
  const int per = scaled(3000, 300);
  ASSERT_NO_FATAL_FAILURE(expect_each_once(ult_pairs(rt, q, 32, per), static_cast<std::size_t>(32 * per)));
  expect_wait_free(q, 2 * 32 * static_cast<std::uint64_t>(per));
}

// SimQueue never gives a dequeued node back; here they are pooled. Over 10^6
// operations (5 x 10^5 enqueue+dequeue pairs by 16 ULTs on 2 workers) the
// queue holds at most 16 elements, so memory must stay at the pool's slack:
// at most 2 x 64 free nodes per slot plus a batch being refilled, far below
// one node per operation.
TEST(PSimQueueRuntime, NodesAreReusedBoundedMemoryOver1e6Operations) {
  weft::Runtime rt(runtime_config(2));
  Queue q;
  constexpr int kPerWorker = 8;
  const int per = scaled(500000, 50000) / (2 * kPerWorker);
  const std::vector<std::uint64_t> got = ult_pairs(rt, q, kPerWorker, per);
  ASSERT_NO_FATAL_FAILURE(expect_each_once(got, got.size()));
  const std::size_t operations = 2 * got.size();
  const std::size_t slots = 2 * kPerWorker;
  const std::size_t bound = 3 * 64 * (slots + 1);
  ::testing::Test::RecordProperty("nodes_allocated", std::to_string(q.nodes_allocated()));
  EXPECT_LE(q.nodes_allocated(), bound) << "nodes are not being reused (" << operations << " operations)";
  // Without reuse there would be a node per enqueue (operations / 2).
  EXPECT_GE(operations, 20 * q.nodes_allocated());
}

// A queue that holds 8192 elements while 32 ULTs run pairs: every element
// (prefill included) comes out exactly once, in FIFO order per producer, and
// the pool stays at the queue's size plus its slack.
TEST(PSimQueueRuntime, Prefilled8192ExactlyOnceAndBoundedMemory) {
  weft::Runtime rt(runtime_config(2));
  Queue q;
  constexpr std::uint64_t kPrefill = 8192;
  constexpr std::uint64_t kPrefillBase = std::uint64_t{1} << 40;
  {
    auto h = q.handle();
    for (std::uint64_t i = 0; i < kPrefill; ++i) q.enqueue(h, kPrefillBase + i);
  }
  const int per = scaled(2000, 200);
  std::vector<std::uint64_t> got = ult_pairs(rt, q, 16, per);
  auto h = q.handle();
  std::vector<std::uint64_t> rest;
  while (auto v = q.dequeue(h)) rest.push_back(*v);
  ASSERT_EQ(rest.size(), kPrefill);
  // What the ULTs took first were the prefill, in order.
  std::vector<std::uint64_t> prefill_seen;
  for (std::uint64_t v : got)
    if (v >= kPrefillBase) prefill_seen.push_back(v);
  for (std::uint64_t& v : rest) {
    if (v >= kPrefillBase)
      prefill_seen.push_back(v);
    else
      got.push_back(v);
  }
  std::sort(prefill_seen.begin(), prefill_seen.end());
  ASSERT_EQ(prefill_seen.size(), kPrefill);
  for (std::uint64_t i = 0; i < kPrefill; ++i) ASSERT_EQ(prefill_seen[i], kPrefillBase + i);
  std::erase_if(got, [&](std::uint64_t v) { return v >= kPrefillBase; });
  ASSERT_NO_FATAL_FAILURE(expect_each_once(got, static_cast<std::size_t>(32 * per)));
  ::testing::Test::RecordProperty("nodes_allocated", std::to_string(q.nodes_allocated()));
  EXPECT_LE(q.nodes_allocated(), kPrefill + 3 * 64 * (32 + 2));
}

// PSim-x's yield after announcing (paper §4) lets the other ULTs of the
// worker announce too: with 16 ULTs on one worker the queue's two instances
// combine nearly all of them per SC, plain PSim one.
TEST(PSimQueueRuntime, CombiningDegreeWithSixteenUltsPerWorker) {
  constexpr int k = 16;
  const int per = scaled(2000, 200);
  auto degree = [&](ws::PSimConfig cfg) {
    weft::Runtime rt(runtime_config(1));
    Queue q(cfg);
    std::atomic<int> ready{0};
    run_ults(rt, k, [&](int u) {
      auto h = q.handle();
      ready.fetch_add(1, std::memory_order_relaxed);
      while (ready.load(std::memory_order_relaxed) < k) weft::this_ult::yield();
      for (int i = 0; i < per; ++i) {
        q.enqueue(h, static_cast<std::uint64_t>(u));
        EXPECT_TRUE(q.dequeue(h).has_value());
      }
    });
    expect_wait_free(q, 2 * static_cast<std::uint64_t>(k) * static_cast<std::uint64_t>(per));
    return q.stats().degree();
  };
  const double x = degree({});
  const double p = degree(plain());
  ::testing::Test::RecordProperty("psim_x_degree", std::to_string(x));
  ::testing::Test::RecordProperty("psim_degree", std::to_string(p));
  EXPECT_GE(x, 0.75 * k);
  EXPECT_LE(p, 1.5);
}
