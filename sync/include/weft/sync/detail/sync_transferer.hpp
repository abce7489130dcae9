#pragma once
// The type-erased core of a synchronous (unbuffered) channel: one transfer()
// for every operation, as in the JDK 6 SynchronousQueue built from the
// synchronous-queues paper (Scherer, Lea & Scott, PPoPP'06). A producer
// passes a pointer to its value, a consumer a pointer to an empty
// std::optional<T> to fill; the one who completes a hand-off moves the value
// with the MoveValue function the typed wrapper supplies. The two
// implementations are the paper's fair dual queue (detail/dual_queue_core.hpp)
// and unfair dual stack (detail/dual_stack_core.hpp).
//
// close() is weft's extension (the paper has none): it wakes every waiter
// with `closed`; later transfers fail with `closed` at once.

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "weft/sync/detail/handoff.hpp"

namespace weft::sync::detail {

class ChannelWatchers;

enum class TransferStatus : std::uint8_t {
  success,
  unavailable,  // no partner was waiting and the operation could not wait
  timeout,      // its deadline passed first (it was cancelled: nothing moved)
  closed,       // the channel is closed (nothing moved)
};

// Moves the value at `from` (a T*) into `to` (an empty std::optional<T>*).
using MoveValue = void (*)(void* from, void* to) noexcept;

class SyncTransferer {
 public:
  SyncTransferer(MoveValue move, ChannelWatchers* watchers) noexcept : move_(move), watchers_(watchers) {}
  virtual ~SyncTransferer() = default;
  SyncTransferer(const SyncTransferer&) = delete;
  SyncTransferer& operator=(const SyncTransferer&) = delete;

  // is_data: `slot` is the producer's T (moved from only on success);
  // otherwise the consumer's empty std::optional<T> (filled on success).
  virtual TransferStatus transfer(void* slot, bool is_data, const Patience& patience) = 0;
  // Closes: every waiting producer and consumer returns `closed`.
  virtual void close() = 0;
  bool closed() const noexcept { return closed_.load(std::memory_order_seq_cst); }
  // Nodes currently linked into the structure (waiters, cancelled nodes not
  // yet cleaned, the queue's dummy). A snapshot for tests and statistics.
  virtual std::size_t linked_nodes() const = 0;

 protected:
  MoveValue move_;
  ChannelWatchers* watchers_;  // may be null
  std::atomic<bool> closed_{false};
};

}  // namespace weft::sync::detail
