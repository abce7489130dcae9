// Queue delegation locking (weft/sync/locks/qd_lock.hpp, mrqd_lock.hpp):
// the delegation queue's edges (closed at start, fills and closes, FIFO
// flush, large closures intact, racing enqueues), every delegated operation
// applied exactly once and in each caller's order, delegate_wait results and
// exceptions, detached operations done before a later lock() returns, the
// lock() fallback while the queue is closed, a QD-protected priority queue's
// histories linearizable, and MRQD's read-your-writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <queue>
#include <shared_mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sync_test_util.hpp"
#include "weft/runtime.hpp"
#include "weft/sync/detail/delegation_queue.hpp"
#include "weft/sync/locks/mrqd_lock.hpp"
#include "weft/sync/locks/qd_lock.hpp"

namespace {

using namespace weft::sync;
using namespace weft::sync::test;

TEST(DelegationQueue, StartsClosedFillsClosesAndFlushesInOrder) {
  detail::DelegationQueue<8, 32> q;
  std::vector<int> ran;
  EXPECT_TRUE(q.is_closed());
  EXPECT_FALSE(q.enqueue([&] { ran.push_back(-1); }));
  q.open();
  int accepted = 0;
  while (q.enqueue([&ran, accepted] { ran.push_back(accepted); })) ++accepted;
  EXPECT_EQ(accepted, 8);  // one slot each (16-byte header + 16-byte closure)
  EXPECT_TRUE(q.is_closed());
  EXPECT_EQ(q.flush(), 8u);
  EXPECT_EQ(ran, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(q.is_closed());
  // A closure spanning several slots arrives intact, and flush leaves the
  // queue reusable.
  q.open();
  std::array<std::uint64_t, 12> big{};
  std::iota(big.begin(), big.end(), 100);
  std::uint64_t sum = 0;
  static_assert(detail::DelegationQueue<8, 32>::slots_for<decltype([big, &sum] {})>() == 4);
  EXPECT_TRUE(q.enqueue([big, &sum] { sum = std::accumulate(big.begin(), big.end(), std::uint64_t{0}); }));
  EXPECT_TRUE(q.enqueue([big, &sum] { sum += big[11]; }));
  EXPECT_FALSE(q.enqueue([big, &sum] { sum = 0; }));  // 8 of 8 slots used
  EXPECT_EQ(q.flush(), 2u);
  EXPECT_EQ(sum, 1266u + 111u);
  // Empty round: open, nothing queued, flush closes.
  q.open();
  EXPECT_EQ(q.flush(), 0u);
  EXPECT_TRUE(q.is_closed());
}

// Producers enqueue closures of one and two slots (so some straddle the end
// and close the queue with a filler) while a helper opens and flushes in
// rounds (holding each round open a little): producers retry until accepted,
// and every closure runs exactly once, each producer's in order.
TEST(DelegationQueue, RacingEnqueuesAndFlushesLoseNothing) {
  detail::DelegationQueue<63, 16> q;
  constexpr int kProducers = 2;
  const int per = scaled(1000, 150);
  std::vector<int> last(kProducers, -1);
  std::atomic<int> bad{0};
  long ran = 0;
  std::atomic<bool> stop{false};
  std::thread helper([&] {
    while (!stop.load()) {
      q.open();
      for (int i = 0; i < 4000 && !q.is_closed(); ++i) cpu_relax();  // until full, or a while
      ran += static_cast<long>(q.flush());
    }
  });
  run_threads(kProducers, [&](int p) {
    for (int i = 0; i < per; ++i) {
      auto check = [&, p, i] {
        if (last[p] >= i) bad.fetch_add(1);
        last[p] = i;
      };
      if (i % 2) {
        while (!q.enqueue(check)) std::this_thread::yield();
      } else {
        auto padded = [check, pad = std::array<char, 16>{}] {
          check();
          (void)pad;
        };
        while (!q.enqueue(padded)) std::this_thread::yield();
      }
    }
  });
  stop.store(true);
  helper.join();
  q.open();
  ran += static_cast<long>(q.flush());
  EXPECT_EQ(ran, static_cast<long>(kProducers) * per);
  EXPECT_EQ(bad.load(), 0);
}

// Every caller delegates `per` operations tagged with its sequence number:
// each runs once, and in the caller's order; delegate_wait at the end sees
// all of the caller's own operations done.
template <class Lock>
void exactly_once_in_caller_order(weft::Runtime& rt, int per_worker, int threads, int per) {
  Lock qd;
  const int callers = rt.num_workers() * per_worker + threads;
  std::vector<int> last(static_cast<std::size_t>(callers), -1);
  long applied = 0;
  int out_of_order = 0;
  auto body = [&](int c, bool ult) {
    Rng rng(static_cast<std::uint64_t>(c) + 11);
    for (int i = 0; i < per; ++i) {
      auto op = [&, c, i] {
        if (last[static_cast<std::size_t>(c)] != i - 1) ++out_of_order;
        last[static_cast<std::size_t>(c)] = i;
        ++applied;
      };
      if (rng.below(8) == 0)
        qd.delegate_wait(op);
      else
        qd.delegate(op);
      if (ult) between_ops(rng, 60);
    }
    const int mine = qd.delegate_wait([&, c] { return last[static_cast<std::size_t>(c)]; });
    EXPECT_EQ(mine, per - 1);
  };
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) ts.emplace_back([&, t] { body(rt.num_workers() * per_worker + t, false); });
  run_ults(rt, per_worker, [&](int u) { body(u, true); });
  for (auto& t : ts) t.join();
  qd.lock();
  EXPECT_EQ(applied, static_cast<long>(callers) * per);
  EXPECT_EQ(out_of_order, 0);
  EXPECT_LE(qd.helped_operations(), qd.helping_rounds() * qd.capacity());
  qd.unlock();
}

TEST(QdLock, EveryDelegatedOperationRunsOnceInCallerOrder) {
  for (int workers : {1, 2}) {
    weft::Runtime rt(runtime_config(workers));
    exactly_once_in_caller_order<QdLock<>>(rt, 4, 2, scaled(3000, 300));
    exactly_once_in_caller_order<QdLock<4, 32>>(rt, 4, 2, scaled(1000, 100));  // a tiny queue: closes often
    exactly_once_in_caller_order<MrqdLock<>>(rt, 3, 1, scaled(1000, 100));
  }
}

// Fetch-and-add through delegate_wait: the results chain without a gap.
TEST(QdLock, DelegateWaitReturnsEachOperationsResult) {
  weft::Runtime rt(runtime_config(2));
  QdLock<> qd;
  std::uint64_t value = 0;
  std::vector<std::vector<Applied>> got(8);
  const int per = scaled(2000, 200);
  run_ults(rt, 4, [&](int u) {
    Rng rng(static_cast<std::uint64_t>(u) + 5);
    for (int i = 0; i < per; ++i) {
      const std::uint64_t inc = 1 + rng.below(100);
      const std::uint64_t before = qd.delegate_wait([&value, inc] {
        const std::uint64_t old = value;
        value += inc;
        return old;
      });
      got[static_cast<std::size_t>(u)].push_back({before, inc});
      between_ops(rng, 40);
    }
  });
  expect_exact_chain(concat(got), value);
}

// Nesting: an operation delegated by the lock's holder (from inside a
// delegated operation, or inside its own lock()/unlock()) runs at once,
// inline, exactly once; lock() by the holder is an error, not a deadlock.
TEST(QdLock, TheHoldersOwnDelegationsRunInline) {
  weft::Runtime rt(runtime_config(2));
  QdLock<64, 32> qd;
  long outer = 0, inner = 0;
  int depth = 0, ran_nested = 0;
  const int per = scaled(500, 60);
  run_ults(rt, 4, [&](int u) {
    Rng rng(static_cast<std::uint64_t>(u) + 9);
    for (int i = 0; i < per; ++i) {
      qd.delegate([&] {
        ++depth;
        ++outer;
        qd.delegate([&] {
          if (depth == 1) ++ran_nested;
          ++inner;
        });
        const long seen = qd.delegate_wait([&] { return inner; });
        if (seen != inner) ++ran_nested;  // impossible if it ran inline
        --depth;
      });
      between_ops(rng, 30);
    }
  });
  EXPECT_EQ(qd.delegate_wait([&] { return outer; }), 8L * per);
  qd.lock();
  EXPECT_EQ(inner, 8L * per);
  EXPECT_EQ(ran_nested, 8 * per);
  EXPECT_EQ(qd.delegate_wait([&] { return inner + 1; }), inner + 1);  // inside lock(): inline
  EXPECT_THROW(qd.lock(), std::logic_error);
  qd.unlock();
}

TEST(QdLock, DelegateWaitCarriesExceptionsBack) {
  QdLock<> qd;
  EXPECT_THROW(qd.delegate_wait([]() -> int { throw std::runtime_error("boom"); }), std::runtime_error);
  EXPECT_EQ(qd.delegate_wait([] { return 7; }), 7);
}

// Detached operations a caller issued are done when its later lock() returns.
TEST(QdLock, DetachedOperationsCompleteBeforeALaterLock) {
  weft::Runtime rt(runtime_config(2));
  QdLock<64, 32> qd;
  std::vector<int> count(8, 0);
  std::atomic<int> missing{0};
  const int rounds = scaled(300, 40);
  run_ults(rt, 4, [&](int u) {
    Rng rng(static_cast<std::uint64_t>(u));
    int expected = 0;
    for (int r = 0; r < rounds; ++r) {
      const int k = 1 + static_cast<int>(rng.below(5));
      for (int i = 0; i < k; ++i) qd.delegate([&count, u] { ++count[static_cast<std::size_t>(u)]; });
      expected += k;
      std::lock_guard g(qd);
      if (count[static_cast<std::size_t>(u)] != expected) missing.fetch_add(1);
    }
  });
  EXPECT_EQ(missing.load(), 0);
}

// While a plain critical section holds the lock, the queue is closed:
// delegators retry, wait for the release (try_lock_or_wait) and run their
// operations after it, exactly once.
TEST(QdLock, DelegatorsWaitOutAPlainCriticalSection) {
  weft::Runtime rt(runtime_config(2));
  QdLock<> qd;
  int value = 0;
  std::atomic<bool> held{false};
  std::thread holder([&] {
    qd.lock();
    held.store(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    value = 100;
    qd.unlock();
  });
  while (!held.load()) std::this_thread::yield();
  auto a = rt.spawn([&] { qd.delegate([&] { value += 1; }); });
  auto b = rt.spawn([&] { return qd.delegate_wait([&] { return value += 10; }); });
  std::thread c([&] { qd.delegate([&] { value += 1000; }); });
  a.join();
  const int seen_by_b = b.join();
  c.join();
  holder.join();
  EXPECT_GE(seen_by_b, 110);  // after the plain critical section
  qd.lock();
  EXPECT_EQ(value, 1111);
  qd.unlock();
}

// A priority queue behind a QD lock (the paper's §7.1 benchmark object):
// inserts detached, delete-mins waited for. Recorded histories must be
// linearizable against a sorted-multiset model.
struct PqOp {
  bool insert = false;
  int value = 0;
};
struct PqModel {
  using State = std::vector<int>;  // sorted
  using Op = PqOp;
  using Result = int;              // delete-min: the value, -1 if empty; insert: 0
  State init() const { return {}; }
  std::optional<State> step(const State& s, const Op& op, const Result& r) const {
    State next = s;
    if (op.insert) {
      next.insert(std::upper_bound(next.begin(), next.end(), op.value), op.value);
      return next;
    }
    if (next.empty()) return r == -1 ? std::optional<State>(next) : std::nullopt;
    if (r != next.front()) return std::nullopt;
    next.erase(next.begin());
    return next;
  }
  std::size_t hash(const State& s) const {
    std::size_t h = s.size();
    for (int v : s) h = h * 1000003u + static_cast<std::size_t>(v);
    return h;
  }
};

TEST(QdLock, PriorityQueueHistoriesAreLinearizable) {
  weft::Runtime rt(runtime_config(2));
  const int rounds = scaled(30, 6);
  for (int round = 0; round < rounds; ++round) {
    QdLock<16, 32> qd;
    std::priority_queue<int, std::vector<int>, std::greater<>> heap;
    constexpr int kOps = 12;
    HistoryRecorder<PqOp, int> rec(6, kOps);
    run_ults(rt, 3, [&](int u) {
      Rng rng(static_cast<std::uint64_t>(round * 31 + u));
      auto& log = rec.thread(static_cast<std::size_t>(u));
      for (int i = 0; i < kOps; ++i) {
        PqOp op{rng.below(2) == 0, static_cast<int>(rng.below(50))};
        log.call(op, [&] {
          if (op.insert) {
            qd.delegate([&heap, v = op.value] { heap.push(v); });
            return 0;
          }
          return qd.delegate_wait([&heap] {
            if (heap.empty()) return -1;
            const int v = heap.top();
            heap.pop();
            return v;
          });
        });
        between_ops(rng, 30);
      }
    });
    ASSERT_TRUE(linearizable(PqModel{}, rec.history())) << "round " << round;
  }
}

// MRQD (§6): a reader that follows its own delegated write sees it.
TEST(MrqdLock, ReadYourWritesAfterDelegate) {
  weft::Runtime rt(runtime_config(2));
  MrqdLock<> lock;
  std::vector<int> slots(8, 0);
  std::atomic<int> stale{0};
  const int per = scaled(1500, 150);
  run_ults(rt, 4, [&](int u) {
    Rng rng(static_cast<std::uint64_t>(u) + 2);
    for (int i = 1; i <= per; ++i) {
      lock.delegate([&slots, u, i] { slots[static_cast<std::size_t>(u)] = i; });
      std::shared_lock r(lock);
      if (slots[static_cast<std::size_t>(u)] != i) stale.fetch_add(1);
      r.unlock();
      between_ops(rng, 40);
    }
  });
  EXPECT_EQ(stale.load(), 0);
}

}  // namespace
