// Every combining algorithm, run by 2-4 std::threads with random local work
// between operations: recorded histories are linearizable (Fetch&Multiply,
// FIFO queue, LIFO stack), and under stress every request is applied exactly
// once (Fetch&Add chain check), also with several objects per thread, handle
// churn and a small combining bound h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

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
#include "weft/sync/linearizability.hpp"
#include "weft/sync/lock_free_object.hpp"
#include "weft/sync/mutex_object.hpp"
#include "weft/sync/osci.hpp"
#include "weft/sync/oyama.hpp"

namespace ws = weft::sync;
using weft::sync::test::local_work;
using weft::sync::test::Rng;
using weft::sync::test::run_threads;

namespace {

template <class S, class W>
using MutexAlgo = ws::MutexObject<S>;
// Osci with 2-request nodes: exercises "node full, start from scratch".
template <class S, class W>
using OsciTiny = ws::Osci<S, W, 2>;
template <class S, class W>
using Osci = ws::Osci<S, W>;

// An algorithm with a waiting policy and the number of threads to run it with
// (spinning policies get no more threads than the machine's 2 cores).
template <template <class, class> class Algo, class Wait, int Threads, bool Generic = true>
struct Family {
  template <class S>
  using object = Algo<S, Wait>;
  static constexpr int threads = Threads;
  // false: only for objects whose state fits one atomic word (documentation).
  static constexpr bool generic = Generic;
};

template <class F>
class CombiningTest : public ::testing::Test {};

#define WEFT_SYNC_GENERIC_FAMILIES                                                                        \
  Family<ws::CCSynch, ws::SpinWait, 2>, Family<ws::CCSynch, ws::YieldWait, 4>, Family<ws::DSMSynch, ws::SpinWait, 2>, \
      Family<ws::DSMSynch, ws::YieldWait, 4>, Family<ws::HSynch, ws::SpinWait, 2>,                                  \
      Family<ws::HSynch, ws::YieldWait, 4>, Family<ws::FlatCombining, ws::SpinWait, 2>,                             \
      Family<ws::FlatCombining, ws::YieldWait, 4>, Family<ws::Oyama, ws::SpinWait, 2>,                              \
      Family<ws::Oyama, ws::YieldWait, 4>, Family<ws::ClhObject, ws::SpinWait, 2>,                                  \
      Family<ws::ClhObject, ws::SpinThenYieldWait<>, 3>, Family<MutexAlgo, ws::SpinWait, 4>,                        \
      Family<Osci, ws::SpinWait, 2>, Family<Osci, ws::YieldWait, 4>, Family<OsciTiny, ws::YieldWait, 4>

// Every algorithm (Fetch&Multiply, Fetch&Add) ...
using Families = ::testing::Types<WEFT_SYNC_GENERIC_FAMILIES, Family<ws::LockFreeObject, ws::SpinWait, 2, false>,
                                  Family<ws::LockFreeObject, ws::YieldWait, 4, false>>;
// ... and those that take any sequential object (queues, stacks).
using GenericFamilies = ::testing::Types<WEFT_SYNC_GENERIC_FAMILIES>;

template <class F>
class CombiningContainerTest : public ::testing::Test {};

class FamilyNames {
 public:
  template <class F>
  static std::string GetName(int i) {
    return std::to_string(i) + "_" + std::to_string(F::threads) + "threads";
  }
};
TYPED_TEST_SUITE(CombiningTest, Families, FamilyNames);
TYPED_TEST_SUITE(CombiningContainerTest, GenericFamilies, FamilyNames);

static_assert(ws::CombiningObject<ws::CCSynch<ws::FetchMultiply<double>>>);
static_assert(ws::CombiningObject<ws::DSMSynch<ws::BoundedQueue<int>, ws::YieldWait>>);
static_assert(ws::CombiningObject<ws::HSynch<ws::BoundedStack<int>>>);
static_assert(ws::CombiningObject<ws::FlatCombining<ws::FetchAdd<long>>>);
static_assert(ws::CombiningObject<ws::Oyama<ws::FetchMultiply<std::uint64_t>>>);
static_assert(ws::CombiningObject<ws::ClhObject<ws::FetchMultiply<std::uint64_t>>>);
static_assert(ws::CombiningObject<ws::LockFreeObject<ws::FetchMultiply<double>>>);
static_assert(ws::CombiningObject<ws::MutexObject<ws::BoundedQueue<int>>>);
static_assert(ws::CombiningObject<ws::Osci<ws::FetchMultiply<std::uint64_t>>>);

template <class Obj>
void expect_stats_count(Obj& obj, std::uint64_t total) {
  if constexpr (requires { obj.stats(); }) {
    const ws::CombiningStats s = obj.stats();
    EXPECT_EQ(s.requests, total) << "every request is applied by exactly one combiner";
    EXPECT_GE(s.rounds, 1u);
    EXPECT_LE(s.rounds, total);
  }
}

// Runs `histories` rounds; in each, F::threads threads perform `ops` random
// operations (from make_op) on a fresh object and the history is checked.
template <class F, class Seq, class Model, class MakeOp, class MakeSeq>
void check_histories(int histories, int ops, const Model& model, MakeSeq make_seq, MakeOp make_op,
                     unsigned max_work) {
  using Obj = typename F::template object<Seq>;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;
  const int n = F::threads;
  std::size_t total_configs = 0;
  for (int round = 0; round < histories; ++round) {
    Obj obj(make_seq());
    ws::HistoryRecorder<Op, Result> rec(static_cast<std::size_t>(n), static_cast<std::size_t>(ops));
    run_threads(n, [&](int t) {
      auto h = obj.handle();
      Rng rng(static_cast<std::uint64_t>(round * 97 + t + 1));
      auto& log = rec.thread(static_cast<std::size_t>(t));
      for (int i = 0; i < ops; ++i) {
        const Op op = make_op(rng, t, i);
        log.call(op, [&] { return obj.apply(h, op); });
        local_work(rng, max_work);
      }
    });
    const auto hist = rec.history();
    const auto r = ws::check_linearizability(model, hist);
    ASSERT_EQ(r.verdict, ws::Verdict::linearizable) << "history " << round << ": " << r.detail;
    total_configs += r.configurations;
    expect_stats_count(obj, hist.size());
  }
  ::testing::Test::RecordProperty("checker_configurations", static_cast<int>(total_configs));
}

}  // namespace

