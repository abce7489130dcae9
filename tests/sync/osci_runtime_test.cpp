// Osci and the baselines on the weft runtime: many ULTs per worker, waiting
// by fair yield (the setting of the paper's Table 2 and Figures 2-5), and
// Osci's batching property (the director's yield lets every ULT of the core
// record in its node) against CC-Synch under the same load.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
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

// A counter whose requests and responses are strings that own memory (an
// argument's text comes back as its response's echo).
struct EchoLog {
  using Op = std::string;
  struct Result {
    std::string echo;
    std::uint64_t before = 0;
  };
  std::uint64_t length = 0;
  Result apply(const std::string& text) {
    Result r{text, length};
    length += text.size();
    return r;
  }
};

// A counter whose argument is one byte and whose response is 24.
struct WideSum {
  using Op = std::uint8_t;
  struct Result {
    std::uint64_t before = 0;
    std::uint64_t inc = 0;
    std::uint64_t after = 0;
  };
  std::uint64_t total = 0;
  Result apply(std::uint8_t inc) noexcept {
    const Result r{total, inc, total + inc};
    total += inc;
    return r;
  }
};

// Every ULT applies `ops` requests made by `make(rng, u, i)`; `check(op,
// result)` returns the Applied step it saw (and fails the test on a response
// that is not its own); the steps must chain from zero.
template <class Seq, class Make, class Check>
void own_responses(int per_worker, int ops, Make make, Check check) {
  weft::Runtime rt(config());
  OsciY<Seq> obj;
  std::vector<std::vector<Applied>> got(static_cast<std::size_t>(kWorkers * per_worker));
  run_ults(rt, per_worker, [&](int u) {
    auto h = obj.handle();
    Rng rng(static_cast<std::uint64_t>(u + 3));
    for (int i = 0; i < ops; ++i) {
      const typename Seq::Op op = make(rng, u, i);
      got[static_cast<std::size_t>(u)].push_back(check(op, obj.apply(h, op)));
      if (rng.below(4) == 0) weft::this_ult::yield();
    }
  });
  std::vector<Applied> all = concat(got);
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kWorkers * per_worker * ops));
  ASSERT_NO_FATAL_FAILURE(expect_chain_from_zero(all));
}

// Callers of record_history(): `per_worker` ULTs on each worker and, at the
// same time, `threads` plain threads.
struct OnUltsAndThreads {
  weft::Runtime& rt;
  int per_worker;
  int threads;
  int callers() const { return rt.num_workers() * per_worker + threads; }
  void run(const std::function<void(int)>& fn) const {
    const int ults = rt.num_workers() * per_worker;
    std::thread plain([&] { run_threads(threads, [&](int t) { fn(ults + t); }); });
    run_ults(rt, per_worker, fn);
    plain.join();
  }
};

