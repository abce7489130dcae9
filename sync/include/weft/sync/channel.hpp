#pragma once
// weft::sync::Channel<T>: Go-style channels for ULTs and plain threads.
//
//  * Unbuffered (capacity 0, the default): every send meets a receive (a
//    synchronous hand-off), built on the synchronous queues of Scherer, Lea &
//    Scott (PPoPP'06): the fair dual queue (FIFO waiters, the default) or the
//    unfair dual stack (LIFO waiters, ChannelOrder::unfair).
//  * Buffered (capacity >= 1): a bounded FIFO buffer (detail/channel_buffer.hpp).
//
// close(): later sends fail (send() throws ChannelClosed, the others return
// ChannelStatus::closed); receivers first drain what is buffered, then see
// `closed`; waiting senders and receivers are woken with `closed` (a blocked
// sender's value stays with it). Range-for receives until closed and drained.
// Waiting ULTs park (their worker runs other ULTs); waiting plain threads
// spin briefly, then sleep. Values are moved, never copied (move-only T
// works); an unbuffered hand-off allocates nothing once the node pool is warm,
// a buffered channel allocates its ring once.
// Select over several channels: weft/sync/select.hpp.

#include <chrono>
#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "weft/sync/detail/channel_buffer.hpp"
#include "weft/sync/detail/channel_watchers.hpp"
#include "weft/sync/detail/dual_queue_core.hpp"
#include "weft/sync/detail/dual_stack_core.hpp"
#include "weft/sync/detail/sync_transferer.hpp"

namespace weft::sync {

// What a non-throwing channel operation did.
enum class ChannelStatus {
  success,
  would_block,  // try_send/try_receive: no partner ready (unbuffered) or buffer full/empty
  timeout,      // the deadline passed first; nothing moved
  closed,       // the channel is closed (and, for a receive, drained)
};

// Waiter order of an unbuffered channel (the paper's fair and unfair modes).
enum class ChannelOrder {
  fair,    // dual queue: waiters served in arrival order
  unfair,  // dual stack: the latest waiter first
};

// Thrown by Channel::send() on a closed channel.
class ChannelClosed : public std::runtime_error {
 public:
  ChannelClosed() : std::runtime_error("weft::sync::Channel: send on a closed channel") {}
};

namespace detail {
inline ChannelStatus to_channel_status(TransferStatus s) noexcept {
  switch (s) {
    case TransferStatus::success: return ChannelStatus::success;
    case TransferStatus::unavailable: return ChannelStatus::would_block;
    case TransferStatus::timeout: return ChannelStatus::timeout;
    case TransferStatus::closed: return ChannelStatus::closed;
  }
  return ChannelStatus::closed;
}
}  // namespace detail

template <class T>
class Channel {
  static_assert(std::is_move_constructible_v<T>, "Channel<T> needs a move-constructible T");
  static_assert(std::is_nothrow_move_constructible_v<T>,
                "Channel<T> moves values inside lock-free hand-offs: T's move constructor must be noexcept");

 public:
  using value_type = T;

  // capacity 0: unbuffered (synchronous). `order` applies to unbuffered
  // channels only; a buffered channel is FIFO.
  explicit Channel(std::size_t capacity = 0, ChannelOrder order = ChannelOrder::fair) {
    if (capacity == 0) {
      if (order == ChannelOrder::fair)
        sync_ = std::make_unique<detail::DualQueueCore>(&move_value, &watchers_);
      else
        sync_ = std::make_unique<detail::DualStackCore>(&move_value, &watchers_);
    } else {
      buffer_ = std::make_unique<detail::ChannelBuffer<T>>(capacity, &watchers_);
    }
  }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Blocks until a receiver takes `value` (unbuffered) or it is buffered.
  // Throws ChannelClosed if the channel is or gets closed first.
  void send(T value) {
    if (send_with(value, detail::Patience::forever()) == ChannelStatus::closed) throw ChannelClosed();
  }
  // Sends only if that needs no waiting. On anything but success `value` is
  // left untouched (still the caller's).
  ChannelStatus try_send(T& value) { return send_with(value, detail::Patience::none()); }
  template <class Rep, class Period>
  ChannelStatus send_for(T& value, std::chrono::duration<Rep, Period> timeout) {
    return send_with(value, detail::Patience::for_(timeout));
  }
  ChannelStatus send_until(T& value, std::chrono::steady_clock::time_point deadline) {
    return send_with(value, detail::Patience::until(deadline));
  }

