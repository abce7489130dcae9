// `weft-bench maps`: concurrent maps under a mix of lookups and updates
// (issue #12; the thesis' §6.2/§6.5 methodology: uniform keys over a range,
// the map pre-filled with half of it, updates half inserts and half removes
// so the size stays near half the range):
//
//  * maps/<u>pct/<range>: u% updates over 2^10 and 2^20 keys, all cores as
//    kernel threads: CLHT-LB ("weft"), CLHT-LF, the OPTIK hash table, the OPTIK list
//    (2^10 keys only: a list of 2^19 nodes is not a map), oneTBB
//    concurrent_hash_map and concurrent_unordered_map, a std::mutex-guarded
//    std::unordered_map.
// Target (issue #12): CLHT >= 1.5x oneTBB's best at 10% updates.
// Each run checks that the final size equals the pre-fill plus successful
// inserts minus successful removes.
#include <tbb/concurrent_hash_map.h>
#include <tbb/concurrent_unordered_map.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <latch>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <benchmark/benchmark.h>

#include "../harness.hpp"
#include "weft/sync/clht.hpp"
#include "weft/sync/optik_list.hpp"

namespace weft::bench::maps {
namespace {

using Key = std::uint64_t;

struct ClhtRow {
  sync::ClhtLb m;
  explicit ClhtRow(std::size_t n) : m(n) {}
  bool get(Key k) { return m.get(k).has_value(); }
  bool put(Key k) { return m.put(k, k); }
  bool remove(Key k) { return m.remove(k).has_value(); }
  std::size_t size() { return m.size(); }
};
struct ClhtLfRow {
  sync::ClhtLf m;
  explicit ClhtLfRow(std::size_t n) : m(n) {}
  bool get(Key k) { return m.get(k).has_value(); }
  bool put(Key k) { return m.put(k, k); }
  bool remove(Key k) { return m.remove(k).has_value(); }
  std::size_t size() { return m.size(); }
};
struct OptikHashRow {
  sync::OptikHashMap m;
  explicit OptikHashRow(std::size_t n) : m(n) {}
  bool get(Key k) { return m.get(k).has_value(); }
  bool put(Key k) { return m.insert(k, k); }
  bool remove(Key k) { return m.remove(k).has_value(); }
  std::size_t size() { return m.size(); }
};
struct OptikListRow {
  sync::OptikList m;
  explicit OptikListRow(std::size_t) {}
  bool get(Key k) { return m.get(k).has_value(); }
  bool put(Key k) { return m.insert(k, k); }
  bool remove(Key k) { return m.remove(k).has_value(); }
  std::size_t size() { return m.size(); }
};
struct TbbHashRow {
  tbb::concurrent_hash_map<Key, Key> m;
  explicit TbbHashRow(std::size_t n) : m(n) {}
  bool get(Key k) {
    tbb::concurrent_hash_map<Key, Key>::const_accessor a;
    return m.find(a, k);
  }
  bool put(Key k) { return m.insert({k, k}); }
  bool remove(Key k) { return m.erase(k); }
  std::size_t size() { return m.size(); }
};
// concurrent_unordered_map has no thread-safe erase: its "remove" marks the
// value 0 (a tombstone), which is the usual workaround.
struct TbbUnorderedRow {
  tbb::concurrent_unordered_map<Key, std::atomic<Key>> m;
  explicit TbbUnorderedRow(std::size_t n) : m(n) {}
  bool get(Key k) {
    auto it = m.find(k);
    return it != m.end() && it->second.load(std::memory_order_acquire) != 0;
  }
  bool put(Key k) {
    auto [it, inserted] = m.emplace(k, k);
    if (inserted) return true;
    Key zero = 0;
    return it->second.compare_exchange_strong(zero, k);
  }
  bool remove(Key k) {
    auto it = m.find(k);
    return it != m.end() && it->second.exchange(0) != 0;
  }
  std::size_t size() {
    std::size_t n = 0;
    for (auto& [k, v] : m) n += v.load() != 0;
    return n;
  }
};
struct MutexRow {
  std::mutex mu;
  std::unordered_map<Key, Key> m;
  explicit MutexRow(std::size_t n) { m.reserve(n); }
  bool get(Key k) {
    std::lock_guard lk(mu);
    return m.find(k) != m.end();
  }
  bool put(Key k) {
    std::lock_guard lk(mu);
    return m.emplace(k, k).second;
  }
  bool remove(Key k) {
    std::lock_guard lk(mu);
    return m.erase(k) != 0;
  }
  std::size_t size() { return m.size(); }
};

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
};

// `threads` threads, `ops` operations each: update_pct% updates (half put,
// half remove), the rest gets, keys uniform in 1..range.
template <class Row>
Measurement run(int threads, std::uint64_t range, int update_pct, long ops) {
  Row row(range);
  long prefill = 0;
  for (Key k = 1; k <= range; k += 2) prefill += row.put(k);
  std::atomic<long> delta{0};
  std::latch start(threads + 1);
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      Rng rng{0x9E3779B97F4A7C15ull * std::uint64_t(t + 1)};
      long d = 0, hits = 0;
      start.arrive_and_wait();
      for (long i = 0; i < ops; ++i) {
        const std::uint64_t r = rng.next();
        const Key k = 1 + (r >> 8) % range;
        const int dice = static_cast<int>(r % 200);
        if (dice < update_pct)
          d += row.put(k);
        else if (dice < 2 * update_pct)
          d -= row.remove(k);
        else
          hits += row.get(k);
      }
      benchmark::DoNotOptimize(hits);
      delta.fetch_add(d);
    });
  const double t0 = now_ns();
  start.arrive_and_wait();
  for (auto& t : ts) t.join();
  const double t1 = now_ns();
  const long expected = prefill + delta.load();
  if (static_cast<long>(row.size()) != expected)
    throw std::runtime_error("map size " + std::to_string(row.size()) + ", expected " + std::to_string(expected));
  return {t1 - t0, static_cast<double>(threads) * static_cast<double>(ops)};
}

