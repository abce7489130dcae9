#pragma once
// weft::sync::Select: receive from whichever of several channels is ready
// first (Go's select over receive cases, Boost.Fiber users' "wait on
// several channels"), with a default case (try_select) or a timeout.
//
//   weft::sync::Select sel;
//   sel.on_receive(numbers, [&](int v) { ... })
//      .on_receive(words, [&](std::string w) { ... });
//   SelectResult r = sel.select();           // waits; r.index = the case that ran
//   r = sel.try_select();                    // default case: would_block if none ready
//   r = sel.select_for(10ms);                // timeout
//
// Cases are polled starting at a rotating position, so a channel that is
// always ready cannot starve the others. A closed and drained channel takes
// no part; when every channel is closed and drained the select returns
// `closed`. When no case is ready the selector links itself to every
// channel's watcher list (detail/channel_watchers.hpp), polls once more (no
// lost wake-up), and parks until a channel gets a value for it or closes.
// A Select may be reused; it is not shared between ULTs.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "weft/sync/channel.hpp"
#include "weft/sync/detail/channel_watchers.hpp"

namespace weft::sync {

enum class SelectStatus {
  received,     // `index` names the case whose handler ran
  would_block,  // try_select: no case was ready
  timeout,      // select_for/select_until: the deadline passed first
  closed,       // every channel is closed and drained
};

struct SelectResult {
  SelectStatus status;
  std::size_t index;  // meaningful when status == received
};

class Select {
 public:
  // Adds a case: a value received from `ch` is passed to handler(T).
  template <class T, class F>
  Select& on_receive(Channel<T>& ch, F handler) {
    cases_.push_back(Case{
        [&ch, h = std::move(handler)](const detail::Patience& p) mutable {
          std::optional<T> v;
          const ChannelStatus st = ch.receive_with(v, p);
          if (st == ChannelStatus::success) h(std::move(*v));
          return st;
        },
        &ch.watchers()});
    return *this;
  }

  SelectResult select() { return run(detail::Patience::forever()); }
  SelectResult try_select() { return run(detail::Patience::none()); }
  template <class Rep, class Period>
  SelectResult select_for(std::chrono::duration<Rep, Period> timeout) {
    return run(detail::Patience::for_(timeout));
  }
  SelectResult select_until(std::chrono::steady_clock::time_point deadline) {
    return run(detail::Patience::until(deadline));
  }
  std::size_t size() const noexcept { return cases_.size(); }

 private:
  struct Case {
    std::function<ChannelStatus(const detail::Patience&)> poll;
    detail::ChannelWatchers* watchers;
  };

  // Where a poll starts: a per-thread xorshift, so that even a Select built
  // afresh for every call does not always favour its first case.
  static std::size_t rotating_start() noexcept {
    thread_local std::uint32_t x = 0x9E3779B9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
  }

  // One pass over every case without waiting, from the rotating start.
  SelectResult poll_all() {
    const std::size_t n = cases_.size();
    const std::size_t first = rotating_start() % n;
    std::size_t closed = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (first + k) % n;
      const ChannelStatus st = cases_[i].poll(detail::Patience::none());
      if (st == ChannelStatus::success) return {SelectStatus::received, i};
      if (st == ChannelStatus::closed) ++closed;
    }
    return {closed == n ? SelectStatus::closed : SelectStatus::would_block, n};
  }

  SelectResult run(const detail::Patience& patience) {
    if (cases_.empty()) throw std::invalid_argument("weft::sync::Select: no receive case was added");
    for (;;) {
      SelectResult r = poll_all();
      if (r.status != SelectStatus::would_block) return r;
      if (patience.exhausted())
        return {patience.kind == detail::Patience::Kind::none ? SelectStatus::would_block : SelectStatus::timeout,
                cases_.size()};
      // Link to every channel, poll again, then park until notified.
      detail::SelectWaiter waiter;
      links_.assign(cases_.size(), detail::WatchLink{});
      for (std::size_t i = 0; i < cases_.size(); ++i) {
        links_[i].waiter = &waiter;
        cases_[i].watchers->add(&links_[i]);
      }
      r = poll_all();
      if (r.status == SelectStatus::would_block) (void)detail::wait_flag(waiter.signal, patience);
      for (std::size_t i = 0; i < cases_.size(); ++i) cases_[i].watchers->remove(&links_[i]);
      // A notifier that marked us sets the signal after dropping its
      // lock: wait for that before `waiter` goes out of scope.
      if (waiter.notified.load(std::memory_order_acquire)) waiter.signal.wait();
      if (r.status != SelectStatus::would_block) return r;
    }
  }

  std::vector<Case> cases_;
  std::vector<detail::WatchLink> links_;
};

}  // namespace weft::sync

namespace weft {
using sync::Select;
using sync::SelectResult;
using sync::SelectStatus;
}  // namespace weft
