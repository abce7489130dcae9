// weft::sync::Channel on the synchronous dual queue (fair) and dual stack
// (unfair) of Scherer, Lea & Scott (PPoPP'06), and buffered: hand-offs
// between ULTs on 1 and 2 workers and plain threads, try/timed operations,
// the paper's cancellation and cleaning (cancelled nodes do not pile up,
// §3.3.3), the fair queue's FIFO and the unfair stack's LIFO service of
// waiters (§3), close (drain, then closed; sends fail), range-for, move-only
// values, exactly-once delivery under stress with random yields, timeouts
// and close racing, and select (readiness, default, timeout, closed,
// fairness).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sync_test_util.hpp"
#include "weft/runtime.hpp"
#include "weft/sync/channel.hpp"
#include "weft/sync/detail/dual_queue_core.hpp"
#include "weft/sync/select.hpp"
#include "weft/sync/synchronous_queue.hpp"

namespace ws = weft::sync;
using namespace std::chrono_literals;
using ws::test::Rng;
using ws::test::scaled;

namespace weft::sync::detail {
// Builds, on a fair dual queue, the states that lost races leave behind.
struct DualQueueCoreTestPeer {
  static DualNode* head(DualQueueCore& q) { return q.head_.load(); }
  // Links n behind the last node, as transfer() appends a waiter.
  static void append(DualQueueCore& q, DualNode* n) {
    DualNode* t = q.tail_.load();
    t->next.store(link_of(n));
    q.tail_.store(n);
  }
  static void advance_head(DualQueueCore& q, DualNode* h, DualNode* nh) { q.advance_head(h, nh); }
  static bool unsplice(DualQueueCore& q, DualNode* pred, DualNode* s) { return q.unsplice(pred, s); }
  static void clean(DualQueueCore& q, DualNode* pred, DualNode* s) { q.clean(pred, s); }
  // f runs where a sweep is about to remember the pred of a cancelled last node.
  static void set_sweep_race_point(DualQueueCore& q, void (*f)(DualQueueCore&)) { q.sweep_race_point_ = f; }
};
}  // namespace weft::sync::detail

