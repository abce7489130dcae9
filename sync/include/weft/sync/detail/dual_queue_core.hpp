#pragma once
// The fair synchronous dual queue of Scherer, Lea & Scott ("Scalable
// Synchronous Queues", PPoPP'06, §3.2 "The synchronous dual queue", Listing 5,
// and §3.3 for cancellation and cleaning): a linked FIFO of waiting producers
// or waiting consumers (never both). An operation that finds waiters of the
// complementary mode fulfils the oldest one; otherwise it appends its own
// node and waits there. Waiters are served in arrival order (fair).
//
// Differences from the paper, for C++ without a garbage collector:
//  * The value never enters the node: the node points at the producer's T or
//    the consumer's std::optional<T>, and whoever wins the node's claim moves
//    the value, then completes the waiter's signal (detail/dual_node.hpp).
//  * Memory: holds and epochs (detail/dual_node.hpp); every removal freezes
//    the removed node's `next` first, so "pred.casNext(s, s.next)" on a pred
//    that is itself already off the list fails instead of succeeding on a
//    dead node as it harmlessly does in Java.
//  * The tail never lags behind the head (advance_head moves the tail off a
//    node before it leaves), so no dequeued node is reachable from `tail`.
//  * close() (weft's): every waiter is claimed with `closed` and woken.

#include <atomic>
#include <cstddef>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/dual_node.hpp"
#include "weft/sync/detail/sync_transferer.hpp"

namespace weft::sync::detail {

class DualQueueCore final : public SyncTransferer {
 public:
  DualQueueCore(MoveValue move, ChannelWatchers* watchers);
  ~DualQueueCore() override;

  TransferStatus transfer(void* slot, bool is_data, const Patience& patience) override;
  void close() override;
  std::size_t linked_nodes() const override;

 private:
  friend struct DualQueueCoreTestPeer;  // tests/sync/channel_test.cpp builds the states races leave

  // The paper's advanceHead(h, nh): h (the dummy) leaves and nh, its
  // successor that the caller found served or cancelled, becomes the dummy.
  // Does nothing when h.next no longer leads to nh (a cleaner unlinked it).
  void advance_head(DualNode* h, DualNode* nh) noexcept;
  void advance_tail(DualNode* t, DualNode* n) noexcept;
  // Removes cancelled s from after pred if s is not the last node. It
  // freezes s.next first; when pred has left meanwhile the unlink fails and
  // s stays linked, frozen (later as the head, perhaps): a frozen next
  // means "link nothing here", not "off the list".
  bool unsplice(DualNode* pred, DualNode* s) noexcept;
  // The unlink itself: freezes s.next (final from then on), then CASes
  // pred.next from s to s's successor; false when pred.next is no longer s.
  bool unlink_after(DualNode* pred, DualNode* s) noexcept;
  // Unlinks every cancelled node behind the head but the last, frozen ones
  // (left linked by failed unsplices) included, so that at most the paper's
  // one cancelled node stays. Walks the list: called only where a race left
  // a cancelled node that no clean would unlink (a failed unsplice, a clean
  // whose pred left first).
  // A cancelled last node found there is remembered (cleanMe), as clean()
  // remembers its own; a cancelled node behind a frozen head is absorbed as
  // the head.
  void sweep_cancelled() noexcept;
  // Saves pred in cleanMe (with a hold) unless another node is saved there:
  // its successor, cancelled and last, is unlinked by a later clean.
  bool remember(DualNode* pred) noexcept;
  // The paper's clean(pred, s) (§3.3.3, Listing 7).
  void clean(DualNode* pred, DualNode* s) noexcept;
  TransferStatus await_partner(DualNode* s, DualNode* pred, bool is_data, const Patience& patience);

  alignas(cache_line_size) std::atomic<DualNode*> head_;
  alignas(cache_line_size) std::atomic<DualNode*> tail_;
  alignas(cache_line_size) std::atomic<DualNode*> clean_me_{nullptr};  // pred of a cancelled last node
  // Tests only (DualQueueCoreTestPeer), null otherwise: runs where a sweep
  // has found a cancelled last node and is about to remember its pred, so
  // that a test can let a racing clean in there.
  void (*sweep_race_point_)(DualQueueCore&) = nullptr;
};

}  // namespace weft::sync::detail
