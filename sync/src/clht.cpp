// CLHT-LB with resizing (weft/sync/clht.hpp): David, Guerraoui & Trigonakis,
// ASPLOS'15, and Trigonakis' thesis §6.2.
#include "weft/sync/clht.hpp"

#include <new>
#include <stdexcept>
#include <string>

#include "map_support.hpp"
#include "weft/sync/detail/epoch.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {
namespace detail {

inline constexpr int kClhtSlots = 3;

// One cache line: [lock | 3 keys | 3 values | next].
struct alignas(cache_line_size) ClhtBucket {
  std::atomic<std::uint64_t> lock{0};  // kFree, kLocked or kMigrated
  std::atomic<std::uint64_t> key[kClhtSlots] = {};
  std::atomic<std::uint64_t> val[kClhtSlots] = {};
  std::atomic<ClhtBucket*> next{nullptr};  // overflow chain
};
static_assert(sizeof(ClhtBucket) == cache_line_size, "a CLHT bucket is one cache line");

struct ClhtTable : Retired {
  std::size_t mask = 0;
  ClhtBucket* buckets = nullptr;
  std::atomic<std::size_t> overflow{0};  // chained buckets

  explicit ClhtTable(std::size_t n) : mask(n - 1), buckets(new ClhtBucket[n]) {
    reclaim = [](Retired* r) noexcept { delete static_cast<ClhtTable*>(r); };
  }
  ~ClhtTable() {
    for (std::size_t i = 0; i <= mask; ++i)
      for (ClhtBucket* b = buckets[i].next.load(std::memory_order_relaxed); b;) {
        ClhtBucket* next = b->next.load(std::memory_order_relaxed);
        delete b;
        b = next;
      }
    delete[] buckets;
  }
};

}  // namespace detail

namespace {

using detail::ClhtBucket;
using detail::ClhtTable;
using detail::EpochGuard;
using detail::kClhtSlots;

constexpr std::uint64_t kFree = 0;
constexpr std::uint64_t kLocked = 1;
constexpr std::uint64_t kMigrated = 2;

using detail::buckets_for;
using detail::wait_for_switch;
constexpr auto check_key = detail::check_clht_key;

ClhtBucket& home(const ClhtTable* t, std::uint64_t k) noexcept { return t->buckets[detail::mix_key(k) & t->mask]; }

// get()'s atomic snapshot of one slot (§6.2): the value, then the key, then
// the value again; a slot that changed under us is read again.
std::optional<std::uint64_t> find(ClhtBucket* b, std::uint64_t k) noexcept {
  for (; b; b = b->next.load(std::memory_order_acquire)) {
    for (int j = 0; j < kClhtSlots; ++j) {
      for (;;) {
        const std::uint64_t v = b->val[j].load(std::memory_order_acquire);
        if (b->key[j].load(std::memory_order_acquire) != k) break;
        if (b->val[j].load(std::memory_order_acquire) == v) return v;
      }
    }
  }
  return std::nullopt;
}

// Locks an update's bucket; false if the bucket was migrated by a resize.
// Spins without yielding: the caller holds an epoch guard, and lock holders
// never switch inside their few stores.
bool lock_bucket(ClhtBucket& b) noexcept {
  SpinWait w;
  for (;;) {
    std::uint64_t s = b.lock.load(std::memory_order_relaxed);
    if (s == kMigrated) return false;
    if (s == kFree && b.lock.compare_exchange_weak(s, kLocked, std::memory_order_acquire)) return true;
    w.pause();
  }
}
void unlock_bucket(ClhtBucket& b) noexcept { b.lock.store(kFree, std::memory_order_release); }

// Puts (k, v) into a bucket chain we own (locked, or a table not yet
// published), chaining a new bucket when the chain is full; true if it chained.
bool place(ClhtBucket& head, std::uint64_t k, std::uint64_t v) {
  ClhtBucket* last = &head;
  for (ClhtBucket* b = &head; b; b = b->next.load(std::memory_order_relaxed)) {
    last = b;
    for (int j = 0; j < kClhtSlots; ++j)
      if (b->key[j].load(std::memory_order_relaxed) == 0) {
        b->val[j].store(v, std::memory_order_release);  // the value before the key
        b->key[j].store(k, std::memory_order_release);
        return false;
      }
  }
  ClhtBucket* nb = new ClhtBucket;
  nb->val[0].store(v, std::memory_order_relaxed);
  nb->key[0].store(k, std::memory_order_relaxed);
  last->next.store(nb, std::memory_order_release);
  return true;
}

}  // namespace

