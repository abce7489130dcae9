#pragma once
// The unfair synchronous dual stack of Scherer, Lea & Scott ("Scalable
// Synchronous Queues", PPoPP'06, §3.1 "The synchronous dual stack", Listing
// 3, and §3.3 for cancellation and cleaning): a Treiber stack of waiting
// producers or consumers (never both). An operation that finds a
// complementary waiter on top pushes a *fulfilling* node above it, matches
// the waiter below (tryMatch) and pops both; anyone who meets a fulfilling
// node on top helps it first. The most recent waiter is served first
// (unfair, and better locality).
//
// As in the dual queue (detail/dual_queue_core.hpp): values stay with their
// owners, nodes are kept alive by holds and epochs, every removal freezes the
// removed node's `next` first (which closes the relinking race the paper
// notes for its cleaner, §3.3.3), and close() claims every waiter.

#include <atomic>
#include <cstddef>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/dual_node.hpp"
#include "weft/sync/detail/sync_transferer.hpp"

namespace weft::sync::detail {

class DualStackCore final : public SyncTransferer {
 public:
  DualStackCore(MoveValue move, ChannelWatchers* watchers);
  ~DualStackCore() override;

  TransferStatus transfer(void* slot, bool is_data, const Patience& patience) override;
  void close() override;
  std::size_t linked_nodes() const override;

 private:
  // casHead(h, h.next): h (cancelled, or a fulfilling node with nothing
  // below) leaves.
  void pop_head(DualNode* h) noexcept;
  // casHead(f, m.next): the fulfilling node f and its matched m leave.
  void pop_pair(DualNode* f, DualNode* m) noexcept;
  // p.casNext(m, m.next): m (cancelled) leaves from below p.
  void unlink_next(DualNode* p, DualNode* m) noexcept;
  // The paper's tryMatch: true if m is (now) matched to fulfilling node f.
  static bool try_match(DualNode* m, DualNode* f) noexcept;
  // The paper's clean(s) (§3.3.3, Listing 6).
  void clean(DualNode* s) noexcept;
  TransferStatus await_partner(DualNode* s, bool is_data, const Patience& patience);

  alignas(cache_line_size) std::atomic<DualNode*> head_{nullptr};
};

}  // namespace weft::sync::detail
