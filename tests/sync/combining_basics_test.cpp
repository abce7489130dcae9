// Combining basics: every algorithm meets the CombiningObject concept, single
// thread semantics, H-Synch clusters, the yield hook, and the linearizability
// pipeline itself (a deliberately racy object must be caught).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>

#include "sync_test_util.hpp"
#include "weft/sync/bounded_queue.hpp"
#include "weft/sync/bounded_stack.hpp"
#include "weft/sync/ccsynch.hpp"
#include "weft/sync/clh_lock.hpp"
#include "weft/sync/combining.hpp"
#include "weft/sync/dsmsynch.hpp"
#include "weft/sync/fetch_multiply.hpp"
#include "weft/sync/flat_combining.hpp"
#include "weft/sync/hsynch.hpp"
#include "weft/sched/topology.hpp"
#include "weft/sync/lock_free_object.hpp"
#include "weft/sync/mutex_object.hpp"
#include "weft/sync/osci.hpp"
#include "weft/sync/oyama.hpp"
#include "weft/sync/psim.hpp"
#include "weft/testing/linearizability.hpp"

namespace ws = weft::sync;
using weft::sync::test::Rng;
using weft::sync::test::run_threads;

static_assert(ws::CombiningObject<ws::CCSynch<ws::FetchMultiply<double>>>);
static_assert(ws::CombiningObject<ws::DSMSynch<ws::BoundedQueue<int>, ws::YieldWait>>);
static_assert(ws::CombiningObject<ws::HSynch<ws::BoundedStack<int>>>);
static_assert(ws::CombiningObject<ws::FlatCombining<ws::FetchAdd<long>>>);
static_assert(ws::CombiningObject<ws::Oyama<ws::FetchMultiply<std::uint64_t>>>);
static_assert(ws::CombiningObject<ws::ClhObject<ws::FetchMultiply<std::uint64_t>>>);
static_assert(ws::CombiningObject<ws::LockFreeObject<ws::FetchMultiply<double>>>);
static_assert(ws::CombiningObject<ws::MutexObject<ws::BoundedQueue<int>>>);
static_assert(ws::CombiningObject<ws::Osci<ws::FetchMultiply<std::uint64_t>>>);
static_assert(ws::CombiningObject<ws::PSim<ws::FetchMultiply<std::uint64_t>>>);
static_assert(ws::CombiningObject<ws::CCSynch<ws::InlineQueue<int, 4>>>);

TEST(CombiningBasics, SingleThreadSemantics) {
  ws::CCSynch<ws::BoundedQueue<int>> q(ws::BoundedQueue<int>(2));
  auto h = q.handle();
  EXPECT_TRUE(q.apply(h, ws::QueueOp<int>::enqueue(1)).ok);
  EXPECT_TRUE(q.apply(h, ws::QueueOp<int>::enqueue(2)).ok);
  EXPECT_FALSE(q.apply(h, ws::QueueOp<int>::enqueue(3)).ok);
  EXPECT_EQ(q.apply(h, ws::QueueOp<int>::dequeue()), (ws::QueueResult<int>{true, 1}));
  EXPECT_EQ(q.apply(h, ws::QueueOp<int>::dequeue()), (ws::QueueResult<int>{true, 2}));
  EXPECT_FALSE(q.apply(h, ws::QueueOp<int>::dequeue()).ok);

  ws::LockFreeObject<ws::FetchMultiply<double>> f(ws::FetchMultiply<double>{2.0});
  ws::LockFreeObject<ws::FetchMultiply<double>>::Handle fh = f.handle();
  EXPECT_EQ(f.apply(fh, 3.0), 2.0);
  EXPECT_EQ(f.apply(fh, 0.5), 6.0);
  EXPECT_EQ(f.load().value, 3.0);
}