std::vector<Case> map_cases(const Options& o) {
  const int threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const long ops = o.quick ? 100'000 : 2'000'000;  // per thread
  const long list_ops = ops / 10;                   // the list walks ~range/4 nodes per operation
  std::vector<Case> cases;
  for (int pct : {1, 10, 50}) {
    for (int log2 : {10, 20}) {
      const std::uint64_t range = std::uint64_t{1} << log2;
      Case c("maps/" + std::to_string(pct) + "pct/2^" + std::to_string(log2),
             std::to_string(threads) + " threads x " + std::to_string(ops) + " ops (list: " +
                 std::to_string(list_ops) + "), " + std::to_string(pct) +
                 "% updates, keys 1..2^" + std::to_string(log2) + ", half pre-filled",
             "ns/op");
      c.add("weft", [=] { return run<ClhtRow>(threads, range, pct, ops); });  // CLHT-LB
      c.add("weft-optik-hash", [=] { return run<OptikHashRow>(threads, range, pct, ops); });
      if (log2 <= 10) c.add("weft-optik-list", [=] { return run<OptikListRow>(threads, range, pct, list_ops); });
      c.add("weft-clht-lf", [=] { return run<ClhtLfRow>(threads, range, pct, ops); });
      c.add("tbb-concurrent_hash_map", [=] { return run<TbbHashRow>(threads, range, pct, ops); });
      c.add("tbb-concurrent_unordered_map", [=] { return run<TbbUnorderedRow>(threads, range, pct, ops); });
      c.add("mutex+unordered_map", [=] { return run<MutexRow>(threads, range, pct, ops); });
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace

WEFT_BENCH_SUITE("maps",
                 "Concurrent maps (1/10/50% updates over 2^10 and 2^20 keys): CLHT-LB/LF, OPTIK hash table and "
                 "list beside oneTBB concurrent_hash_map / concurrent_unordered_map and a mutex-guarded "
                 "unordered_map",
                 map_cases);

}  // namespace weft::bench::maps
