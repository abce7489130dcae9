// CLHT-LF with resizing (weft/sync/clht.hpp): David, Guerraoui & Trigonakis,
// ASPLOS'15, and Trigonakis' thesis §6.2 (the snapshot_t object).
#include <stdexcept>
#include <string>

#include "map_support.hpp"
#include "weft/sync/clht.hpp"
#include "weft/sync/detail/epoch.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {
namespace detail {

inline constexpr int kLfSlots = 3;

struct alignas(cache_line_size) ClhtLfBucket {
  std::atomic<std::uint64_t> snapshot{0};  // snapshot_t: version | map[3] | frozen
  std::atomic<std::uint64_t> key[kLfSlots] = {};
  std::atomic<std::uint64_t> val[kLfSlots] = {};
};
static_assert(sizeof(ClhtLfBucket) == cache_line_size, "a CLHT-LF bucket is one cache line");

struct ClhtLfTable : Retired {
  std::size_t mask;
  ClhtLfBucket* buckets;
  explicit ClhtLfTable(std::size_t n) : mask(n - 1), buckets(new ClhtLfBucket[n]) {
    reclaim = [](Retired* r) noexcept { delete static_cast<ClhtLfTable*>(r); };
  }
  ~ClhtLfTable() { delete[] buckets; }
};

}  // namespace detail

namespace {

using detail::ClhtLfBucket;
using detail::ClhtLfTable;
using detail::EpochGuard;
using detail::kLfSlots;

// snapshot_t in one word: bits 0-31 the version, byte 4 + j the state of
// slot j, bit 63 "frozen by a resize".
constexpr std::uint64_t kInvalid = 0;
constexpr std::uint64_t kInserting = 1;
constexpr std::uint64_t kValid = 2;
constexpr std::uint64_t kFrozen = std::uint64_t{1} << 63;

inline std::uint64_t slot_state(std::uint64_t s, int j) noexcept { return (s >> (32 + 8 * j)) & 0xff; }
inline std::uint64_t with_state(std::uint64_t s, int j, std::uint64_t state) noexcept {
  const int shift = 32 + 8 * j;
  return (s & ~(std::uint64_t{0xff} << shift)) | (state << shift);
}
inline std::uint64_t next_version(std::uint64_t s) noexcept {
  return (s & ~std::uint64_t{0xffffffff}) | ((s + 1) & 0xffffffff);
}

using detail::buckets_for;
using detail::wait_for_switch;
constexpr auto check_key = detail::check_clht_key;

ClhtLfBucket& home(const ClhtLfTable* t, std::uint64_t k) noexcept { return t->buckets[detail::mix_key(k) & t->mask]; }

// The slot holding k valid in snapshot s, or -1. Keys of valid slots do not
// change while the snapshot stays s.
int find_valid(const ClhtLfBucket& b, std::uint64_t s, std::uint64_t k) noexcept {
  for (int j = 0; j < kLfSlots; ++j)
    if (slot_state(s, j) == kValid && b.key[j].load(std::memory_order_acquire) == k) return j;
  return -1;
}

}  // namespace

ClhtLf::ClhtLf(std::size_t capacity) {
  if (capacity == 0) throw std::invalid_argument("ClhtLf: capacity must be at least 1");
  table_.store(new ClhtLfTable(buckets_for(capacity, kLfSlots)), std::memory_order_release);
}

ClhtLf::~ClhtLf() { delete table_.load(std::memory_order_relaxed); }

std::optional<ClhtLf::Value> ClhtLf::get(Key k) const {
  check_key(k, "ClhtLf::get");
  EpochGuard guard;
  const ClhtLfBucket& b = home(table_.load(std::memory_order_acquire), k);
  for (;;) {  // an atomic snapshot of the bucket: the word unchanged around the reads
    const std::uint64_t s = b.snapshot.load(std::memory_order_acquire);
    const int j = find_valid(b, s, k);
    const std::uint64_t v = j >= 0 ? b.val[j].load(std::memory_order_acquire) : 0;
    if (b.snapshot.load(std::memory_order_acquire) != s) continue;
    if (j < 0) return std::nullopt;
    return v;
  }
}

bool ClhtLf::put(Key k, Value v) {
  check_key(k, "ClhtLf::put");
  if (v == 0) throw std::invalid_argument("ClhtLf::put: value 0 is reserved (CLHT's \"not found\")");
  EpochGuard guard;
  for (;;) {
    ClhtLfTable* t = table_.load(std::memory_order_acquire);
    ClhtLfBucket& b = home(t, k);
    std::uint64_t s = b.snapshot.load(std::memory_order_acquire);
    if (s & kFrozen) {
      wait_for_switch(table_, t);
      continue;
    }
    if (find_valid(b, s, k) >= 0) return false;  // ASCY: no store
    int j = 0;
    while (j < kLfSlots && slot_state(s, j) != kInvalid) ++j;
    if (j == kLfSlots) {  // full: double the table
      resize(t);
      continue;
    }
    if (!b.snapshot.compare_exchange_strong(s, with_state(s, j, kInserting), std::memory_order_acq_rel)) continue;
    b.val[j].store(v, std::memory_order_relaxed);
    b.key[j].store(k, std::memory_order_relaxed);
    for (;;) {  // publish slot j, unless k was published elsewhere first
      s = b.snapshot.load(std::memory_order_acquire);
      if (s & kFrozen) break;  // the resize did not copy our slot: retry in the new table
      if (find_valid(b, s, k) >= 0) {
        if (b.snapshot.compare_exchange_strong(s, with_state(s, j, kInvalid), std::memory_order_acq_rel))
          return false;
        continue;
      }
      if (b.snapshot.compare_exchange_strong(s, next_version(with_state(s, j, kValid)), std::memory_order_acq_rel))
        return true;
    }
    wait_for_switch(table_, t);
  }
}