TEST(CombiningBasics, HSynchClusters) {
  ws::HSynch<ws::FetchAdd<int>> obj(ws::FetchAdd<int>{}, ws::HSynchConfig{.clusters = 3, .cluster_of = [](int w) {
                                                                             return w / 2;
                                                                           }});
  EXPECT_EQ(obj.clusters(), 3);
  auto a = obj.handle_in_cluster(4);
  EXPECT_EQ(a.cluster(), 1);
  auto b = obj.handle_in_cluster(-1);
  EXPECT_EQ(b.cluster(), 2);
  EXPECT_EQ(obj.apply(a, 5), 0);
  EXPECT_EQ(obj.apply(b, 1), 5);
  // Moving a handle keeps it usable; the moved-from one is empty.
  auto c = std::move(a);
  EXPECT_EQ(obj.apply(c, 1), 6);
}

TEST(CombiningBasics, HSynchClustersAreTheTopologysSockets) {
  // 2 sockets x 2 cores: OS CPUs 0,1 on socket 0 and 2,3 on socket 1.
  const auto topo = weft::sched::Topology::from_hwloc_synthetic("pack:2 core:2 pu:1");
  ws::HSynchConfig cfg = ws::HSynchConfig::sockets(topo, {3, 0, 2, 1, -1});
  EXPECT_EQ(cfg.clusters, 2);
  EXPECT_EQ(cfg.cluster_of(0), 1);  // worker 0 on CPU 3
  EXPECT_EQ(cfg.cluster_of(1), 0);
  EXPECT_EQ(cfg.cluster_of(2), 1);
  EXPECT_EQ(cfg.cluster_of(3), 0);
  EXPECT_EQ(cfg.cluster_of(4), 0);   // unpinned worker
  EXPECT_EQ(cfg.cluster_of(-1), 0);  // a plain thread
  ws::HSynch<ws::FetchAdd<int>> obj(ws::FetchAdd<int>{}, std::move(cfg));
  EXPECT_EQ(obj.clusters(), 2);
}

TEST(CombiningBasics, YieldHookIsUsed) {
  static std::atomic<int> calls{0};
  ws::set_yield_hook([] {
    calls.fetch_add(1, std::memory_order_relaxed);
    std::this_thread::yield();
  });
  // A waiting YieldWait loop calls the hook until the flag flips.
  std::atomic<bool> flag{false};
  std::thread t([&] {
    while (calls.load(std::memory_order_relaxed) < 3) std::this_thread::yield();
    flag.store(true, std::memory_order_release);
  });
  ws::wait_until<ws::YieldWait>([&] { return flag.load(std::memory_order_acquire); });
  t.join();
  ws::set_yield_hook(nullptr);
  EXPECT_GE(calls.load(), 3);
}

namespace {

// A deliberately wrong object (read and write in two critical sections, so
// updates get lost): the recording + checking pipeline must notice.
struct LostUpdateFetchMultiply {
  using Sequential = ws::FetchMultiply<std::uint64_t>;
  using Op = std::uint64_t;
  using Result = std::uint64_t;
  struct Handle {};
  Handle handle() { return {}; }
  Result apply(Handle&, const Op& k) {
    std::uint64_t v;
    {
      std::lock_guard lk(m);
      v = seq.value;
    }
    std::this_thread::yield();
    std::lock_guard lk(m);
    seq.value = v * k;
    return v;
  }
  std::mutex m;
  Sequential seq;
};

}  // namespace

TEST(CombiningBasics, CheckerCatchesLostUpdates) {
  int bad = 0;
  for (int round = 0; round < 200 && bad == 0; ++round) {
    LostUpdateFetchMultiply obj;
    ws::HistoryRecorder<std::uint64_t, std::uint64_t> rec(2, 50);
    run_threads(2, [&](int t) {
      auto h = obj.handle();
      Rng rng(static_cast<std::uint64_t>(round * 7 + t + 1));
      for (int i = 0; i < 50; ++i) {
        const std::uint64_t k = rng.next() | 1u;
        rec.thread(static_cast<std::size_t>(t)).call(k, [&] { return obj.apply(h, k); });
      }
    });
    const auto r = ws::check_linearizability(ws::FetchMultiplyModel<std::uint64_t>{}, rec.history());
    EXPECT_NE(r.verdict, ws::Verdict::gave_up);
    if (r.verdict == ws::Verdict::not_linearizable) ++bad;
  }
  EXPECT_GT(bad, 0) << "200 racy histories all passed: the checker is blind";
}