  // Blocks for a value; std::nullopt once the channel is closed and drained.
  std::optional<T> receive() {
    std::optional<T> out;
    receive_with(out, detail::Patience::forever());
    return out;
  }
  // Receives into `out` (move-assigned) only if that needs no waiting.
  ChannelStatus try_receive(T& out) { return receive_into(out, detail::Patience::none()); }
  template <class Rep, class Period>
  ChannelStatus receive_for(T& out, std::chrono::duration<Rep, Period> timeout) {
    return receive_into(out, detail::Patience::for_(timeout));
  }
  ChannelStatus receive_until(T& out, std::chrono::steady_clock::time_point deadline) {
    return receive_into(out, detail::Patience::until(deadline));
  }

  // Closes the channel (idempotent); see the header comment.
  void close() {
    if (sync_)
      sync_->close();
    else
      buffer_->close();
  }
  bool closed() const noexcept { return sync_ ? sync_->closed() : buffer_->closed(); }
  std::size_t capacity() const noexcept { return buffer_ ? buffer_->capacity() : 0; }

  // Range-for: receives until the channel is closed and drained.
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(Channel* ch) : ch_(ch) { ++*this; }
    T& operator*() { return *current_; }
    iterator& operator++() {
      current_ = ch_->receive();
      if (!current_) ch_ = nullptr;
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.ch_ == b.ch_; }

   private:
    Channel* ch_ = nullptr;
    std::optional<T> current_;
  };
  iterator begin() { return iterator(this); }
  iterator end() { return iterator(); }

  // For select (weft/sync/select.hpp) and tests.
  detail::ChannelWatchers& watchers() noexcept { return watchers_; }
  // Receives into `out` with the given patience (select's poll).
  ChannelStatus receive_with(std::optional<T>& out, const detail::Patience& patience) {
    if (sync_) return detail::to_channel_status(sync_->transfer(&out, false, patience));
    return detail::to_channel_status(buffer_->receive(&out, patience));
  }
  // Unbuffered channels: nodes linked in the dual queue/stack (waiters,
  // cancelled nodes not yet cleaned, the queue's dummy); 0 when buffered.
  std::size_t linked_nodes() const { return sync_ ? sync_->linked_nodes() : 0; }

 private:
  static void move_value(void* from, void* to) noexcept {
    static_cast<std::optional<T>*>(to)->emplace(std::move(*static_cast<T*>(from)));
  }
  ChannelStatus send_with(T& value, const detail::Patience& patience) {
    if (sync_) return detail::to_channel_status(sync_->transfer(&value, true, patience));
    return detail::to_channel_status(buffer_->send(&value, patience));
  }
  ChannelStatus receive_into(T& out, const detail::Patience& patience) {
    std::optional<T> got;
    const ChannelStatus st = receive_with(got, patience);
    if (st == ChannelStatus::success) out = std::move(*got);
    return st;
  }

  detail::ChannelWatchers watchers_;
  std::unique_ptr<detail::SyncTransferer> sync_;
  std::unique_ptr<detail::ChannelBuffer<T>> buffer_;
};

}  // namespace weft::sync

namespace weft {
// Channels are a user-facing type: weft::Channel<T> as well as weft::sync::Channel<T>.
using sync::Channel;
using sync::ChannelClosed;
using sync::ChannelOrder;
using sync::ChannelStatus;
}  // namespace weft