ClhtLb::ClhtLb(std::size_t capacity) {
  if (capacity == 0) throw std::invalid_argument("ClhtLb: capacity must be at least 1");
  table_.store(new ClhtTable(buckets_for(capacity, kClhtSlots)), std::memory_order_release);
}

ClhtLb::~ClhtLb() { delete table_.load(std::memory_order_relaxed); }

std::optional<ClhtLb::Value> ClhtLb::get(Key k) const {
  check_key(k, "ClhtLb::get");
  EpochGuard guard;
  return find(&home(table_.load(std::memory_order_acquire), k), k);
}

bool ClhtLb::put(Key k, Value v) {
  check_key(k, "ClhtLb::put");
  if (v == 0) throw std::invalid_argument("ClhtLb::put: value 0 is reserved (CLHT's \"not found\")");
  EpochGuard guard;
  for (;;) {
    ClhtTable* t = table_.load(std::memory_order_acquire);
    ClhtBucket& b = home(t, k);
    if (find(&b, k)) return false;  // ASCY: a failed update stores nothing
    if (!lock_bucket(b)) {
      wait_for_switch(table_, t);
      continue;
    }
    if (find(&b, k)) {
      unlock_bucket(b);
      return false;
    }
    const bool chained = place(b, k, v);
    unlock_bucket(b);
    if (chained && t->overflow.fetch_add(1, std::memory_order_relaxed) + 1 > (t->mask + 1) / 4) resize(t);
    return true;
  }
}

std::optional<ClhtLb::Value> ClhtLb::remove(Key k) {
  check_key(k, "ClhtLb::remove");
  EpochGuard guard;
  for (;;) {
    ClhtTable* t = table_.load(std::memory_order_acquire);
    ClhtBucket& b = home(t, k);
    if (!find(&b, k)) return std::nullopt;  // ASCY: no store
    if (!lock_bucket(b)) {
      wait_for_switch(table_, t);
      continue;
    }
    for (ClhtBucket* c = &b; c; c = c->next.load(std::memory_order_relaxed))
      for (int j = 0; j < kClhtSlots; ++j)
        if (c->key[j].load(std::memory_order_relaxed) == k) {
          const Value v = c->val[j].load(std::memory_order_relaxed);
          c->key[j].store(0, std::memory_order_release);
          unlock_bucket(b);
          return v;
        }
    unlock_bucket(b);
    return std::nullopt;
  }
}

void ClhtLb::resize(ClhtTable* full) {
  bool expected = false;
  if (!resizing_.compare_exchange_strong(expected, true, std::memory_order_acquire)) return;  // someone else does
  if (table_.load(std::memory_order_acquire) != full) {
    resizing_.store(false, std::memory_order_release);
    return;
  }
  auto* next = new ClhtTable(2 * (full->mask + 1));
  for (std::size_t i = 0; i <= full->mask; ++i) {
    ClhtBucket& b = full->buckets[i];
    lock_bucket(b);  // waits for an update in progress; only we migrate
    for (ClhtBucket* c = &b; c; c = c->next.load(std::memory_order_relaxed))
      for (int j = 0; j < kClhtSlots; ++j) {
        const std::uint64_t k = c->key[j].load(std::memory_order_relaxed);
        if (k != 0 && place(home(next, k), k, c->val[j].load(std::memory_order_relaxed)))
          next->overflow.fetch_add(1, std::memory_order_relaxed);
      }
    b.lock.store(kMigrated, std::memory_order_release);  // never unlocked: updates go to `next`
  }
  table_.store(next, std::memory_order_release);
  detail::retire(full);
  resizes_.fetch_add(1, std::memory_order_relaxed);
  resizing_.store(false, std::memory_order_release);
}

void ClhtLb::for_each(const std::function<void(Key, Value)>& f) const {
  EpochGuard guard;
  const ClhtTable* t = table_.load(std::memory_order_acquire);
  for (std::size_t i = 0; i <= t->mask; ++i)
    for (ClhtBucket* b = &t->buckets[i]; b; b = b->next.load(std::memory_order_acquire))
      for (int j = 0; j < kClhtSlots; ++j) {
        const std::uint64_t v = b->val[j].load(std::memory_order_acquire);
        const std::uint64_t k = b->key[j].load(std::memory_order_acquire);
        if (k != 0 && b->val[j].load(std::memory_order_acquire) == v) f(k, v);
      }
}

std::size_t ClhtLb::size() const {
  std::size_t n = 0;
  for_each([&](Key, Value) { ++n; });
  return n;
}

std::size_t ClhtLb::bucket_count() const {
  EpochGuard guard;
  return table_.load(std::memory_order_acquire)->mask + 1;
}

}  // namespace weft::sync
