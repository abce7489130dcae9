// The checker must reject non-linearizable histories (so that the algorithm
// tests mean something) and accept linearizable ones with overlap.
#include "weft/testing/linearizability.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sync_test_util.hpp"

namespace ws = weft::sync;
using QOp = ws::QueueOp<int>;
using QRes = ws::QueueResult<int>;
using QEntry = ws::Operation<QOp, QRes>;
using SOp = ws::StackOp<int>;
using SRes = ws::StackResult<int>;
using SEntry = ws::Operation<SOp, SRes>;
using FEntry = ws::Operation<std::uint64_t, std::uint64_t>;

namespace {

QEntry enq(std::uint64_t a, std::uint64_t b, std::uint32_t t, int v, bool ok = true) {
  return {a, b, t, QOp::enqueue(v), QRes{ok, 0}};
}
QEntry deq(std::uint64_t a, std::uint64_t b, std::uint32_t t, int v) { return {a, b, t, QOp::dequeue(), QRes{true, v}}; }
QEntry deq_empty(std::uint64_t a, std::uint64_t b, std::uint32_t t) { return {a, b, t, QOp::dequeue(), QRes{false, 0}}; }
SEntry push(std::uint64_t a, std::uint64_t b, std::uint32_t t, int v) { return {a, b, t, SOp::push(v), SRes{true, 0}}; }
SEntry pop(std::uint64_t a, std::uint64_t b, std::uint32_t t, int v) { return {a, b, t, SOp::pop(), SRes{true, v}}; }
SEntry pop_empty(std::uint64_t a, std::uint64_t b, std::uint32_t t) { return {a, b, t, SOp::pop(), SRes{false, 0}}; }

template <class M, class E>
ws::Verdict verdict(const M& m, const std::vector<E>& h) {
  return ws::check_linearizability(m, h).verdict;
}

}  // namespace

TEST(Linearizability, EmptyHistoryIsLinearizable) {
  EXPECT_TRUE(ws::check_linearizability(ws::QueueModel<int>{}, std::vector<QEntry>{}));
}

TEST(Linearizability, QueueRejectsValueNeverEnqueued) {
  std::vector<QEntry> h{enq(1, 2, 0, 1), deq(3, 4, 1, 7)};
  EXPECT_EQ(verdict(ws::QueueModel<int>{}, h), ws::Verdict::not_linearizable);
  // Even when everything overlaps.
  std::vector<QEntry> h2{enq(1, 10, 0, 1), deq(2, 9, 1, 7)};
  EXPECT_EQ(verdict(ws::QueueModel<int>{}, h2), ws::Verdict::not_linearizable);
}

TEST(Linearizability, QueueRejectsFifoViolationOfSequentialOps) {
  std::vector<QEntry> h{enq(1, 2, 0, 1), enq(3, 4, 0, 2), deq(5, 6, 1, 2)};
  const auto r = ws::check_linearizability(ws::QueueModel<int>{}, h);
  EXPECT_EQ(r.verdict, ws::Verdict::not_linearizable);
  EXPECT_FALSE(r.detail.empty());
}

TEST(Linearizability, QueueAcceptsReorderWhenEnqueuesOverlap) {
  std::vector<QEntry> h{enq(1, 4, 0, 1), enq(2, 3, 1, 2), deq(5, 6, 1, 2), deq(7, 8, 0, 1)};
  EXPECT_EQ(verdict(ws::QueueModel<int>{}, h), ws::Verdict::linearizable);
}

TEST(Linearizability, QueueRejectsDoubleDequeue) {
  std::vector<QEntry> h{enq(1, 2, 0, 1), deq(3, 6, 0, 1), deq(4, 5, 1, 1)};
  EXPECT_EQ(verdict(ws::QueueModel<int>{}, h), ws::Verdict::not_linearizable);
}

TEST(Linearizability, QueueEmptyDequeue) {
  // Empty after a completed enqueue: wrong.
  std::vector<QEntry> bad{enq(1, 2, 0, 1), deq_empty(3, 4, 1)};
  EXPECT_EQ(verdict(ws::QueueModel<int>{}, bad), ws::Verdict::not_linearizable);
  // Empty while the enqueue is in progress: fine.
  std::vector<QEntry> good{enq(1, 4, 0, 1), deq_empty(2, 3, 1), deq(5, 6, 1, 1)};
  EXPECT_EQ(verdict(ws::QueueModel<int>{}, good), ws::Verdict::linearizable);
}

