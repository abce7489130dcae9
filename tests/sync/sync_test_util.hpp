#pragma once
// Helpers shared by the sync tests: a cheap RNG, random local work between
// operations (the paper's "dummy loop iterations"), running n threads that
// start together or ULTs pinned to the workers of a runtime, recording a
// history of random operations, and the exactly-once checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <latch>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "weft/runtime.hpp"
#include "weft/sync/combining.hpp"
#include "weft/testing/linearizability.hpp"

namespace weft::sync::test {

// Sanitizer builds run the same tests with fewer iterations (TSan makes
// every atomic and every switch 5-20x slower).
#if defined(WEFT_TSAN) || defined(WEFT_ASAN)
inline constexpr int kSanitizerDivisor = 8;
#else
inline constexpr int kSanitizerDivisor = 1;
#endif
// n iterations, divided under a sanitizer (at least `floor`).
constexpr int scaled(int n, int floor = 1) {
  const int s = n / kSanitizerDivisor;
  return s < floor ? floor : s;
}

struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

// Up to `max_iters` dummy loop iterations.
inline void local_work(Rng& rng, unsigned max_iters) {
  const std::uint64_t n = rng.below(max_iters + 1);
  for (std::uint64_t i = 0; i < n; ++i) asm volatile("" ::: "memory");
}

// A runtime configuration with `workers` workers (the rest as default).
inline weft::Config runtime_config(int workers) {
  weft::Config c;
  c.workers = workers;
  return c;
}

// Random local work, and now and then a yield (so ULTs interleave at
// arbitrary points between requests, not only where a combining algorithm
// yields).
inline void between_ops(Rng& rng, unsigned max_work) {
  local_work(rng, max_work);
  if (rng.below(4) == 0) weft::this_ult::yield();
}

// Runs fn(thread_index) on n threads released at the same moment.
inline void run_threads(int n, const std::function<void(int)>& fn) {
  std::latch start(n);
  std::vector<std::thread> ts;
  ts.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    ts.emplace_back([&, i] {
      start.arrive_and_wait();
      fn(i);
    });
  for (auto& t : ts) t.join();
}

// Runs body(ult_index) on `per_worker` ULTs pinned to each of the runtime's
// workers; returns after all finished.
template <class F>
void run_ults(weft::Runtime& rt, int per_worker, F body) {
  std::vector<weft::Ult<void>> ults;
  const int workers = rt.num_workers();
  for (int w = 0; w < workers; ++w)
    for (int i = 0; i < per_worker; ++i) {
      const int idx = w * per_worker + i;
      ults.push_back(rt.spawn_on(w, [&body, idx] { body(idx); }));
    }
  for (auto& u : ults) u.join();
}

// Who runs the callers of record_history(): n std::threads, or `per_worker`
// ULTs on each worker of a runtime.
struct OnThreads {
  int n;
  int callers() const { return n; }
  void run(const std::function<void(int)>& fn) const { run_threads(n, fn); }
};
struct OnUlts {
  weft::Runtime& rt;
  int per_worker;
  int callers() const { return rt.num_workers() * per_worker; }
  template <class F>
  void run(F fn) const {
    run_ults(rt, per_worker, std::move(fn));
  }
};

// One recorded history: every caller takes a handle of `obj` and applies
// `ops` operations make_op(rng, caller, i), calling pause(rng) after each;
// caller c draws from Rng(seed + c).
template <class Obj, class Callers, class MakeOp, class Pause>
auto record_history(Obj& obj, const Callers& callers, int ops, std::uint64_t seed, MakeOp make_op, Pause pause) {
  using Op = typename Obj::Op;
  HistoryRecorder<Op, typename Obj::Result> rec(static_cast<std::size_t>(callers.callers()),
                                                static_cast<std::size_t>(ops));
  callers.run([&](int c) {
    auto h = obj.handle();
    Rng rng(seed + static_cast<std::uint64_t>(c));
    auto& log = rec.thread(static_cast<std::size_t>(c));
    for (int i = 0; i < ops; ++i) {
      const Op op = make_op(rng, c, i);
      log.call(op, [&] { return obj.apply(h, op); });
      pause(rng);
    }
  });
  return rec.history();
}

// Random queue and stack operations: 48% enqueues, 50% pushes.
template <class Op, class T>
Op random_queue_op(Rng& rng, T value) {
  return rng.below(100) < 48 ? Op::enqueue(value) : Op::dequeue();
}
template <class Op, class T>
Op random_stack_op(Rng& rng, T value) {
  return rng.below(2) ? Op::push(value) : Op::pop();
}

// The linearizability verdict as a gtest assertion (the checker's detail on
// failure).
template <class Model, class History>
::testing::AssertionResult linearizable(const Model& model, const History& hist) {
  const auto r = check_linearizability(model, hist);
  if (r.verdict == Verdict::linearizable) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r.detail;
}

// Histories of a bounded queue or stack C of capacity 5 (so that full and
// empty both happen), one fresh C per round: each caller applies `ops`
// random_queue_op/random_stack_op operations, its i-th value
// caller x value_scale + i; in round r caller c draws from
// Rng(r x seed_step + 1 + c). Every history must be linearizable;
// on_round(container, operations) may check more after each round.
struct ContainerHistories {
  int rounds;
  int ops;
  std::uint64_t seed_step;
  int value_scale;
};
template <class C, class Callers, class Pause, class OnRound = void (*)(C&, std::uint64_t)>
void container_histories(const Callers& callers, ContainerHistories run, Pause pause,
                         OnRound on_round = [](C&, std::uint64_t) {}) {
  using Op = typename C::Op;
  using T = decltype(Op::value);
  constexpr bool is_stack = requires { Op::push(T{}); };
  constexpr std::size_t cap = 5;
  for (int round = 0; round < run.rounds; ++round) {
    C c(cap);
    const auto hist = record_history(
        c, callers, run.ops, static_cast<std::uint64_t>(round) * run.seed_step + 1,
        [&](Rng& rng, int caller, int i) {
          const T value = static_cast<T>(caller * run.value_scale + i);
          if constexpr (is_stack)
            return random_stack_op<Op>(rng, value);
          else
            return random_queue_op<Op>(rng, value);
        },
        pause);
    if constexpr (is_stack)
      ASSERT_TRUE(linearizable(StackModel<T>(cap), hist)) << "history " << round;
    else
      ASSERT_TRUE(linearizable(QueueModel<T>(cap), hist)) << "history " << round;
    on_round(c, static_cast<std::uint64_t>(callers.callers()) * static_cast<std::uint64_t>(run.ops));
  }
}

// One handle, a queue of capacity 3: FIFO order, full and empty, and the
// ring wrapping around.
template <class Q>
void expect_single_handle_fifo(Q& q) {
  using T = decltype(Q::Op::value);
  auto h = q.handle();
  EXPECT_EQ(q.capacity(), 3u);
  EXPECT_FALSE(q.dequeue(h).has_value());
  for (T i = 0; i < 3; ++i) EXPECT_TRUE(q.enqueue(h, i));
  EXPECT_FALSE(q.enqueue(h, 99));
  for (T round = 0; round < 10; ++round) {  // wraps around the ring
    EXPECT_EQ(q.dequeue(h), std::optional<T>(round));
    EXPECT_TRUE(q.enqueue(h, round + 3));
  }
}

// One handle, a stack of capacity 2: LIFO order, full and empty.
template <class S>
void expect_single_handle_lifo(S& s) {
  auto h = s.handle();
  EXPECT_FALSE(s.pop(h).has_value());
  EXPECT_TRUE(s.push(h, 1));
  EXPECT_TRUE(s.push(h, 2));
  EXPECT_FALSE(s.push(h, 3));
  EXPECT_EQ(s.pop(h), std::optional<int>(2));
  EXPECT_EQ(s.pop(h), std::optional<int>(1));
  EXPECT_FALSE(s.pop(h).has_value());
}

// Fetch&Add with positive increments: results are distinct, and sorted by
// result every request's result plus its increment is the next result. That
// holds iff every request was applied exactly once, atomically.
struct Applied {
  std::uint64_t before;
  std::uint64_t inc;
};

// The chain starts at 0 and has no gap.
inline void expect_chain_from_zero(std::vector<Applied>& all) {
  std::sort(all.begin(), all.end(), [](const Applied& a, const Applied& b) { return a.before < b.before; });
  ASSERT_FALSE(all.empty());
  ASSERT_EQ(all.front().before, 0u);
  for (std::size_t i = 0; i + 1 < all.size(); ++i)
    ASSERT_EQ(all[i].before + all[i].inc, all[i + 1].before) << "at position " << i;
}
// ... and ends at the object's final value.
inline void expect_exact_chain(std::vector<Applied> all, std::uint64_t final_value) {
  ASSERT_NO_FATAL_FAILURE(expect_chain_from_zero(all));
  ASSERT_EQ(all.back().before + all.back().inc, final_value);
}

// The per-caller vectors in one.
template <class T>
std::vector<T> concat(const std::vector<std::vector<T>>& parts) {
  std::vector<T> all;
  for (const auto& v : parts) all.insert(all.end(), v.begin(), v.end());
  return all;
}

// Fetch&Add on `per_worker` ULTs per worker of `rt`: ULT u applies `ops`
// increments 1 + rng.below(100) drawn from Rng(u + 7), calling pause(rng)
// after each. Returns what every request saw.
template <class Obj, class Pause>
std::vector<Applied> ult_fetch_adds(weft::Runtime& rt, Obj& obj, int per_worker, int ops, Pause pause) {
  std::vector<std::vector<Applied>> got(static_cast<std::size_t>(rt.num_workers() * per_worker));
  run_ults(rt, per_worker, [&](int u) {
    auto h = obj.handle();
    Rng rng(static_cast<std::uint64_t>(u + 7));
    auto& mine = got[static_cast<std::size_t>(u)];
    mine.reserve(static_cast<std::size_t>(ops));
    for (int i = 0; i < ops; ++i) {
      const std::uint64_t inc = 1 + rng.below(100);
      mine.push_back({obj.apply(h, inc), inc});
      pause(rng);
    }
  });
  return concat(got);
}

// `all` holds 0, 1, ..., total - 1, each exactly once.
template <class T>
void expect_each_once(std::vector<T> all, std::size_t total) {
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), total);
  for (std::size_t i = 0; i < total; ++i) ASSERT_EQ(all[i], static_cast<T>(i));
}