namespace {

struct Kind {
  std::size_t capacity;
  ws::ChannelOrder order;
  const char* name;
};
const Kind kKinds[] = {{0, ws::ChannelOrder::fair, "unbuffered_fair"},
                       {0, ws::ChannelOrder::unfair, "unbuffered_unfair"},
                       {1, ws::ChannelOrder::fair, "buffered1"},
                       {8, ws::ChannelOrder::fair, "buffered8"}};

class ChannelKinds : public ::testing::TestWithParam<Kind> {};
INSTANTIATE_TEST_SUITE_P(All, ChannelKinds, ::testing::ValuesIn(kKinds),
                         [](const auto& info) { return std::string(info.param.name); });

// Spins (yielding) until pred() holds.
template <class P>
void wait_until(P pred) {
  while (!pred()) weft::this_ult::yield();
}

TEST_P(ChannelKinds, HandOffBetweenUltsAndThreads) {
  const Kind k = GetParam();
  for (int workers : {1, 2}) {
    weft::Runtime rt(ws::test::runtime_config(workers));
    ws::Channel<int> ch(k.capacity, k.order);
    constexpr int kN = 200;
    // ULT -> ULT
    auto producer = rt.spawn([&] {
      for (int i = 0; i < kN; ++i) ch.send(i);
    });
    long sum = rt.run([&] {
      long s = 0;
      for (int i = 0; i < kN; ++i) {
        auto v = ch.receive();
        EXPECT_EQ(v, i);  // one producer: its order is kept
        s += *v;
      }
      return s;
    });
    producer.join();
    EXPECT_EQ(sum, long(kN) * (kN - 1) / 2);
    // plain thread -> ULT and ULT -> plain thread
    ws::Channel<int> back(k.capacity, k.order);
    std::thread t([&] {
      for (int i = 0; i < kN; ++i) ch.send(i);
      for (int i = 0; i < kN; ++i) EXPECT_EQ(back.receive(), i + 1000);
    });
    rt.run([&] {
      for (int i = 0; i < kN; ++i) EXPECT_EQ(ch.receive(), i);
      for (int i = 0; i < kN; ++i) back.send(i + 1000);
    });
    t.join();
  }
}

TEST_P(ChannelKinds, TryAndTimedOperations) {
  const Kind k = GetParam();
  weft::Runtime rt(ws::test::runtime_config(1));
  ws::Channel<int> ch(k.capacity, k.order);
  rt.run([&] {
    int v = 0;
    EXPECT_EQ(ch.try_receive(v), ws::ChannelStatus::would_block);
    EXPECT_EQ(ch.receive_for(v, 1ms), ws::ChannelStatus::timeout);
    EXPECT_EQ(ch.receive_until(v, std::chrono::steady_clock::now() - 1s), ws::ChannelStatus::timeout);
    // Fill a buffered channel; an unbuffered one accepts nothing.
    for (std::size_t i = 0; i < k.capacity; ++i) {
      int x = int(i);
      EXPECT_EQ(ch.try_send(x), ws::ChannelStatus::success);
    }
    int x = 42;
    EXPECT_EQ(ch.try_send(x), ws::ChannelStatus::would_block);
    EXPECT_EQ(ch.send_for(x, 1ms), ws::ChannelStatus::timeout);
    EXPECT_EQ(x, 42);  // not moved from
    for (std::size_t i = 0; i < k.capacity; ++i) {
      EXPECT_EQ(ch.try_receive(v), ws::ChannelStatus::success);
      EXPECT_EQ(v, int(i));
    }
    // A waiting receiver makes try_send succeed.
    auto r = weft::Runtime::current()->spawn([&] { return ch.receive(); });
    int y = 7;
    while (ch.try_send(y) != ws::ChannelStatus::success) weft::this_ult::yield();
    EXPECT_EQ(r.join(), 7);
    // ... and a waiting sender makes try_receive succeed.
    auto s = weft::Runtime::current()->spawn([&] { ch.send(8); });
    while (ch.try_receive(v) != ws::ChannelStatus::success) weft::this_ult::yield();
    EXPECT_EQ(v, 8);
    s.join();
    // A timed receive that a sender meets before its deadline.
    auto s2 = weft::Runtime::current()->spawn([&] { ch.send(9); });
    EXPECT_EQ(ch.receive_for(v, 10s), ws::ChannelStatus::success);
    EXPECT_EQ(v, 9);
    s2.join();
  });
}

// §3.3.3: a cancelled (timed-out) waiter's node is cleaned: however many
// waits time out, the structure keeps at most the queue's dummy and one
// cancelled node (cleanMe) or, for the stack, nothing.
TEST(SynchronousChannel, CancelledWaitersAreCleaned) {
  for (auto order : {ws::ChannelOrder::fair, ws::ChannelOrder::unfair}) {
    ws::Channel<int> ch(0, order);
    const std::size_t empty = ch.linked_nodes();
    EXPECT_EQ(empty, order == ws::ChannelOrder::fair ? 1u : 0u);
    int v = 0;
    for (int i = 0; i < 100; ++i) {
      EXPECT_EQ(i % 2 ? ch.receive_for(v, 10us) : ch.send_for(v, 10us), ws::ChannelStatus::timeout);
      EXPECT_LE(ch.linked_nodes(), empty + 1) << "after " << i + 1 << " timeouts";
    }
    // Several waiters time out at once, from threads.
    ws::test::run_threads(4, [&](int t) {
      int x = t;
      for (int i = 0; i < 50; ++i) EXPECT_EQ(ch.send_for(x, 50us), ws::ChannelStatus::timeout);
    });
    EXPECT_LE(ch.linked_nodes(), empty + 2);
    // The channel still works.
    std::thread t([&] { ch.send(5); });
    EXPECT_EQ(ch.receive(), 5);
    t.join();
  }
}

// §3: the dual queue serves waiters in arrival order (fair), the dual stack
// the latest first (unfair).
TEST(SynchronousChannel, FairQueueIsFifoUnfairStackIsLifo) {
  for (auto order : {ws::ChannelOrder::fair, ws::ChannelOrder::unfair}) {
    weft::Runtime rt(ws::test::runtime_config(1));
    ws::Channel<int> ch(0, order);
    std::vector<int> got(3, -1);
    rt.run([&] {
      std::vector<weft::Ult<void>> receivers;
      const std::size_t base = ch.linked_nodes();
      for (int i = 0; i < 3; ++i) {
        receivers.push_back(weft::Runtime::current()->spawn([&, i] { got[i] = *ch.receive(); }));
        wait_until([&] { return ch.linked_nodes() == base + std::size_t(i) + 1; });  // i is waiting
      }
      for (int v = 0; v < 3; ++v) ch.send(v);
      for (auto& r : receivers) r.join();
    });
    if (order == ws::ChannelOrder::fair)
      EXPECT_EQ(got, (std::vector<int>{0, 1, 2}));
    else
      EXPECT_EQ(got, (std::vector<int>{2, 1, 0}));
  }
}

namespace d = ws::detail;

// A fair dual queue with n consumers waiting in it, linked by hand
// (DualQueueCoreTestPeer) so that a test can put it into the state a lost
// race leaves; at the end their owners return (drop their holds).
struct QueueOfWaiters {
  static void move_int(void* from, void* to) noexcept {
    static_cast<std::optional<int>*>(to)->emplace(*static_cast<int*>(from));
  }
  static constexpr std::uint8_t kRequest = 0;  // dual_queue.cpp's request mode
  using Peer = d::DualQueueCoreTestPeer;

