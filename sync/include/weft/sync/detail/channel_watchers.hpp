#pragma once
// The selectors waiting on a channel (weft/sync/select.hpp): a select that
// found none of its channels ready links one WatchLink per channel into
// each channel's ChannelWatchers and parks on its SelectWaiter; a channel
// calls notify() when a value becomes available to a receiver (a sender
// starts waiting on an unbuffered channel, a buffered channel gets an item)
// or when it closes, which wakes every selector linked to it. The selector
// then polls its channels again. notify() is one load while nobody selects.
//
// Links live on the selector's stack; notify() touches them only under the
// lock, and a selector that finds itself notified waits for the
// notification to complete before it returns (SelectWaiter::notified).

#include <atomic>

#include "weft/runtime/detail/wait_queue.hpp"
#include "weft/sync/detail/handoff.hpp"

namespace weft::sync::detail {

struct SelectWaiter {
  ParkingFlag signal;
  std::atomic<bool> notified{false};  // set by the first notifier, who sets `signal`
  SelectWaiter* next_woken = nullptr;  // notify()'s private list
};

struct WatchLink {
  SelectWaiter* waiter = nullptr;
  WatchLink* prev = nullptr;
  WatchLink* next = nullptr;
};

class ChannelWatchers {
 public:
  void add(WatchLink* link) noexcept {
    lock_.lock();
    link->prev = nullptr;
    link->next = head_;
    if (head_) head_->prev = link;
    head_ = link;
    count_.fetch_add(1, std::memory_order_seq_cst);
    lock_.unlock();
  }
  void remove(WatchLink* link) noexcept {
    lock_.lock();
    (link->prev ? link->prev->next : head_) = link->next;
    if (link->next) link->next->prev = link->prev;
    count_.fetch_sub(1, std::memory_order_relaxed);
    lock_.unlock();
  }
  // After a value became available or the channel closed. Sequentially
  // consistent with add(): a selector that linked itself before this load
  // is woken, one that links itself later polls and finds the value.
  void notify() noexcept {
    if (count_.load(std::memory_order_seq_cst) == 0) return;
    notify_slow();
  }

 private:
  void notify_slow() noexcept {
    SelectWaiter* woken = nullptr;
    lock_.lock();
    for (WatchLink* l = head_; l; l = l->next) {
      SelectWaiter* w = l->waiter;
      if (!w->notified.exchange(true, std::memory_order_acq_rel)) {
        w->next_woken = woken;
        woken = w;
      }
    }
    lock_.unlock();
    while (woken) {
      SelectWaiter* next = woken->next_woken;  // before set(): the waiter may return after it
      woken->signal.set();
      woken = next;
    }
  }

  weft::detail::SpinLock lock_;
  WatchLink* head_ = nullptr;
  std::atomic<int> count_{0};
};

}  // namespace weft::sync::detail