TYPED_TEST(CombiningTest, FetchMultiplyHistoriesAreLinearizable) {
  using Seq = ws::FetchMultiply<std::uint64_t>;
  check_histories<TypeParam, Seq>(
      300, 100, ws::FetchMultiplyModel<std::uint64_t>{}, [] { return Seq{}; },
      [](Rng& rng, int, int) -> std::uint64_t { return rng.next() | 1u; },  // odd: never reaches 0
      256);
}

TYPED_TEST(CombiningContainerTest, QueueHistoriesAreLinearizable) {
  using Seq = ws::BoundedQueue<int>;
  constexpr std::size_t cap = 6;  // small: full and empty both happen
  check_histories<TypeParam, Seq>(
      250, 80, ws::QueueModel<int>(cap), [] { return Seq(cap); },
      [](Rng& rng, int t, int i) {
        return rng.below(100) < 48 ? Seq::Op::enqueue(t * 100000 + i) : Seq::Op::dequeue();
      },
      256);
}

TYPED_TEST(CombiningContainerTest, StackHistoriesAreLinearizable) {
  using Seq = ws::BoundedStack<int>;
  constexpr std::size_t cap = 6;
  check_histories<TypeParam, Seq>(
      250, 80, ws::StackModel<int>(cap), [] { return Seq(cap); },
      [](Rng& rng, int t, int i) { return rng.below(100) < 50 ? Seq::Op::push(t * 100000 + i) : Seq::Op::pop(); },
      256);
}

namespace {

// Fetch&Add with positive increments: results are distinct, and sorted by
// result every request's result plus its increment is the next result. That
// holds iff every request was applied exactly once, atomically.
struct Applied {
  std::uint64_t before;
  std::uint64_t inc;
};

void expect_exact_chain(std::vector<Applied> all, std::uint64_t final_value) {
  std::sort(all.begin(), all.end(), [](const Applied& a, const Applied& b) { return a.before < b.before; });
  ASSERT_FALSE(all.empty());
  ASSERT_EQ(all.front().before, 0u);
  for (std::size_t i = 0; i + 1 < all.size(); ++i)
    ASSERT_EQ(all[i].before + all[i].inc, all[i + 1].before) << "at position " << i;
  ASSERT_EQ(all.back().before + all.back().inc, final_value);
}

template <class F>
void exactly_once_stress(int objects, int ops_per_thread, ws::CombiningConfig cfg, int handle_churn_every) {
  using Seq = ws::FetchAdd<std::uint64_t>;
  using Obj = typename F::template object<Seq>;
  const int n = F::threads;
  std::vector<std::unique_ptr<Obj>> objs;
  for (int o = 0; o < objects; ++o) objs.push_back(std::make_unique<Obj>(Seq{}, cfg));
  // results[o][t]: what thread t saw on object o.
  std::vector<std::vector<std::vector<Applied>>> results(
      static_cast<std::size_t>(objects), std::vector<std::vector<Applied>>(static_cast<std::size_t>(n)));
  for (auto& per_obj : results)
    for (auto& v : per_obj) v.reserve(static_cast<std::size_t>(ops_per_thread));
  run_threads(n, [&](int t) {
    std::vector<typename Obj::Handle> hs;
    for (auto& o : objs) hs.push_back(o->handle());
    Rng rng(static_cast<std::uint64_t>(1000 + t));
    for (int i = 0; i < ops_per_thread; ++i) {
      const std::size_t o = static_cast<std::size_t>(i % objects);
      if (handle_churn_every && i % handle_churn_every == handle_churn_every - 1)
        hs[o] = objs[o]->handle();  // destroys the old handle, takes a new one
      const std::uint64_t inc = 1 + rng.below(1000);
      const std::uint64_t before = objs[o]->apply(hs[o], inc);
      results[o][static_cast<std::size_t>(t)].push_back({before, inc});
      local_work(rng, 64);
    }
  });
  for (int o = 0; o < objects; ++o) {
    std::vector<Applied> all;
    for (const auto& v : results[static_cast<std::size_t>(o)]) all.insert(all.end(), v.begin(), v.end());
    auto h = objs[static_cast<std::size_t>(o)]->handle();
    const std::uint64_t final_value = objs[static_cast<std::size_t>(o)]->apply(h, 0);
    expect_exact_chain(std::move(all), final_value);
    std::uint64_t applied = 1;  // the final read
    for (auto& v : results[static_cast<std::size_t>(o)]) applied += v.size();
    expect_stats_count(*objs[static_cast<std::size_t>(o)], applied);
  }
}

}  // namespace

TYPED_TEST(CombiningTest, ExactlyOnceUnderStress) {
  exactly_once_stress<TypeParam>(1, 200000, {}, 0);
}

TYPED_TEST(CombiningTest, ExactlyOnceWithSeveralObjectsHandleChurnAndSmallBound) {
  exactly_once_stress<TypeParam>(2, 100000, ws::CombiningConfig{.max_combine = 2}, 997);
}

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
