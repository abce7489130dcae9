#pragma once
// The node of the synchronous dual queue and dual stack (Scherer, Lea &
// Scott, PPoPP'06, §3.3), with what replaces the paper's garbage collector.
//
// Fields, as in the paper's QNode/SNode: `next`; `claim`, the word a partner
// CASes to take the node (the paper's item/match: the queue's casItem, the
// stack's tryMatch) and its owner CASes to cancel it (the paper's
// tryCancel); the owner's value or destination (`slot`); and where the owner
// waits (`signal`). A partner that wins the claim moves the value, then
// sets the signal.
//
// Memory (the paper leaves it to the Java GC, §3.3.3):
//  * Removal is marked: before a node is unlinked, its own `next` is frozen
//    (low bit set), and every unlink is a CAS on an unmarked `next` (or on
//    head). So a node that is being removed never gets successors linked
//    through it, an unlinked node is never linked again (the relinking race
//    the paper notes for its stack cleaner, §3.3.3), and exactly one CAS
//    removes each node: the thread whose CAS it is drops the list's hold.
//  * `holds` counts what keeps a node from reclamation: the list (until the
//    node is unlinked), its owner (until its operation returns), the fair
//    queue's cleanMe, and a queue waiter's hold on its predecessor while it
//    parks. The last drop retires the node (detail/epoch.hpp), which frees it
//    once no thread inside an operation can still reach it.
//  * Nodes come from a pool (detail/node_pool.hpp): no allocation per
//    hand-off once warm.

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/epoch.hpp"
#include "weft/sync/detail/handoff.hpp"
#include "weft/sync/detail/node_pool.hpp"
#include "weft/sync/detail/sync_transferer.hpp"

namespace weft::sync::detail {

// claim values; any other value is the stack's matching fulfiller node.
inline constexpr std::uintptr_t kUnclaimed = 0;
inline constexpr std::uintptr_t kCancelled = 1;  // its owner gave up (timeout, or closed before any partner came)
inline constexpr std::uintptr_t kClosed = 2;     // close() took it: its owner returns `closed`
inline constexpr std::uintptr_t kClaimed = 3;    // the queue's partner took it

inline constexpr std::uintptr_t kMarked = 1;  // low bit of `next`: the node is being removed

struct alignas(cache_line_size) DualNode : Retired {
  std::atomic<std::uintptr_t> next{0};
  std::atomic<std::uintptr_t> claim{kUnclaimed};
  std::atomic<std::uint32_t> holds{0};
  std::uint8_t mode = 0;  // the queue: 1 = data; the stack: kRequest/kData | kFulfilling
  void* slot = nullptr;   // the owner's T (data) or std::optional<T> (request)
  ParkingFlag signal;  // set by whoever claimed the node, once the value moved
};
static_assert(sizeof(DualNode) == cache_line_size, "a dual node is one cache line");

inline DualNode* node_of(std::uintptr_t link) noexcept { return reinterpret_cast<DualNode*>(link & ~kMarked); }
inline std::uintptr_t link_of(const DualNode* n) noexcept { return reinterpret_cast<std::uintptr_t>(n); }
inline bool is_cancelled(const DualNode* n) noexcept {
  const std::uintptr_t c = n->claim.load(std::memory_order_seq_cst);
  return c == kCancelled || c == kClosed;
}

// A fresh node with `holds` holds; not yet visible to anyone.
inline DualNode* new_dual_node(std::uint8_t mode, void* slot, std::uint32_t holds) {
  DualNode* n = NodePool<DualNode>::allocate();
  n->reclaim = &NodePool<DualNode>::reclaim;
  n->next.store(0, std::memory_order_relaxed);
  n->claim.store(kUnclaimed, std::memory_order_relaxed);
  n->holds.store(holds, std::memory_order_relaxed);
  n->mode = mode;
  n->slot = slot;
  n->signal.reset();
  return n;
}
// A node that was never published.
inline void free_unpublished(DualNode* n) noexcept {
  if (n) NodePool<DualNode>::recycle(n);
}

inline void drop_hold(DualNode* n, std::uint32_t k = 1) noexcept {
  if (n->holds.fetch_sub(k, std::memory_order_acq_rel) == k) retire(n);
}
// One more hold, unless the node already lost its last one (it is then
// unlinked, and its owner gone).
inline bool try_hold(DualNode* n) noexcept {
  std::uint32_t h = n->holds.load(std::memory_order_acquire);
  while (h != 0)
    if (n->holds.compare_exchange_weak(h, h + 1, std::memory_order_acq_rel, std::memory_order_acquire)) return true;
  return false;
}

// Freezes n->next (whatever it points to now) and returns the frozen link.
inline std::uintptr_t freeze_next(DualNode* n) noexcept {
  std::uintptr_t v = n->next.load(std::memory_order_seq_cst);
  while (!(v & kMarked))
    if (n->next.compare_exchange_weak(v, v | kMarked, std::memory_order_seq_cst)) return v | kMarked;
  return v;
}

// Nodes reachable from `head` (a snapshot, for tests and statistics). The
// caller holds an epoch guard.
inline std::size_t count_linked(DualNode* head) noexcept {
  std::size_t count = 0;
  for (DualNode* n = head; n; n = node_of(n->next.load(std::memory_order_seq_cst))) ++count;
  return count;
}
// close(): claims every unclaimed node reachable from `head` whose mode has
// none of `skip_modes` bits with `closed` and wakes its owner. The caller
// holds an epoch guard.
inline void close_linked(DualNode* head, std::uint8_t skip_modes) noexcept {
  for (DualNode* n = head; n; n = node_of(n->next.load(std::memory_order_seq_cst))) {
    if (n->mode & skip_modes) continue;
    std::uintptr_t c = kUnclaimed;
    if (n->claim.compare_exchange_strong(c, kClosed, std::memory_order_seq_cst)) n->signal.set();
  }
}

// The waiting half of an operation whose node `s` is linked (the paper's
// awaitFulfill, §3.3.1-2): spins briefly, then parks until a partner sets
// s's flag, and when the patience runs out tries to cancel s (the
// paper's tryCancel: a CAS on the claim, which a partner's claim beats; then
// the partner's completion is imminent and awaited). A linked node of a
// closed channel is claimed here with `closed` (the close() that raced with
// linking it may have missed it). Returns success, timeout (s cancelled) or
// closed (s claimed by close).
inline TransferStatus await_fulfil(DualNode* s, const Patience& patience, const std::atomic<bool>& closed) {
  std::uintptr_t c = kUnclaimed;
  if (closed.load(std::memory_order_seq_cst) && s->claim.compare_exchange_strong(c, kClosed)) {
    s->signal.set();
  } else if (!wait_flag(s->signal, patience)) {
    c = kUnclaimed;
    if (s->claim.compare_exchange_strong(c, kCancelled)) return TransferStatus::timeout;
    s->signal.wait();  // a partner claimed s first: its set() comes
  }
  return s->claim.load(std::memory_order_seq_cst) == kClosed ? TransferStatus::closed : TransferStatus::success;
}

}  // namespace weft::sync::detail
