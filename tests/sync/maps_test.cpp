// The OPTIK lock (thesis §6.3), the OPTIK list and hash table (§6.4-6.5) and
// CLHT-LB with resizing (§6.2), plus the typed ClhtMap: sequential
// semantics, reserved keys rejected, linearizable get/put/remove histories
// from threads and from ULTs on 2 workers with random yields, every key
// removed exactly once under contention, and CLHT resizing while ULTs and
// threads update and read it.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sync_test_util.hpp"
#include "weft/runtime.hpp"
#include "weft/sync/clht.hpp"
#include "weft/sync/clht_map.hpp"
#include "weft/sync/optik.hpp"
#include "weft/sync/optik_list.hpp"
#include "weft/testing/linearizability.hpp"

namespace ws = weft::sync;
using ws::test::Rng;
using ws::test::scaled;

namespace {

TEST(OptikLock, VersionedTrylockRevertAndUnlock) {
  ws::OptikLock l;
  const auto v0 = l.get_version();
  EXPECT_FALSE(l.is_locked());
  EXPECT_TRUE(l.trylock_version(v0));
  EXPECT_TRUE(l.is_locked());
  EXPECT_FALSE(l.trylock_version(v0));      // held
  EXPECT_FALSE(l.trylock_version(v0 + 1));  // an odd (locked) version never validates
  l.revert();                               // released as unmodified
  EXPECT_TRUE(l.is_same_version(v0));
  EXPECT_TRUE(l.trylock_version(v0));
  l.unlock();  // modified: a new version
  EXPECT_FALSE(l.is_same_version(v0));
  EXPECT_FALSE(l.trylock_version(v0));  // stale version: validation fails
  EXPECT_FALSE(l.lock_version(v0));     // acquires, but reports the change
  l.unlock();
  const auto v = l.get_version_wait();
  EXPECT_TRUE(l.lock_version(v));
  l.unlock();
}

// The OPTIK pattern's guarantee: a critical section validated against the
// version read before some optimistic reads sees those reads unchanged.
TEST(OptikLock, ValidatedSectionsAreAtomic) {
  ws::OptikLock l;
  // Invariant: pair[0] == pair[1]. Relaxed atomics: the optimistic read
  // races with writers by design (the version check makes it safe).
  std::array<std::atomic<std::uint64_t>, 2> pair{};
  std::atomic<int> failures{0};
  ws::test::run_threads(3, [&](int) {
    for (int i = 0; i < scaled(20000, 1000); ++i) {
      for (;;) {
        const auto v = l.get_version_wait();
        const std::uint64_t a = pair[0].load(std::memory_order_relaxed);  // optimistic read
        if (!l.trylock_version(v)) continue;
        if (pair[0].load(std::memory_order_relaxed) != a || pair[1].load(std::memory_order_relaxed) != a)
          failures.fetch_add(1);
        pair[0].store(a + 1, std::memory_order_relaxed);
        pair[1].store(a + 1, std::memory_order_relaxed);
        l.unlock();
        break;
      }
    }
  });
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(pair[0].load(), std::uint64_t(3 * scaled(20000, 1000)));
}

// One interface for the three word maps.
struct ListMap {
  ws::OptikList m;
  explicit ListMap(std::size_t) {}
  auto get(std::uint64_t k) { return m.get(k); }
  bool put(std::uint64_t k, std::uint64_t v) { return m.insert(k, v); }
  auto remove(std::uint64_t k) { return m.remove(k); }
  auto& raw() { return m; }
};
struct HashMap {
  ws::OptikHashMap m;
  explicit HashMap(std::size_t cap) : m(cap) {}
  auto get(std::uint64_t k) { return m.get(k); }
  bool put(std::uint64_t k, std::uint64_t v) { return m.insert(k, v); }
  auto remove(std::uint64_t k) { return m.remove(k); }
  auto& raw() { return m; }
};
template <class Table>
struct Clht {
  Table m;
  explicit Clht(std::size_t cap) : m(cap) {}
  auto get(std::uint64_t k) { return m.get(k); }
  bool put(std::uint64_t k, std::uint64_t v) { return m.put(k, v); }
  auto remove(std::uint64_t k) { return m.remove(k); }
  auto& raw() { return m; }
};

template <class M>
class WordMaps : public ::testing::Test {};
using MapTypes = ::testing::Types<ListMap, HashMap, Clht<ws::ClhtLb>, Clht<ws::ClhtLf>>;
TYPED_TEST_SUITE(WordMaps, MapTypes);

TYPED_TEST(WordMaps, SequentialSemantics) {
  TypeParam m(4);  // small: CLHT chains and resizes
  EXPECT_EQ(m.get(5), std::nullopt);
  EXPECT_TRUE(m.put(5, 50));
  EXPECT_FALSE(m.put(5, 51));  // insert-if-absent
  EXPECT_EQ(m.get(5), 50u);
  for (std::uint64_t k = 100; k < 400; ++k) EXPECT_TRUE(m.put(k, k * 2));
  for (std::uint64_t k = 100; k < 400; ++k) EXPECT_EQ(m.get(k), k * 2);
  EXPECT_EQ(m.remove(5), 50u);
  EXPECT_EQ(m.remove(5), std::nullopt);
  EXPECT_EQ(m.get(5), std::nullopt);
  for (std::uint64_t k = 100; k < 400; k += 2) EXPECT_EQ(m.remove(k), k * 2);
  std::set<std::uint64_t> seen;
  m.raw().for_each([&](std::uint64_t k, std::uint64_t v) {
    EXPECT_EQ(v, k * 2);
    EXPECT_TRUE(seen.insert(k).second) << "key " << k << " iterated twice";
  });
  EXPECT_EQ(seen.size(), 150u);
  EXPECT_EQ(m.raw().size(), 150u);
  EXPECT_THROW(m.get(0), std::invalid_argument);
  EXPECT_THROW(m.put(0, 1), std::invalid_argument);
}

template <class T>
class ClhtVariants : public ::testing::Test {};
using ClhtTypes = ::testing::Types<ws::ClhtLb, ws::ClhtLf>;
TYPED_TEST_SUITE(ClhtVariants, ClhtTypes);

TYPED_TEST(ClhtVariants, RejectsReservedValuesAndGrows) {
  TypeParam m(8);
  EXPECT_THROW(m.put(1, 0), std::invalid_argument);
  EXPECT_THROW(TypeParam(0), std::invalid_argument);
  EXPECT_THROW(ws::OptikHashMap(0), std::invalid_argument);
  ws::OptikList l;
  EXPECT_THROW(l.insert(~std::uint64_t{0}, 1), std::invalid_argument);
  // Growth: the table doubles (LB: once overflow buckets exceed a quarter of
  // the buckets; LF: when an insert finds its bucket full).
  for (std::uint64_t k = 1; k <= 1000; ++k) ASSERT_TRUE(m.put(k, k));
  EXPECT_GT(m.resizes(), 0u);
  EXPECT_GE(m.bucket_count() * 3, 1000u / 2);
  for (std::uint64_t k = 1; k <= 1000; ++k) ASSERT_EQ(m.get(k), k);
}

enum class Color : std::uint8_t { red, green, blue };
struct Point {
  std::int16_t x, y;
};

// Keys are compared by their bytes: a type whose equal values may differ in
// their bytes (padding, floating point) is refused at compile time.
struct Padded {
  char c;
  std::int32_t i;
};
template <class K>
constexpr bool map_accepts_key = requires { typename ws::ClhtMap<K, int>; };
static_assert(map_accepts_key<Color> && map_accepts_key<Point> && map_accepts_key<std::int64_t> &&
              map_accepts_key<const void*>);
static_assert(!map_accepts_key<Padded> && !map_accepts_key<double> && !map_accepts_key<float>);

TEST(ClhtMap, UserTypes) {
  ws::ClhtMap<Color, Point> m;
  EXPECT_TRUE(m.put(Color::red, Point{0, 0}));  // zero bytes are fine below 8 bytes
  EXPECT_TRUE(m.put(Color::blue, Point{-3, 7}));
  EXPECT_EQ(m.get(Color::blue)->x, -3);
  EXPECT_EQ(m.get(Color::red)->y, 0);
  EXPECT_EQ(m.get(Color::green), std::nullopt);
  EXPECT_EQ(m.remove(Color::red)->x, 0);
  int n = 0;
  m.for_each([&](const Color& c, const Point& p) {
    EXPECT_EQ(c, Color::blue);
    EXPECT_EQ(p.y, 7);
    ++n;
  });
  EXPECT_EQ(n, 1);
  ws::ClhtMap<std::int64_t, double, ws::ClhtLf> d;
  EXPECT_TRUE(d.put(-1, 2.5));
  EXPECT_EQ(d.get(-1), 2.5);
  EXPECT_THROW(d.put(0, 1.0), std::invalid_argument);   // 8-byte zero key
  EXPECT_THROW(d.put(2, 0.0), std::invalid_argument);   // 8-byte zero value
}

// ------------------------------------------------------ linearizability

// A map over keys 1..kKeys: get, put (insert if absent), remove.
constexpr int kKeys = 4;
struct MapModel {
  struct Op {
    enum Kind : std::uint8_t { get, put, remove } kind = get;
    std::uint64_t key = 1, value = 0;
  };
  using Result = std::uint64_t;  // get/remove: the value or 0; put: 1 inserted, 0 not
  using State = std::array<std::uint64_t, kKeys + 1>;  // 0: absent
  State init() const { return {}; }
  std::size_t hash(const State& s) const {
    std::size_t h = 0;
    for (auto v : s) h = h * 1000003u ^ v;
    return h;
  }
  std::optional<State> step(const State& s, const Op& op, const Result& r) const {
    State n = s;
    const std::uint64_t cur = s[op.key];
    switch (op.kind) {
      case Op::get:
        return r == cur ? std::optional(s) : std::nullopt;
      case Op::put:
        if (r != (cur == 0 ? 1u : 0u)) return std::nullopt;
        if (cur == 0) n[op.key] = op.value;
        return n;
      case Op::remove:
        if (r != cur) return std::nullopt;
        n[op.key] = 0;
        return n;
    }
    return std::nullopt;
  }
};

template <class M, class Callers>
void check_histories(const Callers& callers, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    M m(2);  // tiny: CLHT chains and resizes during the history
    ws::HistoryRecorder<MapModel::Op, MapModel::Result> rec(std::size_t(callers.callers()), 40);
    callers.run([&](int c) {
      Rng rng(std::uint64_t(round) * 131 + std::uint64_t(c) + 1);
      auto& log = rec.thread(std::size_t(c));
      for (int i = 0; i < 40; ++i) {
        MapModel::Op op;
        op.key = 1 + rng.below(kKeys);
        const auto dice = rng.below(10);
        op.kind = dice < 4 ? MapModel::Op::get : dice < 7 ? MapModel::Op::put : MapModel::Op::remove;
        op.value = std::uint64_t(c) * 1000 + std::uint64_t(i) + 1;
        log.call(op, [&]() -> std::uint64_t {
          switch (op.kind) {
            case MapModel::Op::get: return m.get(op.key).value_or(0);
            case MapModel::Op::put: return m.put(op.key, op.value) ? 1 : 0;
            default: return m.remove(op.key).value_or(0);
          }
        });
        if (rng.below(4) == 0) weft::this_ult::yield();
      }
    });
    ASSERT_TRUE(ws::test::linearizable(MapModel{}, rec.history())) << "history " << round;
  }
}

