#pragma once
// QdLock: queue delegation locking (Klaftenegger, Sagonas & Winblad, "Queue
// Delegation Locking", TPDS 2017). Instead of waiting for the lock, a caller
// hands its critical section (a closure) to the current holder, the helper,
// which runs it: the lock and its data stay in one cache.
//
//   delegate(f)       detached (§3): returns once f is accepted, run now or
//                     queued for the helper; f runs later, exactly once, in
//                     the helper. An operation a caller delegated runs before
//                     any the same caller delegates (or locks) afterwards.
//   delegate_wait(f)  returns f's result (or rethrows its exception); the
//                     caller waits spin-then-park (ParkingFlag), it does not
//                     spin indefinitely.
//   lock()/unlock()/try_lock()  plain critical sections on the same lock
//                     (§3 "wider interface"): the queue is closed while they
//                     run, so nothing is delegated to them, and every
//                     operation delegated earlier has run when lock() returns.
//
// delegate (Fig. 7): try_lock -> run f, unlock (fast path). Else up to
// kMaxTries times: enqueue into the holder's queue (done); else try the lock,
// every (kTriesWithoutWait+1)-th time with try_lock_or_wait (spin, then park
// until the holder unlocks: §5.4, waiting under oversubscription); with the
// lock: open the queue, run f, flush (help: run what others queued until a
// scan finds nothing new, then close), unlock. Fallback: lock(), f, unlock()
// (starvation freedom, §5.1). The mutex is TtasLock (§4.1: TATAS "works very
// well"; waiters of try_lock_or_wait park instead of futex-sleeping).
//
// Closures are copied into the queue's fixed buffer (Entries x EntrySize
// bytes; no allocation on any path; a closure that cannot fit is a compile
// error). A delegated operation must not throw: delegate() calls
// std::terminate if it does (delegate_wait() carries the exception back).
// A helper runs at most Entries operations per helping round. Nesting: a
// delegate() or delegate_wait() by the lock's current holder (from inside a
// delegated operation, or between its own lock() and unlock()) runs the
// operation at once, inline: the holder cannot wait for itself. lock() by
// the holder is a std::logic_error (not recursive).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "weft/runtime/this_ult.hpp"
#include "weft/sync/detail/delegation_queue.hpp"
#include "weft/sync/detail/spin_then_park.hpp"
#include "weft/sync/locks/ttas_lock.hpp"

namespace weft::sync {

namespace detail {
// A QD lock without readers (MrqdLock supplies one with readers).
struct NoReaders {
  void before_write() noexcept {}
  void drain() noexcept {}
};
}  // namespace detail

template <std::size_t Entries = 1024, std::size_t EntrySize = 32, class Readers = detail::NoReaders>
class QdLock {
 public:
  static constexpr int kMaxTries = 32;
  static constexpr int kTriesWithoutWait = 3;

  QdLock() = default;
  QdLock(const QdLock&) = delete;
  QdLock& operator=(const QdLock&) = delete;

  template <class F>
  void delegate(F&& f) {
    static_assert(std::is_invocable_v<std::decay_t<F>&>, "QdLock::delegate: f() must be callable");
    const void* me = caller();
    if (holder_.load(std::memory_order_relaxed) == me) {  // nested in our own critical section
      run_now(f);
      return;
    }
    readers_.before_write();
    if (mutex_.try_lock()) {  // fast path (Fig. 7 line 5): the queue stays closed
      acquired(me);
      run_now(f);
      release();
      return;
    }
    for (int i = 1; i <= kMaxTries; ++i) {
      if (queue_.enqueue(std::forward<F>(f))) return;  // moves from f only on success
      const bool got = i % (kTriesWithoutWait + 1) == 0 ? mutex_.try_lock_or_wait() : mutex_.try_lock();
      if (got) {
        queue_.open();
        acquired(me);
        run_now(f);
        const std::size_t helped = queue_.flush();
        ++helping_rounds_;
        helped_ += helped;
        release();
        return;
      }
    }
    mutex_.lock();  // fallback (Fig. 7 line 27)
    ++fallbacks_;
    acquired(me);
    run_now(f);
    release();
  }

  template <class F>
  auto delegate_wait(F&& f) -> std::invoke_result_t<F&> {
    using R = std::invoke_result_t<F&>;
    static_assert(!std::is_reference_v<R>, "QdLock::delegate_wait: f must return a value, not a reference");
    struct Waiter {
      explicit Waiter(std::remove_reference_t<F>* f) : fn(f) {}
      std::remove_reference_t<F>* fn;
      std::conditional_t<std::is_void_v<R>, bool, std::optional<R>> result{};
      std::exception_ptr error;
      detail::ParkingFlag done;
    } w(&f);
    // The caller waits, so the closure carries only a pointer to its frame.
    delegate([pw = &w]() noexcept {
      try {
        if constexpr (std::is_void_v<R>)
          std::invoke(*pw->fn);
        else
          pw->result.emplace(std::invoke(*pw->fn));
      } catch (...) {
        pw->error = std::current_exception();
      }
      pw->done.set();
    });
    w.done.wait();
    if (w.error) std::rethrow_exception(w.error);
    if constexpr (!std::is_void_v<R>) return std::move(*w.result);
  }

  // std::logic_error if the caller holds the lock already.
  void lock() {
    const void* me = caller();
    if (holder_.load(std::memory_order_relaxed) == me)
      throw std::logic_error("weft::sync::QdLock::lock: the caller holds the lock already (not recursive)");
    readers_.before_write();
    mutex_.lock();
    acquired(me);
  }
  bool try_lock() {
    if (!mutex_.try_lock()) return false;
    acquired(caller());
    return true;
  }
  void unlock() { release(); }
  bool is_locked() const noexcept { return mutex_.is_locked(); }

  // Statistics, exact when read with the lock held or idle: helping rounds
  // (queue opened and flushed), operations run for others, lock() fallbacks.
  std::uint64_t helping_rounds() const noexcept { return helping_rounds_; }
  std::uint64_t helped_operations() const noexcept { return helped_; }
  std::uint64_t fallbacks() const noexcept { return fallbacks_; }

  static constexpr std::size_t capacity() noexcept { return Entries; }

 protected:
  TtasLock& mutex() noexcept { return mutex_; }
  Readers& readers() noexcept { return readers_; }

 private:
  template <class F>
  static void run_now(F& f) noexcept {
    std::invoke(f);  // noexcept: a throwing delegated operation terminates
  }
  // The calling ULT or thread (out of line: a ULT may have moved to another
  // kernel thread since the last call).
  static const void* caller() noexcept { return weft::this_ult::ref().raw(); }
  // After taking the mutex: remember the holder, wait for readers (MRQD).
  void acquired(const void* me) noexcept {
    holder_.store(me, std::memory_order_relaxed);
    readers_.drain();
  }
  void release() {
    holder_.store(nullptr, std::memory_order_relaxed);
    mutex_.unlock();
  }

  TtasLock mutex_;
  std::atomic<const void*> holder_{nullptr};  // written by the holder; compared by callers with themselves
  Readers readers_;
  std::uint64_t helping_rounds_ = 0;  // holder only
  std::uint64_t helped_ = 0;          // holder only
  std::uint64_t fallbacks_ = 0;       // holder only
  detail::DelegationQueue<Entries, EntrySize> queue_;
};

}  // namespace weft::sync