  // n waiters now, room for `later` more (add()).
  explicit QueueOfWaiters(std::size_t n, std::size_t later = 0) : slots(n + later) {
    for (std::size_t i = 0; i < n; ++i) add();
  }
  // One more waiter, linked behind the last node.
  d::DualNode* add() {
    nodes.push_back(d::new_dual_node(kRequest, &slots.at(nodes.size()), 2));  // the list's hold and its owner's
    Peer::append(q, nodes.back());
    return nodes.back();
  }
  ~QueueOfWaiters() {
    for (d::DualNode* n : nodes) d::drop_hold(n);
  }
  // One more waiter that has timed out already (its clean is the test's).
  d::DualNode* add_cancelled() {
    d::DualNode* n = add();
    n->claim.store(d::kCancelled);
    return n;
  }
  // A sender that only meets a waiter already there.
  d::TransferStatus send(int v) { return q.transfer(&v, true, d::Patience::none()); }
  // Senders still reach the first waiter, then one that joins now, past
  // whatever cancelled nodes are left.
  void expect_senders_reach_the_waiters() {
    EXPECT_EQ(send(4), d::TransferStatus::success);
    EXPECT_EQ(slots[0], 4);
    add();
    EXPECT_EQ(send(5), d::TransferStatus::success);
    EXPECT_EQ(slots[nodes.size() - 1], 5);
  }