TEST(Linearizability, QueueCapacity) {
  // Capacity 1: a second enqueue must fail until a dequeue.
  std::vector<QEntry> good{enq(1, 2, 0, 1), enq(3, 4, 0, 2, false), deq(5, 6, 1, 1), enq(7, 8, 0, 3)};
  EXPECT_EQ(verdict(ws::QueueModel<int>(1), good), ws::Verdict::linearizable);
  std::vector<QEntry> bad{enq(1, 2, 0, 1), enq(3, 4, 0, 2, true)};
  EXPECT_EQ(verdict(ws::QueueModel<int>(1), bad), ws::Verdict::not_linearizable);
  std::vector<QEntry> bad2{enq(1, 2, 0, 1, false)};
  EXPECT_EQ(verdict(ws::QueueModel<int>(1), bad2), ws::Verdict::not_linearizable);
}

TEST(Linearizability, StackRejectsLifoViolationOfSequentialOps) {
  std::vector<SEntry> h{push(1, 2, 0, 1), push(3, 4, 0, 2), pop(5, 6, 1, 1)};
  EXPECT_EQ(verdict(ws::StackModel<int>{}, h), ws::Verdict::not_linearizable);
}

TEST(Linearizability, StackAcceptsWithOverlap) {
  std::vector<SEntry> h{push(1, 4, 0, 1), push(2, 3, 1, 2), pop(5, 6, 1, 1), pop(7, 8, 0, 2)};
  EXPECT_EQ(verdict(ws::StackModel<int>{}, h), ws::Verdict::linearizable);
  // pop overlapping a push may return it.
  std::vector<SEntry> h2{push(1, 2, 0, 1), push(3, 6, 0, 2), pop(4, 5, 1, 2), pop(7, 8, 1, 1), pop_empty(9, 10, 0)};
  EXPECT_EQ(verdict(ws::StackModel<int>{}, h2), ws::Verdict::linearizable);
}

TEST(Linearizability, StackRejectsPopOfNeverPushedAndEmptyWhenFull) {
  std::vector<SEntry> h{push(1, 2, 0, 1), pop(3, 4, 1, 9)};
  EXPECT_EQ(verdict(ws::StackModel<int>{}, h), ws::Verdict::not_linearizable);
  std::vector<SEntry> h2{push(1, 2, 0, 1), pop_empty(3, 4, 1)};
  EXPECT_EQ(verdict(ws::StackModel<int>{}, h2), ws::Verdict::not_linearizable);
}

TEST(Linearizability, FetchMultiply) {
  ws::FetchMultiplyModel<std::uint64_t> m;
  // Sequential: x3 returns 1, then x5 must return 3.
  std::vector<FEntry> bad{{1, 2, 0, 3, 1}, {3, 4, 1, 5, 1}};
  EXPECT_EQ(verdict(m, bad), ws::Verdict::not_linearizable);
  // Overlapping: x5 may take effect first.
  std::vector<FEntry> good{{1, 4, 0, 3, 5}, {2, 3, 1, 5, 1}};
  EXPECT_EQ(verdict(m, good), ws::Verdict::linearizable);
  // Both returning the initial value (one lost update) is never linearizable.
  std::vector<FEntry> lost{{1, 4, 0, 3, 1}, {2, 3, 1, 5, 1}};
  EXPECT_EQ(verdict(m, lost), ws::Verdict::not_linearizable);
}

TEST(Linearizability, RejectsResponseBeforeInvocation) {
  std::vector<QEntry> h{enq(5, 4, 0, 1)};
  EXPECT_EQ(verdict(ws::QueueModel<int>{}, h), ws::Verdict::not_linearizable);
}

TEST(Linearizability, GivesUpWithinBudget) {
  // Many fully overlapping pushes and pops: the budget stops the search.
  std::vector<SEntry> h;
  for (int i = 0; i < 40; ++i) h.push_back(push(1, 1000, static_cast<std::uint32_t>(i), i));
  for (int i = 0; i < 40; ++i) h.push_back(pop(2, 999, static_cast<std::uint32_t>(40 + i), 1000 + i));
  const auto r = ws::check_linearizability(ws::StackModel<int>{}, h, 1000);
  EXPECT_NE(r.verdict, ws::Verdict::linearizable);
}