// q.enqueue(h, v) as a bool: false when a bounded queue is full; an
// unbounded queue's enqueue (returning void) never fails.
template <class Q, class H, class T>
bool try_enqueue(Q& q, H& h, const T& v) {
  if constexpr (std::is_void_v<decltype(q.enqueue(h, v))>) {
    q.enqueue(h, v);
    return true;
  } else {
    return q.enqueue(h, v);
  }
}

// `producers` threads enqueue 0 .. producers x per_producer - 1 (producer p
// the p-th block), `consumers` threads dequeue until all came out: each value
// comes out once, a consumer sees each producer's values in order (FIFO), and
// the queue is empty at the end.
template <class T, class Q>
void queue_exactly_once(Q& q, int producers, int consumers, int per_producer) {
  const int n = producers + consumers;
  std::vector<std::vector<T>> got(static_cast<std::size_t>(n));
  std::atomic<int> consumed{0};
  const int total = producers * per_producer;
  run_threads(n, [&](int t) {
    auto h = q.handle();
    if (t < producers) {
      for (int i = 0; i < per_producer; ++i) {
        const T v = static_cast<T>(t * per_producer + i);
        while (!try_enqueue(q, h, v)) std::this_thread::yield();  // full
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
  ASSERT_NO_FATAL_FAILURE(expect_each_once(concat(got), static_cast<std::size_t>(total)));
  for (std::size_t c = static_cast<std::size_t>(producers); c < got.size(); ++c) {
    std::vector<std::int64_t> last(static_cast<std::size_t>(producers), -1);
    for (T v : got[c]) {
      const auto p = static_cast<std::size_t>(v / static_cast<T>(per_producer));
      ASSERT_GT(static_cast<std::int64_t>(v), last[p]);
      last[p] = static_cast<std::int64_t>(v);
    }
  }
  auto h = q.handle();
  EXPECT_FALSE(q.dequeue(h).has_value());
}

// `per_worker` ULTs on each worker of `rt` each enqueue `per` distinct values
// and dequeue one after each (yielding while full/empty): every value comes
// out exactly once.
template <class T, class Q>
void ult_queue_exactly_once(weft::Runtime& rt, Q& q, int per_worker, int per) {
  const int n = rt.num_workers() * per_worker;
  std::vector<std::vector<T>> got(static_cast<std::size_t>(n));
  run_ults(rt, per_worker, [&](int u) {
    auto h = q.handle();
    auto& mine = got[static_cast<std::size_t>(u)];
    for (int i = 0; i < per; ++i) {
      while (!try_enqueue(q, h, static_cast<T>(u * per + i))) weft::this_ult::yield();
      std::optional<T> v;
      while (!(v = q.dequeue(h))) weft::this_ult::yield();  // we enqueued first: never empty for long
      mine.push_back(*v);
    }
  });
  ASSERT_NO_FATAL_FAILURE(expect_each_once(concat(got), static_cast<std::size_t>(n * per)));
}

// k ULTs on ONE worker start together (a yield barrier), then each applies
// `ops` Fetch&Multiply requests (x 3) in a loop, with no yield of its own.
// Fair round-robin makes the schedule deterministic, so the combining degree
// is a property of the algorithm, not of timing. Returns obj.stats().
template <class Obj>
CombiningStats one_worker_degree(Obj& obj, int k, int ops) {
  weft::Config c;
  c.workers = 1;
  weft::Runtime rt(c);
  std::atomic<int> ready{0};
  run_ults(rt, k, [&](int) {
    auto h = obj.handle();
    ready.fetch_add(1, std::memory_order_relaxed);
    while (ready.load(std::memory_order_relaxed) < k) weft::this_ult::yield();
    for (int i = 0; i < ops; ++i) obj.apply(h, 3);
  });
  return obj.stats();
}

}  // namespace weft::sync::test