  d::DualQueueCore q{&move_int, nullptr};
  d::DualNode* const dummy = Peer::head(q);
  std::vector<std::optional<int>> slots;  // the waiters' destinations, sized once
  std::vector<d::DualNode*> nodes;
};

// A cancelled waiter's clean freezes its node's `next` before it unlinks
// the node; when the predecessor leaves first the unlink fails and the
// cancelled node stays linked, frozen, and may become the head. A sender must
// still serve the waiter behind it. (Before the fix, a frozen head.next was
// taken to mean "that waiter is served": the head advanced onto the waiting
// node, which became the dummy, and its owner waited for ever; the stress
// tests below hung about once in a few hundred runs.)
TEST(SynchronousChannel, FairQueueServesTheWaiterBehindAFrozenCancelledHead) {
  QueueOfWaiters w(2);
  d::DualNode *a = w.nodes[0], *b = w.nodes[1];
  {
    d::EpochGuard guard;
    a->claim.store(d::kCancelled);                          // a timed out,
    d::freeze_next(a);                                      // its clean froze a.next, but its unsplice lost to
    QueueOfWaiters::Peer::advance_head(w.q, w.dummy, a);    // a sender that found a cancelled and dequeued the dummy
    ASSERT_EQ(QueueOfWaiters::Peer::head(w.q), a);
  }
  EXPECT_EQ(w.send(42), d::TransferStatus::success);
  EXPECT_EQ(w.slots[1], 42);
  EXPECT_TRUE(b->signal.is_set());
  EXPECT_FALSE(w.slots[0].has_value());
  EXPECT_EQ(w.q.linked_nodes(), 1u);  // b is the dummy now
}

// The other race of that kind: a sender finds the first waiter a cancelled
// and will dequeue the dummy, but a cleaner unsplices a first. The sender's
// advance must not make b, whom nobody served, the dummy.
TEST(SynchronousChannel, FairQueueServesTheWaiterWhoseCancelledPredecessorWasCleaned) {
  QueueOfWaiters w(2);
  d::DualNode *a = w.nodes[0], *b = w.nodes[1];
  {
    d::EpochGuard guard;
    a->claim.store(d::kCancelled);  // a timed out; a sender reads dummy.next == a, cancelled,
    ASSERT_TRUE(QueueOfWaiters::Peer::unsplice(w.q, w.dummy, a));  // a's clean unlinks it first,
    QueueOfWaiters::Peer::advance_head(w.q, w.dummy, a);           // and then the sender dequeues the dummy
    ASSERT_EQ(QueueOfWaiters::Peer::head(w.q), w.dummy);           // ... which it must not: dummy.next is b now
  }
  EXPECT_EQ(w.send(7), d::TransferStatus::success);
  EXPECT_EQ(w.slots[1], 7);
  EXPECT_TRUE(b->signal.is_set());
  EXPECT_EQ(w.q.linked_nodes(), 1u);
}

// p and a both time out, and p's clean unlinks p first. a's clean, still
// taking p for a's predecessor, either tries its unsplice (it read p.next
// before p left), which freezes a.next and fails, or starts after p left and
// finds p.next frozen, where the paper's loop stops at once (Java's casNext
// on the dead p "succeeds" and leaves a linked just the same). Either way a
// must not stay linked (§3.3.3 leaves at most one cancelled node): it is
// swept out, and b is served.
TEST(SynchronousChannel, FairQueueUnlinksACancelledNodeWhosePredecessorLeftFirst) {
  for (bool whole_clean : {false, true}) {
    SCOPED_TRACE(whole_clean ? "a's clean starts after p left" : "a's unsplice fails");
    QueueOfWaiters w(3);
    d::DualNode *p = w.nodes[0], *a = w.nodes[1];
    {
      d::EpochGuard guard;
      p->claim.store(d::kCancelled);
      a->claim.store(d::kCancelled);
      ASSERT_TRUE(QueueOfWaiters::Peer::unsplice(w.q, w.dummy, p));  // p's clean
      if (whole_clean)
        QueueOfWaiters::Peer::clean(w.q, p, a);
      else
        EXPECT_FALSE(QueueOfWaiters::Peer::unsplice(w.q, p, a));
      EXPECT_EQ(w.q.linked_nodes(), 2u);  // the dummy and b: a is gone too
    }
    EXPECT_EQ(w.send(9), d::TransferStatus::success);
    EXPECT_EQ(w.slots[2], 9);
    EXPECT_FALSE(w.slots[1].has_value());
  }
}

// Behind a waiter a, s times out while last, so its clean remembers it
// (cleanMe = a). x joins and times out, last in turn: its clean unlinks s
// through cleanMe, then finds its own pred, s, gone. x is still linked, and
// last, so nothing can unlink it yet: it must be remembered in s's place, or
// a third cancelled waiter y, remembered behind it, leaves two cancelled
// nodes linked (§3.3.3 leaves at most one).
TEST(SynchronousChannel, FairQueueRemembersACancelledLastNodeWhosePredecessorLeft) {
  QueueOfWaiters w(2, 3);
  d::DualNode *a = w.nodes[0], *s = w.nodes[1];
  {
    d::EpochGuard guard;
    s->claim.store(d::kCancelled);
    QueueOfWaiters::Peer::clean(w.q, a, s);  // s is last: remembered, still linked
    EXPECT_EQ(w.q.linked_nodes(), 3u);
    d::DualNode* x = w.add_cancelled();
    QueueOfWaiters::Peer::clean(w.q, s, x);  // unlinks s; x is last
    EXPECT_EQ(w.q.linked_nodes(), 3u);       // the dummy, a and x
    d::DualNode* y = w.add_cancelled();
    QueueOfWaiters::Peer::clean(w.q, x, y);  // x is unlinked now; y is last
    EXPECT_EQ(w.q.linked_nodes(), 3u) << "a cancelled node nobody remembers stayed linked";
  }
  w.expect_senders_reach_the_waiters();
}

// Behind a waiter a, s times out while last and is remembered through its
// pred p (cleanMe = p); then p times out and its clean unlinks p. s is still
// linked, behind a, but cleanMe names p, which has left: the next clean
// (y's) must not only drop p but also deal with s, or s and y both stay.
TEST(SynchronousChannel, FairQueueCleansANodeWhoseRememberedPredecessorWasUnlinked) {
  QueueOfWaiters w(3, 2);
  d::DualNode *a = w.nodes[0], *p = w.nodes[1], *s = w.nodes[2];
  {
    d::EpochGuard guard;
    s->claim.store(d::kCancelled);
    QueueOfWaiters::Peer::clean(w.q, p, s);  // s is last: cleanMe = p
    p->claim.store(d::kCancelled);
    QueueOfWaiters::Peer::clean(w.q, a, p);  // p is not last: unlinked
    EXPECT_EQ(w.q.linked_nodes(), 3u);       // the dummy, a and s
    d::DualNode* y = w.add_cancelled();
    QueueOfWaiters::Peer::clean(w.q, s, y);  // y is last
    EXPECT_EQ(w.q.linked_nodes(), 3u) << "a cancelled node nobody remembers stayed linked";
  }
  w.expect_senders_reach_the_waiters();
}

// Behind a waiter a, d times out while last and is remembered (cleanMe =
// a). x joins and times out too, but its clean found cleanMe taken (by d's
// pred) and so left x linked, last and not remembered. When y's clean then
// unlinks d through cleanMe, it must look for such a node: else it
// remembers y and leaves x linked for good.
TEST(SynchronousChannel, FairQueueLooksForAnUnrememberedNodeWhenItClearsCleanMe) {
  QueueOfWaiters w(2, 3);
  d::DualNode *a = w.nodes[0], *dn = w.nodes[1];
  {
    d::EpochGuard guard;
    dn->claim.store(d::kCancelled);
    QueueOfWaiters::Peer::clean(w.q, a, dn);  // cleanMe = a
    d::DualNode* x = w.add_cancelled();       // its clean could not remember it
    d::DualNode* y = w.add_cancelled();
    QueueOfWaiters::Peer::clean(w.q, x, y);
    EXPECT_EQ(w.q.linked_nodes(), 3u) << "a cancelled node nobody remembers stayed linked";  // the dummy, a, y
  }
  w.expect_senders_reach_the_waiters();
}

// p times out and its clean freezes p.next, but its unsplice loses to a
// sender that absorbs p as the head (as in FairQueueServesTheWaiterBehind-
// AFrozenCancelledHead): p is a head whose next is frozen, so nothing can
// unlink a node from behind it. Behind it, b
// times out while last and is remembered (cleanMe = a); then a times out.
// a's clean finds its pred's next frozen and leaves a to the sweep, which
// must absorb a, a cancelled first node, as the next head (§3.3.3, Listing
// 8 lines 04-07): else a and b, two cancelled nodes, stay linked (the fair
// stress test saw 3 nodes linked at quiescence).
TEST(SynchronousChannel, FairQueueAbsorbsACancelledNodeBehindAFrozenHead) {
  QueueOfWaiters w(3, 1);
  d::DualNode *p = w.nodes[0], *a = w.nodes[1], *b = w.nodes[2];
  {
    d::EpochGuard guard;
    p->claim.store(d::kCancelled);
    d::freeze_next(p);                                    // p's clean froze p.next,
    QueueOfWaiters::Peer::advance_head(w.q, w.dummy, p);  // a sender made p the head,
    EXPECT_FALSE(QueueOfWaiters::Peer::unsplice(w.q, w.dummy, p));  // and p's unsplice failed
    b->claim.store(d::kCancelled);
    QueueOfWaiters::Peer::clean(w.q, a, b);  // b is last: cleanMe = a
    a->claim.store(d::kCancelled);
    QueueOfWaiters::Peer::clean(w.q, p, a);  // p.next is frozen: the sweep's turn
    EXPECT_EQ(QueueOfWaiters::Peer::head(w.q), a);
    EXPECT_EQ(w.q.linked_nodes(), 2u) << "two cancelled nodes stayed linked";  // a (the dummy) and b
  }
  d::DualNode* c = w.add();
  EXPECT_EQ(w.send(6), d::TransferStatus::success);
  EXPECT_EQ(w.slots[3], 6);
  EXPECT_TRUE(c->signal.is_set());
}

// Behind a waiter a, c and then n time out; c's clean unlinks c, and n's
// clean, finding its pred c gone, leaves n (last) to the sweep, which sets
// out to remember a (cleanMe = a). Before it does, x joins behind n and
// times out, and x's clean remembers n (cleanMe = n) and returns: the
// sweep's remember fails. n is no longer last and no clean will unlink it
// now: the sweep must (§3.3.3 leaves at most one cancelled node).
TEST(SynchronousChannel, FairQueueSweepUnlinksANodeThatGotASuccessorBeforeItWasRemembered) {
  static QueueOfWaiters* racing = nullptr;
  QueueOfWaiters w(3, 2);
  racing = &w;
  d::DualNode *a = w.nodes[0], *c = w.nodes[1], *n = w.nodes[2];
  {
    d::EpochGuard guard;
    c->claim.store(d::kCancelled);
    QueueOfWaiters::Peer::clean(w.q, a, c);  // c is not last: unlinked
    n->claim.store(d::kCancelled);
    QueueOfWaiters::Peer::set_sweep_race_point(w.q, [](d::DualQueueCore& q) {
      QueueOfWaiters::Peer::set_sweep_race_point(q, nullptr);  // once
      d::DualNode* n = racing->nodes[2];
      d::DualNode* x = racing->add_cancelled();
      QueueOfWaiters::Peer::clean(q, n, x);  // x is last: cleanMe = n
    });
    QueueOfWaiters::Peer::clean(w.q, c, n);  // c has left: the sweep's turn
    EXPECT_EQ(w.q.linked_nodes(), 3u) << "a cancelled node nobody remembers stayed linked";  // the dummy, a, x
  }
  w.expect_senders_reach_the_waiters();
  racing = nullptr;
}

TEST_P(ChannelKinds, CloseDrainsThenReportsClosed) {
  const Kind k = GetParam();
  weft::Runtime rt(ws::test::runtime_config(2));
  ws::Channel<int> ch(k.capacity, k.order);
  rt.run([&] {
    // Waiting receivers wake with "closed".
    auto r1 = weft::Runtime::current()->spawn([&] { return ch.receive(); });
    int v = 0;
    auto r2 = weft::Runtime::current()->spawn([&] { return ch.receive_for(v, 60s); });
    weft::this_ult::yield();
    for (int i = 0; i < 100; ++i) weft::this_ult::yield();
    ch.close();
    EXPECT_EQ(r1.join(), std::nullopt);
    EXPECT_EQ(r2.join(), ws::ChannelStatus::closed);
    EXPECT_TRUE(ch.closed());
    EXPECT_THROW(ch.send(1), ws::ChannelClosed);
    int x = 3;
    EXPECT_EQ(ch.try_send(x), ws::ChannelStatus::closed);
    EXPECT_EQ(ch.send_for(x, 1ms), ws::ChannelStatus::closed);
    EXPECT_EQ(x, 3);
    EXPECT_EQ(ch.receive(), std::nullopt);
    EXPECT_EQ(ch.try_receive(v), ws::ChannelStatus::closed);
    ch.close();  // idempotent
  });
  // Buffered values are drained before "closed"; a blocked sender fails.
  ws::Channel<int> buf(k.capacity == 0 ? 3 : k.capacity);
  for (std::size_t i = 0; i < buf.capacity(); ++i) buf.send(int(i));
  rt.run([&] {
    auto blocked = weft::Runtime::current()->spawn([&] {
      try {
        buf.send(99);
        return false;
      } catch (const ws::ChannelClosed&) {
        return true;
      }
    });
    for (int i = 0; i < 100; ++i) weft::this_ult::yield();
    buf.close();
    EXPECT_TRUE(blocked.join());
  });
  std::vector<int> drained;
  for (int v : buf) drained.push_back(v);  // range-for until closed and drained
  ASSERT_EQ(drained.size(), buf.capacity());
  for (std::size_t i = 0; i < drained.size(); ++i) EXPECT_EQ(drained[i], int(i));
}

TEST_P(ChannelKinds, MoveOnlyValuesAndRangeFor) {
  const Kind k = GetParam();
  weft::Runtime rt(ws::test::runtime_config(2));
  ws::Channel<std::unique_ptr<int>> ch(k.capacity, k.order);
  auto producer = rt.spawn([&] {
    for (int i = 0; i < 100; ++i) ch.send(std::make_unique<int>(i));
    auto p = std::make_unique<int>(-1);
    (void)ch.send_for(p, 0ms);  // may or may not find a receiver; p stays valid if not
    ch.close();
  });
  int expected = 0;
  for (auto& p : ch) {
    if (*p == -1) continue;
    EXPECT_EQ(*p, expected++);
  }
  EXPECT_EQ(expected, 100);
  producer.join();
}

// Exactly-once delivery: producers and consumers (ULTs on every worker and
// plain threads) with random yields and random timed and try operations; a
// value whose send reported success is received exactly once, and nothing
// else is received.
void stress(const Kind& k, int workers, bool close_midway) {
  weft::Runtime rt(ws::test::runtime_config(workers));
  ws::Channel<int> ch(k.capacity, k.order);
  constexpr int kProducers = 6;  // 4 ULTs + 2 threads
  const int per_producer = scaled(1500, 100);
  std::vector<std::atomic<int>> received(std::size_t(kProducers * per_producer));
  std::vector<char> sent(received.size(), 0);
  std::atomic<int> producers_left{kProducers};
  auto produce = [&](int p) {
    Rng rng(std::uint64_t(p) + 11);
    for (int i = 0; i < per_producer; ++i) {
      int v = p * per_producer + i;
      ws::ChannelStatus st;
      switch (rng.below(3)) {
        case 0: st = ch.try_send(v); break;
        case 1: st = ch.send_for(v, std::chrono::microseconds(rng.below(200))); break;
        default:
          try {
            ch.send(v);
            st = ws::ChannelStatus::success;
          } catch (const ws::ChannelClosed&) {
            st = ws::ChannelStatus::closed;
          }
      }
      if (st == ws::ChannelStatus::success) sent[std::size_t(p * per_producer + i)] = 1;
      if (close_midway && p == 0 && i == per_producer / 2) ch.close();
      if (rng.below(4) == 0) weft::this_ult::yield();
    }
    if (producers_left.fetch_sub(1) == 1) ch.close();
  };
  auto consume = [&](int c) {
    Rng rng(std::uint64_t(c) + 101);
    int v = 0;
    for (;;) {
      ws::ChannelStatus st;
      if (rng.below(2)) {
        auto got = ch.receive();
        st = got ? ws::ChannelStatus::success : ws::ChannelStatus::closed;
        if (got) v = *got;
      } else {
        st = ch.receive_for(v, std::chrono::microseconds(rng.below(300)));
      }
      if (st == ws::ChannelStatus::closed) return;
      if (st == ws::ChannelStatus::success) received[std::size_t(v)].fetch_add(1);
      if (rng.below(4) == 0) weft::this_ult::yield();
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] { produce(4 + t); });
    threads.emplace_back([&, t] { consume(4 + t); });
  }
  std::vector<weft::Ult<void>> ults;
  for (int i = 0; i < 4; ++i) {
    ults.push_back(rt.spawn_on(i % workers, [&, i] { produce(i); }));
    ults.push_back(rt.spawn_on((i + 1) % workers, [&, i] { consume(i); }));
  }
  for (auto& u : ults) u.join();
  for (auto& t : threads) t.join();
  int delivered = 0;
  for (std::size_t i = 0; i < received.size(); ++i) {
    ASSERT_EQ(received[i].load(), int(sent[i])) << "value " << i << (sent[i] ? " sent" : " not sent");
    delivered += sent[i];
  }
  if (!close_midway) {
    EXPECT_GT(delivered, 0);
  }
  if (k.capacity == 0) {
    EXPECT_LE(ch.linked_nodes(), k.order == ws::ChannelOrder::fair ? 2u : 1u);
  }
}