TYPED_TEST(WordMaps, HistoriesFromThreadsAreLinearizable) {
  check_histories<TypeParam>(ws::test::OnThreads{3}, scaled(40, 6));
}

TYPED_TEST(WordMaps, HistoriesFromUltsAreLinearizable) {
  weft::Runtime rt(ws::test::runtime_config(2));
  check_histories<TypeParam>(ws::test::OnUlts{rt, 2}, scaled(40, 6));
}

// Every key is removed exactly once although all callers try to remove
// every key (ULTs on 2 workers and threads).
TYPED_TEST(WordMaps, EachKeyRemovedExactlyOnce) {
  const std::uint64_t keys = std::uint64_t(scaled(3000, 300));
  TypeParam m(16);
  for (std::uint64_t k = 1; k <= keys; ++k) ASSERT_TRUE(m.put(k, k + 7));
  std::vector<std::atomic<int>> removed(keys + 1);
  auto work = [&](int c) {
    Rng rng(std::uint64_t(c) + 5);
    for (std::uint64_t i = 0; i < keys; ++i) {
      const std::uint64_t k = 1 + (i * 7 + std::uint64_t(c) * 13) % keys;
      if (auto v = m.remove(k)) {
        EXPECT_EQ(*v, k + 7);
        removed[k].fetch_add(1);
      }
      if (rng.below(16) == 0) weft::this_ult::yield();
    }
  };
  weft::Runtime rt(ws::test::runtime_config(2));
  std::thread t([&] { work(99); });
  ws::test::run_ults(rt, 2, work);
  t.join();
  for (std::uint64_t k = 1; k <= keys; ++k) ASSERT_EQ(removed[k].load(), 1) << "key " << k;
  EXPECT_EQ(m.raw().size(), 0u);
}

