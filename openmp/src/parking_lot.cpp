#include "parking_lot.hpp"

#include <atomic>
#include <cstddef>

#include "weft/runtime/latch.hpp"
#include "weft/sched/cpu.hpp"

namespace weft::omp {
namespace {

struct Waiter {
  const void* key = nullptr;
  Waiter* next = nullptr;
  Latch wake{1};
};

class SpinLock {
 public:
  void lock() noexcept {
    while (flag_.exchange(true, std::memory_order_acquire))
      while (flag_.load(std::memory_order_relaxed)) sched::cpu_relax();
  }
  void unlock() noexcept { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

struct alignas(sched::cache_line_size) Bucket {
  std::atomic<std::uint32_t> waiters{0};  // parked here, any key (the notifiers' fast path)
  SpinLock lock;
  Waiter* head = nullptr;
  Waiter* tail = nullptr;
};

constexpr std::size_t kBuckets = 256;
Bucket buckets[kBuckets];

// Orders a notifier's state change before its look at the bucket's waiter
// count, against a waiter that counts itself in before checking the state
// (store-buffering: each side's second access must see the other's first).
// A seq_cst fence on each side does it; ThreadSanitizer does not model
// fences, so under it the notifier's look is a read-modify-write instead
// (an RMW reads the latest value and synchronises with the waiter's).
std::uint32_t waiters_after_state_change(Bucket& b) {
#if defined(__SANITIZE_THREAD__)
  return b.waiters.fetch_add(0, std::memory_order_acq_rel);
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return b.waiters.load(std::memory_order_relaxed);
#endif
}

Bucket& bucket_of(const void* key) {
  auto a = reinterpret_cast<std::uintptr_t>(key);
  a ^= a >> 17;
  a *= 0x9E3779B97F4A7C15ull;
  return buckets[(a >> 32) % kBuckets];
}

// Unlinks the first waiter on `key` (under the bucket lock); null if none.
Waiter* take_one(Bucket& b, const void* key) {
  Waiter* prev = nullptr;
  for (Waiter* w = b.head; w; prev = w, w = w->next) {
    if (w->key != key) continue;
    (prev ? prev->next : b.head) = w->next;
    if (b.tail == w) b.tail = prev;
    b.waiters.fetch_sub(1, std::memory_order_relaxed);
    return w;
  }
  return nullptr;
}

}  // namespace

void park_while(const void* key, bool (*still_waiting)(const void*), const void* arg) {
  Bucket& b = bucket_of(key);
  Waiter me;
  me.key = key;
  b.lock.lock();
  b.waiters.fetch_add(1, std::memory_order_seq_cst);
#if !defined(__SANITIZE_THREAD__)
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
  if (!still_waiting(arg)) {
    b.waiters.fetch_sub(1, std::memory_order_relaxed);
    b.lock.unlock();
    return;
  }
  if (b.tail) b.tail->next = &me;
  else b.head = &me;
  b.tail = &me;
  b.lock.unlock();
  me.wake.wait();  // count_down by a notifier once it has unlinked `me`
}

void unpark_all(const void* key) {
  Bucket& b = bucket_of(key);
  if (waiters_after_state_change(b) == 0) return;
  Waiter* woken = nullptr;
  b.lock.lock();
  while (Waiter* w = take_one(b, key)) {
    w->next = woken;
    woken = w;
  }
  b.lock.unlock();
  while (woken) {
    Waiter* next = woken->next;  // read first: the node dies with its waiter
    woken->wake.count_down();
    woken = next;
  }
}

void unpark_one(const void* key) {
  Bucket& b = bucket_of(key);
  if (waiters_after_state_change(b) == 0) return;
  b.lock.lock();
  Waiter* w = take_one(b, key);
  b.lock.unlock();
  if (w) w->wake.count_down();
}

}  // namespace weft::omp
