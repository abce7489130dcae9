#pragma once
// weft::sync::SynchronousQueue<T>: the synchronous queues of Scherer, Lea &
// Scott ("Scalable Synchronous Queues", PPoPP'06) under the paper's (and
// java.util.concurrent.SynchronousQueue's) names: put/take wait for a
// partner, offer/poll hand off only if a partner is already waiting or
// comes before a timeout. Fair mode is the dual queue (§3.2), unfair mode
// the dual stack (§3.1). It is an unbuffered weft::sync::Channel<T>
// (weft/sync/channel.hpp) seen through those names; close() is weft's
// addition (put/take then throw ChannelClosed, offer/poll fail).

#include <chrono>
#include <optional>
#include <utility>

#include "weft/sync/channel.hpp"

namespace weft::sync {

template <class T>
class SynchronousQueue {
 public:
  explicit SynchronousQueue(ChannelOrder order = ChannelOrder::fair) : channel_(0, order) {}

  // Waits until a taker has `value`. Throws ChannelClosed once closed.
  void put(T value) { channel_.send(std::move(value)); }
  // Waits for a putter's value. Throws ChannelClosed once closed.
  T take() {
    std::optional<T> v = channel_.receive();
    if (!v) throw ChannelClosed();
    return std::move(*v);
  }
  // Hands `value` to a taker that is already waiting; false (value kept) if none.
  bool offer(T& value) { return channel_.try_send(value) == ChannelStatus::success; }
  // ... or to one that comes within `timeout` (the paper's timed offer).
  template <class Rep, class Period>
  bool offer(T& value, std::chrono::duration<Rep, Period> timeout) {
    return channel_.send_for(value, timeout) == ChannelStatus::success;
  }
  // Takes from a putter that is already waiting.
  std::optional<T> poll() { return poll_with(detail::Patience::none()); }
  // ... or from one that comes within `timeout` (the paper's timed poll).
  template <class Rep, class Period>
  std::optional<T> poll(std::chrono::duration<Rep, Period> timeout) {
    return poll_with(detail::Patience::for_(timeout));
  }

  void close() { channel_.close(); }
  bool closed() const noexcept { return channel_.closed(); }
  // The underlying channel (for select, range-for).
  Channel<T>& channel() noexcept { return channel_; }

 private:
  std::optional<T> poll_with(const detail::Patience& p) {
    std::optional<T> v;
    if (channel_.receive_with(v, p) != ChannelStatus::success) return std::nullopt;
    return v;
  }

  Channel<T> channel_;
};

}  // namespace weft::sync
