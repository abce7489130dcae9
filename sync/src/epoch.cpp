// Epoch-based reclamation (detail/epoch.hpp): one global epoch, one
// announcement word per thread, three limbo lists per thread.
//
// An announcement is (epoch << 1) | 1 while the thread is inside a guard and
// 0 outside. The epoch moves from e to e + 1 only when every announcing
// thread announces e. A node retired while the epoch was r is freed once the
// epoch reaches r + 2: a reader that could still hold it entered while the
// epoch was at most r, and holds the epoch below r + 2 until it leaves.
// Announcements, the epoch and the structures' links are read and written
// with sequentially consistent operations, which is what makes "entered
// before it was unlinked" and "saw the announcement" one total order.
//
// A thread that exits hands its limbo lists to a global orphan list, freed
// by whichever thread advances the epoch far enough; its announcement word
// is recycled for the next new thread.
#include "weft/sync/detail/epoch.hpp"

#include <atomic>
#include <mutex>
#include <vector>

#include "weft/sync/cpu.hpp"

namespace weft::sync::detail {
namespace {

constexpr std::uint64_t kActive = 1;
constexpr std::size_t kScanEvery = 64;  // retires between two attempts to advance

struct alignas(cache_line_size) Record {
  std::atomic<std::uint64_t> announcement{0};
  std::atomic<bool> in_use{false};
  Record* next = nullptr;  // the registry: set before the record is published, never changed
};

alignas(cache_line_size) std::atomic<std::uint64_t> g_epoch{1};
alignas(cache_line_size) std::atomic<Record*> g_records{nullptr};

struct Orphans {
  std::mutex mutex;
  struct Chain {
    std::uint64_t epoch;  // when its nodes were retired (at the latest)
    Retired* head;        // linked by retired_next
  };
  std::vector<Chain> chains;
  std::atomic<bool> any{false};
};
// Never destroyed: threads may exit (and orphan their lists) during static
// destruction, and what it holds stays reachable for the leak checker.
Orphans& orphans() {
  static Orphans* o = new Orphans;
  return *o;
}

Record* acquire_record() {
  for (Record* r = g_records.load(std::memory_order_acquire); r; r = r->next) {
    bool expected = false;
    if (!r->in_use.load(std::memory_order_relaxed) &&
        r->in_use.compare_exchange_strong(expected, true, std::memory_order_acquire))
      return r;
  }
  Record* r = new Record;
  r->in_use.store(true, std::memory_order_relaxed);
  Record* head = g_records.load(std::memory_order_relaxed);
  do {
    r->next = head;
  } while (!g_records.compare_exchange_weak(head, r, std::memory_order_release, std::memory_order_relaxed));
  return r;
}

std::size_t free_chain(Retired* r) noexcept {
  std::size_t n = 0;
  while (r) {
    Retired* next = r->retired_next;
    r->reclaim(r);
    r = next;
    ++n;
  }
  return n;
}

// Advances the epoch if every thread inside a guard announced the current
// one; returns the epoch after the attempt.
std::uint64_t try_advance() noexcept {
  std::uint64_t e = g_epoch.load(std::memory_order_seq_cst);
  for (Record* r = g_records.load(std::memory_order_acquire); r; r = r->next) {
    const std::uint64_t a = r->announcement.load(std::memory_order_seq_cst);
    if ((a & kActive) && (a >> 1) != e) return e;
  }
  if (g_epoch.compare_exchange_strong(e, e + 1, std::memory_order_seq_cst)) return e + 1;
  return e;  // someone else advanced it (e was reloaded)
}

std::size_t free_orphans(std::uint64_t epoch) noexcept {
  Orphans& o = orphans();
  if (!o.any.load(std::memory_order_acquire)) return 0;
  std::vector<Retired*> ready;
  {
    std::lock_guard lk(o.mutex);
    auto keep = o.chains.begin();
    for (const Orphans::Chain& c : o.chains) {
      if (c.epoch + 2 <= epoch)
        ready.push_back(c.head);
      else
        *keep++ = c;
    }
    o.chains.erase(keep, o.chains.end());
    o.any.store(!o.chains.empty(), std::memory_order_release);
  }
  std::size_t n = 0;
  for (Retired* c : ready) n += free_chain(c);
  return n;
}

struct Limbo {
  std::uint64_t epoch = 0;
  Retired* head = nullptr;
};

struct ThreadState {
  Record* record = nullptr;
  unsigned nesting = 0;
  std::size_t since_scan = 0;
  Limbo limbo[3];