std::optional<ClhtLf::Value> ClhtLf::remove(Key k) {
  check_key(k, "ClhtLf::remove");
  EpochGuard guard;
  for (;;) {
    ClhtLfTable* t = table_.load(std::memory_order_acquire);
    ClhtLfBucket& b = home(t, k);
    std::uint64_t s = b.snapshot.load(std::memory_order_acquire);
    if (s & kFrozen) {
      wait_for_switch(table_, t);
      continue;
    }
    const int j = find_valid(b, s, k);
    if (j < 0) return std::nullopt;  // ASCY: no store
    const Value v = b.val[j].load(std::memory_order_acquire);
    if (b.snapshot.compare_exchange_strong(s, with_state(s, j, kInvalid), std::memory_order_acq_rel)) return v;
  }
}

void ClhtLf::resize(ClhtLfTable* full) {
  bool expected = false;
  if (!resizing_.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
    wait_for_switch(table_, full);  // someone else is resizing (this or an older table)
    return;
  }
  if (table_.load(std::memory_order_acquire) != full) {
    resizing_.store(false, std::memory_order_release);
    return;
  }
  for (std::size_t i = 0; i <= full->mask; ++i) full->buckets[i].snapshot.fetch_or(kFrozen, std::memory_order_acq_rel);
  for (std::size_t n = 2 * (full->mask + 1);; n *= 2) {
    if (n > (std::size_t{1} << 40)) throw std::length_error("ClhtLf: table would exceed 2^40 buckets");
    auto* next = new ClhtLfTable(n);
    bool fits = true;
    for (std::size_t i = 0; i <= full->mask && fits; ++i) {
      const ClhtLfBucket& b = full->buckets[i];
      const std::uint64_t s = b.snapshot.load(std::memory_order_acquire);
      for (int j = 0; j < kLfSlots && fits; ++j) {
        if (slot_state(s, j) != kValid) continue;
        const std::uint64_t k = b.key[j].load(std::memory_order_relaxed);
        ClhtLfBucket& nb = home(next, k);
        const std::uint64_t ns = nb.snapshot.load(std::memory_order_relaxed);
        int free = 0;
        while (free < kLfSlots && slot_state(ns, free) != kInvalid) ++free;
        if (free == kLfSlots) {
          fits = false;  // a bucket of the new table overflowed: twice as many buckets
          break;
        }
        nb.key[free].store(k, std::memory_order_relaxed);
        nb.val[free].store(b.val[j].load(std::memory_order_relaxed), std::memory_order_relaxed);
        nb.snapshot.store(with_state(ns, free, kValid), std::memory_order_relaxed);
      }
    }
    if (!fits) {
      delete next;
      continue;
    }
    table_.store(next, std::memory_order_release);
    break;
  }
  detail::retire(full);
  resizes_.fetch_add(1, std::memory_order_relaxed);
  resizing_.store(false, std::memory_order_release);
}

void ClhtLf::for_each(const std::function<void(Key, Value)>& f) const {
  EpochGuard guard;
  const ClhtLfTable* t = table_.load(std::memory_order_acquire);
  for (std::size_t i = 0; i <= t->mask; ++i) {
    const ClhtLfBucket& b = t->buckets[i];
    for (;;) {
      const std::uint64_t s = b.snapshot.load(std::memory_order_acquire);
      std::uint64_t keys[kLfSlots], vals[kLfSlots];
      for (int j = 0; j < kLfSlots; ++j) {
        keys[j] = b.key[j].load(std::memory_order_acquire);
        vals[j] = b.val[j].load(std::memory_order_acquire);
      }
      if (b.snapshot.load(std::memory_order_acquire) != s) continue;
      for (int j = 0; j < kLfSlots; ++j)
        if (slot_state(s, j) == kValid) f(keys[j], vals[j]);
      break;
    }
  }
}

std::size_t ClhtLf::size() const {
  std::size_t n = 0;
  for_each([&](Key, Value) { ++n; });
  return n;
}

std::size_t ClhtLf::bucket_count() const {
  EpochGuard guard;
  return table_.load(std::memory_order_acquire)->mask + 1;
}

}  // namespace weft::sync
