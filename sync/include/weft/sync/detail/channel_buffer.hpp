#pragma once
// The bounded buffer of a buffered weft::Channel<T> (capacity >= 1): a ring
// of `capacity` slots allocated once, guarded by a spinlock whose critical
// sections never switch, plus the senders waiting for room and the
// receivers waiting for a value (FIFO each, records on the waiters' stacks).
// As in Go's runtime: a sender that finds a waiting receiver hands its value
// over directly; a receiver that frees a slot moves the first waiting
// sender's value into the ring and wakes it. The synchronous-queues paper
// covers only the unbuffered case; this is the conventional bounded queue
// beside it.

#include <atomic>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "weft/runtime/detail/wait_queue.hpp"
#include "weft/sync/detail/channel_watchers.hpp"
#include "weft/sync/detail/handoff.hpp"
#include "weft/sync/detail/sync_transferer.hpp"

namespace weft::sync::detail {

template <class T>
class ChannelBuffer {
 public:
  ChannelBuffer(std::size_t capacity, ChannelWatchers* watchers) : ring_(capacity), watchers_(watchers) {}
  ChannelBuffer(const ChannelBuffer&) = delete;
  ChannelBuffer& operator=(const ChannelBuffer&) = delete;

  // Moves *value in on success; leaves it untouched otherwise.
  TransferStatus send(T* value, const Patience& patience) {
    lock_.lock();
    if (closed_) {
      lock_.unlock();
      return TransferStatus::closed;
    }
    if (Waiter* r = receivers_.pop()) {  // the ring is empty: hand over directly
      static_cast<std::optional<T>*>(r->value)->emplace(std::move(*value));
      r->status = TransferStatus::success;
      lock_.unlock();
      r->signal.set();
      return TransferStatus::success;
    }
    if (count_ < ring_.size()) {
      ring_[(first_ + count_) % ring_.size()].emplace(std::move(*value));
      ++count_;
      lock_.unlock();
      if (watchers_) watchers_->notify();
      return TransferStatus::success;
    }
    return wait_locked(senders_, value, patience);
  }

  // Fills *out on success.
  TransferStatus receive(std::optional<T>* out, const Patience& patience) {
    lock_.lock();
    if (count_ > 0) {
      std::optional<T>& front = ring_[first_];
      out->emplace(std::move(*front));
      front.reset();
      first_ = (first_ + 1) % ring_.size();
      --count_;
      Waiter* s = senders_.pop();  // room now: the first waiting sender's value goes in
      if (s) {
        ring_[(first_ + count_) % ring_.size()].emplace(std::move(*static_cast<T*>(s->value)));
        ++count_;
        s->status = TransferStatus::success;
      }
      lock_.unlock();
      if (s) s->signal.set();
      return TransferStatus::success;
    }
    if (closed_) {
      lock_.unlock();
      return TransferStatus::closed;
    }
    return wait_locked(receivers_, out, patience);
  }

  // Wakes every waiter with `closed`; values already buffered stay for
  // receivers to drain.
  void close() {
    lock_.lock();
    if (closed_) {
      lock_.unlock();
      return;
    }
    closed_ = true;
    closed_flag_.store(true, std::memory_order_seq_cst);
    Waiter* woken = nullptr;
    for (WaiterList* list : {&senders_, &receivers_}) {
      while (Waiter* w = list->pop()) {
        w->status = TransferStatus::closed;
        w->next = woken;
        woken = w;
      }
    }
    lock_.unlock();
    while (woken) {
      Waiter* next = woken->next;  // before set(): the waiter may return after it
      woken->signal.set();
      woken = next;
    }
    if (watchers_) watchers_->notify();
  }

  bool closed() const noexcept { return closed_flag_.load(std::memory_order_seq_cst); }
  std::size_t capacity() const noexcept { return ring_.size(); }
  std::size_t size() {
    lock_.lock();
    const std::size_t n = count_;
    lock_.unlock();
    return n;
  }

 private:
  struct Waiter {
    void* value = nullptr;  // a sender's T, a receiver's std::optional<T>
    TransferStatus status = TransferStatus::timeout;
    ParkingFlag signal;
    Waiter* prev = nullptr;
    Waiter* next = nullptr;
  };
  struct WaiterList {  // FIFO, doubly linked; under the lock
    Waiter* head = nullptr;
    Waiter* tail = nullptr;
    void push(Waiter* w) noexcept {
      w->next = nullptr;
      w->prev = tail;
      (tail ? tail->next : head) = w;
      tail = w;
    }
    Waiter* pop() noexcept {
      Waiter* w = head;
      if (w) remove(w);
      return w;
    }
    void remove(Waiter* w) noexcept {
      (w->prev ? w->prev->next : head) = w->next;
      (w->next ? w->next->prev : tail) = w->prev;
      w->prev = w->next = nullptr;
    }
  };

  // Called with the lock held; releases it.
  TransferStatus wait_locked(WaiterList& list, void* value, const Patience& patience) {
    if (patience.exhausted()) {
      lock_.unlock();
      return patience.kind == Patience::Kind::none ? TransferStatus::unavailable : TransferStatus::timeout;
    }
    Waiter w;
    w.value = value;
    list.push(&w);
    lock_.unlock();
    if (!wait_flag(w.signal, patience)) {
      lock_.lock();
      const bool still_waiting = w.status == TransferStatus::timeout && in_list(list, &w);
      if (still_waiting) list.remove(&w);
      lock_.unlock();
      if (still_waiting) return TransferStatus::timeout;
      w.signal.wait();  // a partner (or close) took us: its set() comes
    }
    return w.status;
  }
  static bool in_list(const WaiterList& list, const Waiter* w) noexcept {
    return w->prev != nullptr || list.head == w;
  }

  weft::detail::SpinLock lock_;
  std::vector<std::optional<T>> ring_;
  std::size_t first_ = 0;
  std::size_t count_ = 0;
  bool closed_ = false;  // under the lock
  std::atomic<bool> closed_flag_{false};
  WaiterList senders_;
  WaiterList receivers_;
  ChannelWatchers* watchers_;
};

}  // namespace weft::sync::detail
