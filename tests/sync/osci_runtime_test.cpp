// Osci and the baselines on the weft runtime: many ULTs per worker, waiting
// by fair yield (the setting of the paper's Table 2 and Figures 2-5), and
// Osci's batching property (the director's yield lets every ULT of the core
// record in its node) against CC-Synch under the same load.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sync_test_util.hpp"
#include "weft/runtime.hpp"
#include "weft/sync/ccsynch.hpp"
#include "weft/sync/combining_queue.hpp"
#include "weft/sync/fetch_multiply.hpp"
#include "weft/sync/hsynch.hpp"
#include "weft/sync/osci.hpp"
#include "weft/testing/linearizability.hpp"

namespace ws = weft::sync;
using namespace weft::sync::test;  // sync_test_util.hpp

namespace {

constexpr int kWorkers = 2;

weft::Config config() {
  weft::Config c;
  c.workers = kWorkers;
  return c;
}

template <class Obj>
void fetch_multiply_histories(int per_worker, int ops, int histories) {
  weft::Runtime rt(config());
  const int n = kWorkers * per_worker;
  for (int round = 0; round < histories; ++round) {
    Obj obj;
    const auto hist = record_history(
        obj, OnUlts{rt, per_worker}, ops, static_cast<std::uint64_t>(round * 1009 + 1),
        [](Rng& rng, int, int) -> std::uint64_t { return rng.next() | 1u; },
        [](Rng& rng) { local_work(rng, 512); });
    ASSERT_TRUE(linearizable(ws::FetchMultiplyModel<std::uint64_t>{}, hist)) << "history " << round;
    ASSERT_EQ(obj.stats().requests, static_cast<std::uint64_t>(n * ops));
  }
}

template <class Obj>
void exactly_once(int per_worker, int ops) {
  weft::Runtime rt(config());
  const int n = kWorkers * per_worker;
  Obj obj;
  std::vector<Applied> all =
      ult_fetch_adds(rt, obj, per_worker, ops, [](Rng& rng) { local_work(rng, 128); });
  ASSERT_EQ(all.size(), static_cast<std::size_t>(n * ops));
  ASSERT_NO_FATAL_FAILURE(expect_chain_from_zero(all));
  const ws::CombiningStats s = obj.stats();
  EXPECT_EQ(s.requests, static_cast<std::uint64_t>(n * ops));
  ::testing::Test::RecordProperty("combining_degree", std::to_string(s.degree()));
}

template <class S>
using OsciY = ws::Osci<S, ws::YieldWait>;

}  // namespace

TEST(OsciRuntime, WorkerIndexAndYieldComeFromTheRuntime) {
  weft::Runtime rt(config());
  for (int w = 0; w < kWorkers; ++w) EXPECT_EQ(rt.spawn_on(w, [] { return ws::current_worker_index(); }).join(), w);
  EXPECT_EQ(ws::current_worker_index(), -1);
}

TEST(OsciRuntime, FetchMultiplyHistoriesLinearizable16UltsPerWorker) {
  fetch_multiply_histories<ws::Osci<ws::FetchMultiply<std::uint64_t>>>(16, 40, 40);
}
TEST(OsciRuntime, FetchMultiplyHistoriesLinearizableSmallNodes) {
  fetch_multiply_histories<ws::Osci<ws::FetchMultiply<std::uint64_t>, ws::YieldWait, 3>>(8, 40, 40);
}
TEST(OsciRuntime, ExactlyOnce32UltsPerWorker) { exactly_once<ws::Osci<ws::FetchAdd<std::uint64_t>>>(32, 3000); }
TEST(OsciRuntime, CCSynchWithYieldExactlyOnce) {
  exactly_once<ws::CCSynch<ws::FetchAdd<std::uint64_t>, ws::YieldWait>>(16, 3000);
}
TEST(OsciRuntime, HSynchWithYieldHistories) {
  fetch_multiply_histories<ws::HSynch<ws::FetchMultiply<std::uint64_t>, ws::YieldWait>>(8, 40, 30);
}

TEST(OsciRuntime, OsciQueueHistoriesLinearizable) {
  // OsciQueue (paper §6): the two-instance queue with Osci as the combiner.
  weft::Runtime rt(config());
  container_histories<ws::CombiningQueue<int, OsciY>>(
      OnUlts{rt, 3}, {.rounds = 60, .ops = 40, .seed_step = 17, .value_scale = 1000},
      [](Rng& rng) { local_work(rng, 256); });
}

TEST(OsciRuntime, OsciQueueExactlyOnce) {
  weft::Runtime rt(config());
  ws::CombiningQueue<int, OsciY> q(256);
  ult_queue_exactly_once<int>(rt, q, 16, 2000);
}

// The paper's batching (Algorithm 1, lines 9-13): the director opens its
// node's door and yields; every other ULT of the core runs once, records its
// request in the same node and waits; the director closes the door and
// appends the whole batch with one Swap. So with k ULTs on a worker nearly
// every combining turn serves k requests. CC-Synch with the same yield-based
// waiting has no such step: a ULT that finds the lock free serves only
// itself and keeps the worker, so its degree stays near 1.
TEST(OsciRuntime, DirectorYieldBatchesAllUltsOfTheWorker) {
  constexpr int k = 16;
  const int ops = scaled(2000, 200);
  ws::Osci<ws::FetchMultiply<std::uint64_t>, ws::YieldWait> osci_obj;
  const ws::CombiningStats osci = one_worker_degree(osci_obj, k, ops);
  ws::CCSynch<ws::FetchMultiply<std::uint64_t>, ws::YieldWait> cc_obj;
  const ws::CombiningStats cc = one_worker_degree(cc_obj, k, ops);
  ::testing::Test::RecordProperty("osci_degree", std::to_string(osci.degree()));
  ::testing::Test::RecordProperty("ccsynch_degree", std::to_string(cc.degree()));
  EXPECT_EQ(osci.requests, static_cast<std::uint64_t>(k * ops));
  EXPECT_EQ(cc.requests, static_cast<std::uint64_t>(k * ops));
  EXPECT_GE(osci.degree(), k / 2.0) << "the director's yield should batch the requests of all ULTs of the core";
  EXPECT_LE(cc.degree(), 2.0);
  EXPECT_GE(osci.degree(), 4 * cc.degree());
}