TEST_P(ChannelKinds, ExactlyOnceUnderStressOneWorker) { stress(GetParam(), 1, false); }
TEST_P(ChannelKinds, ExactlyOnceUnderStressTwoWorkers) { stress(GetParam(), 2, false); }
TEST_P(ChannelKinds, ExactlyOnceWhenClosedMidway) { stress(GetParam(), 2, true); }

// The paper's interface: put/take wait, offer/poll only meet a waiting
// partner (or one that comes before the timeout).
TEST(SynchronousQueue, PutTakeOfferPoll) {
  for (auto order : {ws::ChannelOrder::fair, ws::ChannelOrder::unfair}) {
    weft::Runtime rt(ws::test::runtime_config(2));
    ws::SynchronousQueue<std::unique_ptr<int>> q(order);
    rt.run([&] {
      auto p = std::make_unique<int>(1);
      EXPECT_FALSE(q.offer(p));  // no taker waits
      EXPECT_FALSE(q.offer(p, 100us));
      ASSERT_TRUE(p);  // still ours
      EXPECT_FALSE(q.poll().has_value());
      EXPECT_FALSE(q.poll(100us).has_value());
      auto taker = weft::Runtime::current()->spawn([&] { return *q.take(); });
      while (!q.offer(p)) weft::this_ult::yield();
      EXPECT_EQ(taker.join(), 1);
      auto putter = weft::Runtime::current()->spawn([&] { q.put(std::make_unique<int>(2)); });
      std::optional<std::unique_ptr<int>> got;
      while (!(got = q.poll())) weft::this_ult::yield();
      EXPECT_EQ(**got, 2);
      putter.join();
      auto late = weft::Runtime::current()->spawn([&] { q.put(std::make_unique<int>(3)); });
      EXPECT_EQ(**q.poll(30s), 3);  // a putter that comes within the timeout
      late.join();
      q.close();
      EXPECT_THROW(q.take(), ws::ChannelClosed);
      EXPECT_THROW(q.put(std::make_unique<int>(4)), ws::ChannelClosed);
    });
  }
}

