// OptikList and OptikHashMap (weft/sync/optik_list.hpp): Trigonakis' thesis
// §6.4 Figure 6.8 and the optik-gl hash table of §6.5.
#include <limits>
#include <stdexcept>
#include <string>

#include "map_support.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/epoch.hpp"
#include "weft/sync/detail/node_pool.hpp"
#include "weft/sync/optik_list.hpp"

namespace weft::sync {
namespace detail {

struct OptikListNode : Retired {
  std::uint64_t key = 0;
  std::atomic<std::uint64_t> val{0};
  OptikLock lock;
  std::atomic<OptikListNode*> next{nullptr};
};

struct alignas(cache_line_size) OptikBucket {
  OptikLock lock;
  std::atomic<OptikListNode*> head{nullptr};  // sorted, no sentinels
};

}  // namespace detail

namespace {

using detail::EpochGuard;
using detail::OptikBucket;
using detail::OptikListNode;
using Pool = detail::NodePool<OptikListNode>;

constexpr std::uint64_t kMinKey = 0;
constexpr std::uint64_t kMaxKey = std::numeric_limits<std::uint64_t>::max();

void check_key(std::uint64_t k, const char* who) {
  if (k == kMinKey || k == kMaxKey)
    throw std::invalid_argument(std::string(who) + ": key " + std::to_string(k) +
                                " is reserved (keys are 1 .. 2^64-2)");
}

OptikListNode* new_node(std::uint64_t k, std::uint64_t v, OptikListNode* next) {
  OptikListNode* n = Pool::allocate();
  n->reclaim = &Pool::reclaim;
  n->key = k;
  n->val.store(v, std::memory_order_relaxed);
  new (&n->lock) OptikLock();  // unlocked at version 0 (a recycled, removed node's stayed locked)
  n->next.store(next, std::memory_order_relaxed);
  return n;
}
// Figure 6.8's hand-over-hand version tracking: pred.key < k <= cur.key,
// with the versions their locks had when the traversal passed them.
struct Window {
  OptikListNode* pred;
  OptikLock::Version predv;
  OptikListNode* cur;
  OptikLock::Version curv;
};
Window traverse(OptikListNode* head, std::uint64_t k) noexcept {
  Window w{nullptr, 0, head, head->lock.get_version()};
  do {
    w.pred = w.cur;
    w.predv = w.curv;
    w.cur = w.cur->next.load(std::memory_order_acquire);
    w.curv = w.cur->lock.get_version();
  } while (w.cur->key < k);
  return w;
}

}  // namespace

// ------------------------------------------------------------- OptikList

OptikList::OptikList() {
  OptikListNode* tail = new_node(kMaxKey, 0, nullptr);
  head_ = new_node(kMinKey, 0, tail);
}

OptikList::~OptikList() {
  for (OptikListNode* n = head_; n;) {
    OptikListNode* next = n->next.load(std::memory_order_relaxed);
    Pool::recycle(n);
    n = next;
  }
}

std::optional<OptikList::Value> OptikList::get(Key k) const {
  check_key(k, "OptikList::get");
  EpochGuard guard;
  // Figure 6.8(c): oblivious to concurrency.
  OptikListNode* cur = head_;
  while (cur->key < k) cur = cur->next.load(std::memory_order_acquire);
  if (cur->key == k) return cur->val.load(std::memory_order_relaxed);
  return std::nullopt;
}

bool OptikList::insert(Key k, Value v) {
  check_key(k, "OptikList::insert");
  EpochGuard guard;
  for (;;) {  // Figure 6.8(b)
    auto [pred, predv, cur, curv] = traverse(head_, k);
    if (cur->key == k) return false;  // a failed update stores nothing
    if (!pred->lock.trylock_version(predv)) continue;
    pred->next.store(new_node(k, v, cur), std::memory_order_release);  // the linearization point
    pred->lock.unlock();
    return true;
  }
}

std::optional<OptikList::Value> OptikList::remove(Key k) {
  check_key(k, "OptikList::remove");
  EpochGuard guard;
  for (;;) {  // Figure 6.8(a)
    auto [pred, predv, cur, curv] = traverse(head_, k);
    if (cur->key != k) return std::nullopt;
    if (!pred->lock.trylock_version(predv)) continue;
    if (!cur->lock.trylock_version(curv)) {
      pred->lock.revert();  // released as unmodified: no false conflict
      continue;
    }
    pred->next.store(cur->next.load(std::memory_order_relaxed), std::memory_order_release);  // linearization
    const Value result = cur->val.load(std::memory_order_relaxed);
    pred->lock.unlock();
    detail::retire(cur);  // cur stays locked for ever: nothing updates through it
    return result;
  }
}

void OptikList::for_each(const std::function<void(Key, Value)>& f) const {
  EpochGuard guard;
  for (OptikListNode* n = head_->next.load(std::memory_order_acquire); n->key != kMaxKey;
       n = n->next.load(std::memory_order_acquire))
    f(n->key, n->val.load(std::memory_order_relaxed));
}

std::size_t OptikList::size() const {
  std::size_t n = 0;
  for_each([&](Key, Value) { ++n; });
  return n;
}

// ---------------------------------------------------------- OptikHashMap

namespace {
// In bucket b: the first node with key >= k (or null) and the link that points to it.
struct Position {
  std::atomic<OptikListNode*>* link;
  OptikListNode* cur;
};
Position find(OptikBucket& b, std::uint64_t k) noexcept {
  std::atomic<OptikListNode*>* link = &b.head;
  OptikListNode* cur = link->load(std::memory_order_acquire);
  while (cur && cur->key < k) {
    link = &cur->next;
    cur = link->load(std::memory_order_acquire);
  }
  return {link, cur};
}
}  // namespace

OptikHashMap::OptikHashMap(std::size_t buckets) {
  if (buckets == 0) throw std::invalid_argument("OptikHashMap: bucket count must be at least 1");
  const std::size_t n = detail::buckets_for(buckets, 1);
  buckets_ = std::make_unique<OptikBucket[]>(n);
  mask_ = n - 1;
}

OptikHashMap::~OptikHashMap() {
  for (std::size_t i = 0; i <= mask_; ++i)
    for (OptikListNode* n = buckets_[i].head.load(std::memory_order_relaxed); n;) {
      OptikListNode* next = n->next.load(std::memory_order_relaxed);
      Pool::recycle(n);
      n = next;
    }
}

OptikBucket& OptikHashMap::bucket(Key k) const noexcept { return buckets_[detail::mix_key(k) & mask_]; }

std::optional<OptikHashMap::Value> OptikHashMap::get(Key k) const {
  check_key(k, "OptikHashMap::get");
  EpochGuard guard;
  const Position p = find(bucket(k), k);
  if (p.cur && p.cur->key == k) return p.cur->val.load(std::memory_order_relaxed);
  return std::nullopt;
}

bool OptikHashMap::insert(Key k, Value v) {
  check_key(k, "OptikHashMap::insert");
  EpochGuard guard;
  OptikBucket& b = bucket(k);
  for (;;) {
    const OptikLock::Version ver = b.lock.get_version_wait<SpinWait>();  // 1. read the version (no yield inside a guard)
    const Position p = find(b, k);                             // 2. optimistic work
    if (p.cur && p.cur->key == k) return false;                //    infeasible: no store
    OptikListNode* n = new_node(k, v, p.cur);
    if (!b.lock.trylock_version(ver)) {  // 3+4. lock and validate (one CAS)
      Pool::recycle(n);
      continue;
    }
    p.link->store(n, std::memory_order_release);  // 5.
    b.lock.unlock();                              // 6+7.
    return true;
  }
}

std::optional<OptikHashMap::Value> OptikHashMap::remove(Key k) {
  check_key(k, "OptikHashMap::remove");
  EpochGuard guard;
  OptikBucket& b = bucket(k);
  for (;;) {
    const OptikLock::Version ver = b.lock.get_version_wait<SpinWait>();
    const Position p = find(b, k);
    if (!p.cur || p.cur->key != k) return std::nullopt;
    if (!b.lock.trylock_version(ver)) continue;
    p.link->store(p.cur->next.load(std::memory_order_relaxed), std::memory_order_release);
    const Value result = p.cur->val.load(std::memory_order_relaxed);
    b.lock.unlock();
    detail::retire(p.cur);
    return result;
  }
}

void OptikHashMap::for_each(const std::function<void(Key, Value)>& f) const {
  EpochGuard guard;
  for (std::size_t i = 0; i <= mask_; ++i)
    for (OptikListNode* n = buckets_[i].head.load(std::memory_order_acquire); n;
         n = n->next.load(std::memory_order_acquire))
      f(n->key, n->val.load(std::memory_order_relaxed));
}

std::size_t OptikHashMap::size() const {
  std::size_t n = 0;
  for_each([&](Key, Value) { ++n; });
  return n;
}

}  // namespace weft::sync