  ~ThreadState();
  Record* rec() {
    if (!record) record = acquire_record();
    return record;
  }
  std::size_t free_old(std::uint64_t epoch) noexcept {
    std::size_t n = 0;
    for (Limbo& l : limbo) {
      if (l.head && l.epoch + 2 <= epoch) {
        Retired* chain = l.head;
        l.head = nullptr;  // before reclaiming: a reclaim may not retire, but stay safe
        n += free_chain(chain);
      }
    }
    return n;
  }
};

// The thread's state lives as long as the thread; afterwards (other
// thread_local destructors that retire) t_finished routes retirements to the
// orphan list. t_state caches it in an initial-exec TLS word (the library is
// built with -fPIC: a plain thread_local would cost a __tls_get_addr call and
// an initialisation check on every guard).
__attribute__((tls_model("initial-exec"))) thread_local bool t_finished = false;
__attribute__((tls_model("initial-exec"))) thread_local ThreadState* t_state = nullptr;

ThreadState* make_state() noexcept {
  if (t_finished) return nullptr;
  thread_local ThreadState s;
  t_state = &s;
  return &s;
}
inline ThreadState* state() noexcept {
  ThreadState* s = t_state;
  return s ? s : make_state();
}

void orphan(Retired* chain, std::uint64_t epoch) {
  if (!chain) return;
  Orphans& o = orphans();
  std::lock_guard lk(o.mutex);
  o.chains.push_back({epoch, chain});
  o.any.store(true, std::memory_order_release);
}

ThreadState::~ThreadState() {
  for (Limbo& l : limbo) {
    orphan(l.head, l.epoch);
    l.head = nullptr;
  }
  if (record) {
    record->announcement.store(0, std::memory_order_release);
    record->in_use.store(false, std::memory_order_release);
  }
  t_state = nullptr;
  t_finished = true;
}

}  // namespace

void epoch_enter() noexcept {
  ThreadState* s = state();
  if (!s) return;  // thread exiting: nothing it reads is freed by itself any more
  if (s->nesting++ == 0) {
    const std::uint64_t e = g_epoch.load(std::memory_order_seq_cst);
    s->rec()->announcement.exchange((e << 1) | kActive, std::memory_order_seq_cst);
  }
}

void epoch_exit() noexcept {
  ThreadState* s = state();
  if (!s) return;
  if (--s->nesting == 0) s->record->announcement.store(0, std::memory_order_release);
}

void retire(Retired* r) noexcept {
  const std::uint64_t e = g_epoch.load(std::memory_order_seq_cst);
  ThreadState* s = state();
  if (!s) {
    r->retired_next = nullptr;
    orphan(r, e);
    return;
  }
  Limbo& l = s->limbo[e % 3];
  if (l.epoch != e) {
    // What the slot holds was retired at epoch e - 3 or earlier: free.
    Retired* old = l.head;
    l.head = nullptr;
    free_chain(old);
    l.epoch = e;
  }
  r->retired_next = l.head;
  l.head = r;
  if (++s->since_scan >= kScanEvery) {
    s->since_scan = 0;
    const std::uint64_t now = try_advance();
    s->free_old(now);
    free_orphans(now);
  }
}

std::size_t epoch_collect() noexcept {
  std::size_t n = 0;
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t now = try_advance();
    if (ThreadState* s = state()) n += s->free_old(now);
    n += free_orphans(now);
  }
  return n;
}

}  // namespace weft::sync::detail