// CLHT grows from 1 bucket while ULTs on 2 workers and a thread insert their
// own keys, remove every other one and read everything back; readers run
// throughout. Nothing is lost across the table switches.
TYPED_TEST(ClhtVariants, ResizeUnderLoad) {
  TypeParam m(1);
  const std::uint64_t per = std::uint64_t(scaled(4000, 400));
  constexpr int kWriters = 5;  // 4 ULTs + 1 thread
  std::atomic<bool> stop{false};
  std::atomic<long> bad_reads{0};
  auto writer = [&](int w) {
    const std::uint64_t base = std::uint64_t(w) * per + 1;
    for (std::uint64_t i = 0; i < per; ++i) {
      EXPECT_TRUE(m.put(base + i, base + i));
      if (i % 2) {
        EXPECT_EQ(m.remove(base + i - 1), base + i - 1);
      }
      if (i % 64 == 0) weft::this_ult::yield();
    }
  };
  std::thread reader([&] {
    Rng rng(3);
    while (!stop.load()) {
      const std::uint64_t k = 1 + rng.below(kWriters * per);
      if (auto v = m.get(k); v && *v != k) bad_reads.fetch_add(1);
    }
  });
  weft::Runtime rt(ws::test::runtime_config(2));
  std::thread t([&] { writer(4); });
  ws::test::run_ults(rt, 2, writer);
  t.join();
  stop = true;
  reader.join();
  EXPECT_EQ(bad_reads.load(), 0);
  EXPECT_GT(m.resizes(), 2u);
  for (int w = 0; w < kWriters; ++w)
    for (std::uint64_t i = 0; i < per; ++i) {
      const std::uint64_t k = std::uint64_t(w) * per + 1 + i;
      // Every odd i removed its predecessor; the last even one stays if per is odd.
      const bool present = (i % 2 == 1) || (i + 1 == per);
      ASSERT_EQ(m.get(k).has_value(), present) << "key " << k;
    }
}

}  // namespace