namespace {

// A synthetic history of `n` queue operations by `threads` sequential
// threads: the operations take effect in a known order at points 10 apart,
// and each operation's interval spans up to `spread` around its point, so
// operations of different threads overlap heavily.
// Enqueues are a little rarer than dequeues so that the queue stays short:
// the search is exponential in the number of enqueues whose order is still
// open (overlapping, not yet dequeued), as for any WGL-style checker.
std::vector<QEntry> synthetic_queue_history(int n, int threads, std::uint64_t seed, std::uint64_t spread = 25) {
  weft::sync::test::Rng rng(seed);
  std::vector<QEntry> h;
  std::vector<std::uint64_t> busy_until(static_cast<std::size_t>(threads), 0);
  std::vector<int> model;
  std::size_t front = 0;
  int next_value = 0;
  for (int k = 0; static_cast<int>(h.size()) < n; ++k) {
    const std::uint64_t lin = 100 + 10 * static_cast<std::uint64_t>(k);
    std::vector<int> free;
    for (int t = 0; t < threads; ++t)
      if (busy_until[static_cast<std::size_t>(t)] < lin) free.push_back(t);
    if (free.empty()) continue;
    const int t = free[rng.below(free.size())];
    std::uint64_t a = lin - 1 - rng.below(spread);
    a = std::max(a, busy_until[static_cast<std::size_t>(t)] + 1);
    const std::uint64_t b = lin + 1 + rng.below(spread);
    busy_until[static_cast<std::size_t>(t)] = b;
    if (rng.below(100) < 45) {
      model.push_back(next_value);
      h.push_back(enq(a, b, static_cast<std::uint32_t>(t), next_value++));
    } else if (front < model.size()) {
      h.push_back(deq(a, b, static_cast<std::uint32_t>(t), model[front++]));
    } else {
      h.push_back(deq_empty(a, b, static_cast<std::uint32_t>(t)));
    }
  }
  return h;
}

}  // namespace

TEST(Linearizability, LargeOverlappingHistoriesAcceptedAndMutationsRejected) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    auto h = synthetic_queue_history(400, 4, seed);
    const auto r = ws::check_linearizability(ws::QueueModel<int>{}, h);
    ASSERT_EQ(r.verdict, ws::Verdict::linearizable) << "seed " << seed << ": " << r.detail;

    // A dequeue returning a value that was never enqueued.
    auto bad = h;
    for (auto& e : bad)
      if (e.op.kind == QOp::Kind::dequeue && e.result.ok) {
        e.result.value = -1;
        break;
      }
    EXPECT_EQ(ws::check_linearizability(ws::QueueModel<int>{}, bad).verdict, ws::Verdict::not_linearizable)
        << "seed " << seed;

    // Swap the values of two dequeues far apart in time: FIFO order broken.
    auto swapped = h;
    std::vector<std::size_t> deqs;
    for (std::size_t i = 0; i < swapped.size(); ++i)
      if (swapped[i].op.kind == QOp::Kind::dequeue && swapped[i].result.ok) deqs.push_back(i);
    ASSERT_GE(deqs.size(), 20u);
    std::swap(swapped[deqs[2]].result.value, swapped[deqs[deqs.size() - 3]].result.value);
    EXPECT_EQ(ws::check_linearizability(ws::QueueModel<int>{}, swapped).verdict, ws::Verdict::not_linearizable)
        << "seed " << seed;
  }
}

TEST(Linearizability, RecorderStampsRealTimeOrder) {
  ws::HistoryRecorder<std::uint64_t, std::uint64_t> rec(2, 4);
  ws::FetchMultiply<std::uint64_t> f;
  for (std::uint64_t k : {3u, 5u}) rec.thread(0).call(k, [&] { return f.apply(k); });
  rec.thread(1).call(7, [&] { return f.apply(7); });
  auto h = rec.history();
  ASSERT_EQ(h.size(), 3u);
  EXPECT_LT(h[0].response, h[1].invoke);
  EXPECT_LT(h[1].response, h[2].invoke);
  EXPECT_EQ(h[2].thread, 1u);
  EXPECT_TRUE(ws::check_linearizability(ws::FetchMultiplyModel<std::uint64_t>{}, h));
  // The recorder refuses to grow (recording must not allocate).
  for (int i = 0; i < 3; ++i) rec.thread(1).call(1, [&] { return f.apply(1); });
  EXPECT_THROW(rec.thread(1).call(1, [&] { return f.apply(1); }), std::length_error);
}