// ---------------------------------------------------------------- select

TEST(Select, ReceivesFromTheReadyChannel) {
  weft::Runtime rt(ws::test::runtime_config(2));
  ws::Channel<int> numbers;  // unbuffered
  ws::Channel<std::string> words(4);
  rt.run([&] {
    int n = -1;
    std::string w;
    ws::Select sel;
    sel.on_receive(numbers, [&](int v) { n = v; }).on_receive(words, [&](std::string s) { w = std::move(s); });
    EXPECT_EQ(sel.try_select().status, ws::SelectStatus::would_block);  // the default case
    EXPECT_EQ(sel.select_for(1ms).status, ws::SelectStatus::timeout);
    words.send("hi");
    auto r = sel.select();
    EXPECT_EQ(r.status, ws::SelectStatus::received);
    EXPECT_EQ(r.index, 1u);
    EXPECT_EQ(w, "hi");
    // A select that waits is woken by a sender on another worker, and by a
    // plain thread.
    auto s = weft::Runtime::current()->spawn_on(1, [&] { numbers.send(5); });
    r = sel.select();
    EXPECT_EQ(r.status, ws::SelectStatus::received);
    EXPECT_EQ(r.index, 0u);
    EXPECT_EQ(n, 5);
    s.join();
    std::thread t([&] {
      std::this_thread::sleep_for(1ms);
      words.send("there");
    });
    r = sel.select_for(30s);
    EXPECT_EQ(r.index, 1u);
    EXPECT_EQ(w, "there");
    t.join();
    // Closed channels drop out; all closed: `closed`.
    numbers.close();
    words.send("last");
    words.close();
    r = sel.select();
    EXPECT_EQ(r.index, 1u);
    EXPECT_EQ(w, "last");
    EXPECT_EQ(sel.select().status, ws::SelectStatus::closed);
  });
  ws::Select empty;
  EXPECT_THROW(empty.select(), std::invalid_argument);
}

