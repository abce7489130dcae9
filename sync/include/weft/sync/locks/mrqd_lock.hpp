#pragma once
// MrqdLock: multi-reader queue delegation locking (QD paper §6, Fig. 12):
// QdLock plus readers that run in parallel, in the caller, never delegated.
// Writers (delegate, delegate_wait, lock) go through the QD lock; a helper
// waits for the readers inside to drain before it runs any write (Fig. 12
// line 11), and readers stay out while the QD mutex is held, so delegated
// writes batch up while reads bulk up.
//
//   lock_shared   (rlock, Fig. 12): announce in the reader indicator; if the
//                 QD mutex is free, enter; else withdraw, wait (spin, then
//                 park) until it is released and retry. After
//                 kReadPatience waits the reader raises the write barrier,
//                 which holds new writers off (they yield before
//                 delegating) until it got in: writers first, but readers do
//                 not starve.
//   unlock_shared (runlock): depart.
//
// Read-your-writes: delegate(w) then lock_shared() sees w, since a queued
// operation runs before the mutex that keeps readers out is released (§6).
// Unlike Fig. 12, writers keep QD's bounded retries and lock() fallback.
// SharedLockable: std::shared_lock works; the writer side is QdLock's.

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "weft/runtime/this_ult.hpp"
#include "weft/sync/detail/reader_indicator.hpp"
#include "weft/sync/locks/qd_lock.hpp"

namespace weft::sync {

namespace detail {
// The reader side MrqdLock plugs into QdLock.
struct MrqdReaders {
  ReaderIndicator indicator;
  alignas(cache_line_size) std::atomic<std::int64_t> write_barrier{0};

  // Fig. 12 line 7: writers wait while a starving reader holds them off.
  void before_write() noexcept {
    while (write_barrier.load(std::memory_order_acquire) > 0) weft::this_ult::yield();
  }
  // Fig. 12 line 11: the holder waits for the readers inside.
  void drain() noexcept {
    while (indicator.query()) weft::this_ult::yield();
  }
};
}  // namespace detail

template <std::size_t Entries = 1024, std::size_t EntrySize = 32>
class MrqdLock : public QdLock<Entries, EntrySize, detail::MrqdReaders> {
  using Base = QdLock<Entries, EntrySize, detail::MrqdReaders>;

 public:
  static constexpr int kReadPatience = 16;  // waits before a reader raises the write barrier

  void lock_shared() {
    detail::MrqdReaders& r = this->readers();
    bool raised = false;
    int waits = 0;
    for (;;) {
      r.indicator.arrive();
      if (!this->mutex().is_locked()) break;
      r.indicator.depart();
      while (this->mutex().is_locked()) {
        if (++waits > kReadPatience && !raised) {
          r.write_barrier.fetch_add(1, std::memory_order_acq_rel);
          raised = true;
        }
        this->mutex().wait_until_unlocked();
      }
    }
    if (raised) r.write_barrier.fetch_sub(1, std::memory_order_acq_rel);
  }
  bool try_lock_shared() {
    detail::MrqdReaders& r = this->readers();
    r.indicator.arrive();
    if (!this->mutex().is_locked()) return true;
    r.indicator.depart();
    return false;
  }
  void unlock_shared() { this->readers().indicator.depart(); }
};

}  // namespace weft::sync