// Osci with `cores` Announce slots, called at once by ULTs of both workers
// and by plain threads, with random yields: every history linearizable.
void mixed_caller_histories(int cores, int histories) {
  weft::Runtime rt(config());
  const OnUltsAndThreads callers{rt, 6, 2};
  constexpr int ops = 40;
  for (int round = 0; round < histories; ++round) {
    OsciY<ws::FetchMultiply<std::uint64_t>> obj(ws::FetchMultiply<std::uint64_t>{}, ws::OsciConfig{.cores = cores});
    const auto hist = record_history(
        obj, callers, ops, static_cast<std::uint64_t>(round * 31 + 5),
        [](Rng& rng, int, int) -> std::uint64_t { return rng.next() | 1u; },
        [](Rng& rng) {
          local_work(rng, 256);
          if (rng.below(4) == 0) weft::this_ult::yield();
        });
    ASSERT_TRUE(linearizable(ws::FetchMultiplyModel<std::uint64_t>{}, hist)) << "history " << round;
    ASSERT_EQ(obj.stats().requests, static_cast<std::uint64_t>(callers.callers() * ops));
  }
}

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
// Requests and responses of any copyable type travel through the fat nodes'
// slots: each caller gets the response to its own argument.
TEST(OsciRuntime, EachCallerGetsItsOwnResponseWhateverItsTypes) {
  own_responses<EchoLog>(
      8, 300,
      [](Rng& rng, int u, int i) {  // longer than the small-string buffer
        return "ult " + std::to_string(u) + " request " + std::to_string(i) + std::string(rng.below(24), '.');
      },
      [](const std::string& text, const EchoLog::Result& r) {
        EXPECT_EQ(r.echo, text);
        return Applied{r.before, text.size()};
      });
  own_responses<WideSum>(
      8, 300, [](Rng& rng, int, int) { return static_cast<std::uint8_t>(1 + rng.below(255)); },
      [](std::uint8_t inc, const WideSum::Result& r) {
        EXPECT_EQ(r.inc, inc);
        EXPECT_EQ(r.after, r.before + inc);
        return Applied{r.before, inc};
      });
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

// A director on a worker records its ULTs' requests without the door's CAS,
// so no other caller may record in its node: here both workers and two plain
// threads share one Announce slot (cores = 1); with two slots the plain
// threads share the workers' (their ordinals modulo 2).
TEST(OsciRuntime, WorkersAndPlainThreadsSharingAnnounceSlotsStayLinearizable) {
  mixed_caller_histories(1, 30);
  mixed_caller_histories(2, 30);
}

// A recorder whose node was served but who has not run since (released, not
// yet rescheduled) must still read its own response: its director may not
// reuse the node until it has. On one worker: director D's node A holds R's
// request; a yield hook keeps R from running its check while D serves A,
// directs its other node B and comes back to A with a third ULT, R2, ready
// to record in A's second slot, R's. D's first pause in that turn lets R go.
// Without the wait, D publishes A at once and R2's request takes R's slot
// (R then reads the response to R2's request); with it, R reads 2, the value
// D's request left.
namespace {
namespace slow_reader {
std::atomic<std::uint64_t> held{0};      // the ULT the hook keeps from running its check
std::atomic<std::uint64_t> director{0};  // D
std::atomic<bool> let_go_at_director_pause{false};
void hook() {
  const std::uint64_t me = weft::this_ult::id();
  if (me == director.load() && let_go_at_director_pause.exchange(false)) held.store(0);
  while (me == held.load()) weft::this_ult::yield();
  weft::this_ult::yield();
}
}  // namespace slow_reader
}  // namespace

TEST(OsciRuntime, DirectorDoesNotReuseANodeBeforeEveryRecorderReadItsResponse) {
  using slow_reader::held;
  weft::Config c;
  c.workers = 1;
  weft::Runtime rt(c);
  ws::Osci<ws::FetchMultiply<std::uint64_t>, ws::YieldWait> obj;
  std::atomic<int> phase{0};
  std::uint64_t d1 = 0, d2 = 0, d3 = 0, r = 0, r2 = 0;
  bool paused_in_third_turn = false;
  held.store(0);
  ws::set_yield_hook(&slow_reader::hook);
  rt.spawn_on(0, [&] {
    slow_reader::director.store(weft::this_ult::id());
    auto h = obj.handle();
    auto reader = weft::spawn([&] {
      auto hr = obj.handle();
      while (phase.load() < 1) weft::this_ult::yield();  // until D directs A
      held.store(weft::this_ult::id());
      r = obj.apply(hr, 3);  // records in A, then is held
    });
    auto late = weft::spawn([&] {
      auto h2 = obj.handle();
      while (phase.load() < 3) weft::this_ult::yield();  // until D's third turn
      r2 = obj.apply(h2, 11);
    });
    phase.store(1);
    d1 = obj.apply(h, 2);  // directs A, R records in it
    phase.store(2);
    d2 = obj.apply(h, 5);  // directs B alone
    slow_reader::let_go_at_director_pause.store(true);
    phase.store(3);
    d3 = obj.apply(h, 7);  // directs A again
    paused_in_third_turn = !slow_reader::let_go_at_director_pause.exchange(false);
    held.store(0);  // (had D not paused, R would still be held)
    reader.join();
    late.join();
  }).join();
  ws::set_yield_hook(nullptr);
  EXPECT_TRUE(paused_in_third_turn) << "D never paused in its third turn";
  EXPECT_EQ(d1, 1u);
  EXPECT_EQ(r, 2u) << "R read a response that was not its own: its slot was reused before it read it";
  EXPECT_EQ(d2, 6u);
  EXPECT_TRUE((d3 == 30u && r2 == 210u) || (r2 == 30u && d3 == 330u)) << "d3 " << d3 << ", r2 " << r2;
  EXPECT_EQ(obj.unsafe_object().value, 2u * 3 * 5 * 7 * 11);
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