// No channel is starved: with two channels always ready, each is picked a
// fair share of the time, also by a Select built afresh for every call.
TEST(Select, NoChannelStarves) {
  ws::Channel<int> a(64), b(64);
  int from_a = 0, from_b = 0;
  constexpr int kRounds = 400;
  for (int i = 0; i < kRounds; ++i) {
    while (a.try_send(i) == ws::ChannelStatus::success) {}
    int v = i;
    while (b.try_send(v) == ws::ChannelStatus::success) {}
    ws::Select sel;
    sel.on_receive(a, [&](int) { ++from_a; }).on_receive(b, [&](int) { ++from_b; });
    ASSERT_EQ(sel.select().status, ws::SelectStatus::received);
  }
  EXPECT_GT(from_a, kRounds / 4);
  EXPECT_GT(from_b, kRounds / 4);
}

// Many selecting ULTs against senders on both workers and a thread: every
// value is received exactly once, through some select.
TEST(Select, ExactlyOnceWithManySelectors) {
  weft::Runtime rt(ws::test::runtime_config(2));
  ws::Channel<int> a, b(2), c(0, ws::ChannelOrder::unfair);
  const int per_sender = scaled(2000, 100);
  std::vector<std::atomic<int>> got(std::size_t(3 * per_sender));
  std::atomic<int> senders_left{3};
  auto sender = [&](ws::Channel<int>& ch, int base) {
    for (int i = 0; i < per_sender; ++i) ch.send(base + i);
    if (senders_left.fetch_sub(1) == 1) {
      a.close();
      b.close();
      c.close();
    }
  };
  std::thread t([&] { sender(c, 2 * per_sender); });
  std::vector<weft::Ult<void>> ults;
  ults.push_back(rt.spawn_on(0, [&] { sender(a, 0); }));
  ults.push_back(rt.spawn_on(1, [&] { sender(b, per_sender); }));
  for (int s = 0; s < 4; ++s)
    ults.push_back(rt.spawn_on(s % 2, [&] {
      ws::Select sel;
      auto count = [&](int v) { got[std::size_t(v)].fetch_add(1); };
      sel.on_receive(a, count).on_receive(b, count).on_receive(c, count);
      while (sel.select_for(100ms).status != ws::SelectStatus::closed) {}
    }));
  for (auto& u : ults) u.join();
  t.join();
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].load(), 1) << "value " << i;
}

}  // namespace
