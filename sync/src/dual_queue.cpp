// The synchronous dual queue (detail/dual_queue_core.hpp): Scherer, Lea &
// Scott, PPoPP'06, §3.2 (Listing 5, transfer) and §3.3.3 (Listing 7, clean).
#include "weft/sync/detail/dual_queue_core.hpp"

#include "weft/sync/detail/channel_watchers.hpp"

namespace weft::sync::detail {

namespace {
constexpr std::uint8_t kDataMode = 1;
constexpr std::uint8_t kRequestMode = 0;
}  // namespace

DualQueueCore::DualQueueCore(MoveValue move, ChannelWatchers* watchers) : SyncTransferer(move, watchers) {
  // The dummy node: held by the list only, never a waiter.
  DualNode* dummy = new_dual_node(kRequestMode, nullptr, 1);
  dummy->claim.store(kClaimed, std::memory_order_relaxed);
  head_.store(dummy, std::memory_order_relaxed);
  tail_.store(dummy, std::memory_order_relaxed);
}

DualQueueCore::~DualQueueCore() {
  // No operation is running: drop the cleanMe hold and the list's holds.
  if (DualNode* dp = clean_me_.load(std::memory_order_relaxed)) drop_hold(dp);
  DualNode* n = head_.load(std::memory_order_relaxed);
  while (n) {
    DualNode* next = node_of(n->next.load(std::memory_order_relaxed));
    drop_hold(n);
    n = next;
  }
}

void DualQueueCore::advance_tail(DualNode* t, DualNode* n) noexcept {
  tail_.compare_exchange_strong(t, n, std::memory_order_seq_cst);
}

void DualQueueCore::advance_head(DualNode* h, DualNode* nh) noexcept {
  // Freeze h.next, but only while it still leads to nh: a cleaner may have
  // unspliced nh (cancelled) since the caller read it, and then h.next leads
  // to a waiter that nobody served, which must not become the dummy.
  std::uintptr_t link = h->next.load(std::memory_order_seq_cst);
  while (!(link & kMarked) && node_of(link) == nh)
    if (h->next.compare_exchange_weak(link, link | kMarked, std::memory_order_seq_cst)) link |= kMarked;
  if (node_of(link) != nh) return;  // the caller looks again
  DualNode* t = h;
  tail_.compare_exchange_strong(t, nh, std::memory_order_seq_cst);  // the tail never stays behind
  DualNode* expected = h;
  if (head_.compare_exchange_strong(expected, nh, std::memory_order_seq_cst)) drop_hold(h);
}

bool DualQueueCore::unlink_after(DualNode* pred, DualNode* s) noexcept {
  const std::uintptr_t sn = freeze_next(s) & ~kMarked;
  std::uintptr_t expected = link_of(s);
  if (!pred->next.compare_exchange_strong(expected, sn, std::memory_order_seq_cst)) return false;
  drop_hold(s);
  return true;
}

bool DualQueueCore::unsplice(DualNode* pred, DualNode* s) noexcept {
  if (s->next.load(std::memory_order_seq_cst) == 0) return false;  // s is last: it stays
  if (unlink_after(pred, s)) return true;
  sweep_cancelled();  // pred left first: s stays linked, frozen, unless unlinked from its new pred
  return false;
}

void DualQueueCore::sweep_cancelled() noexcept {
  // A node is frozen before it leaves, so a p whose next is not marked is
  // linked, and a frozen n behind it was never the head (every node before a
  // head is frozen): n is a cancelled node whose unsplice failed or is under
  // way. A cancelled n that is not last is unlinked as unsplice() does it
  // (unlink_after), racing only with other unlinks of n through p.next.
  DualNode* p = head_.load(std::memory_order_seq_cst);
  while (p) {
    const std::uintptr_t link = p->next.load(std::memory_order_seq_cst);
    DualNode* n = node_of(link);
    if (n == nullptr) return;
    if (link & kMarked) {
      // p is leaving, or p is the head and its next was frozen by an
      // unsplice that failed before p became the head. Nothing unlinks n
      // from a frozen p: a cancelled n can only become the head (§3.3.3,
      // Listing 8 lines 04-07, "absorb cancelled first node").
      // advance_head does nothing unless p is the head.
      if (is_cancelled(n)) advance_head(p, n);
      p = n;
      continue;
    }
    const std::uintptr_t after = n->next.load(std::memory_order_seq_cst);
    if (after == 0 && is_cancelled(n)) {  // n is last: it can leave only once something follows it
      if (sweep_race_point_) sweep_race_point_(*this);
      // A clean that holds cleanMe sweeps when it clears it. But n may have
      // got a successor since we read it, whose clean could remember n
      // itself and leave: then only this sweep unlinks n (look at p again).
      if (remember(p) || n->next.load(std::memory_order_seq_cst) == 0) return;
      continue;
    }
    if (after == 0 || !((after & kMarked) || is_cancelled(n))) {  // n is last, or waits
      p = n;
      continue;
    }
    // The tail may lag on n: first move it to the last node, which n
    // precedes, so that it never rests on n once n is unlinked.
    DualNode* t = tail_.load(std::memory_order_seq_cst);
    const std::uintptr_t tn = t->next.load(std::memory_order_seq_cst);
    if (tn != 0) {
      advance_tail(t, node_of(tn));
      continue;
    }
    unlink_after(p, n);  // and look at p's successor again
  }
}

bool DualQueueCore::remember(DualNode* pred) noexcept {
  if (clean_me_.load(std::memory_order_seq_cst) != nullptr || !try_hold(pred)) return false;
  DualNode* expected = nullptr;
  if (clean_me_.compare_exchange_strong(expected, pred, std::memory_order_seq_cst)) return true;
  drop_hold(pred);
  return false;
}

TransferStatus DualQueueCore::transfer(void* slot, bool is_data, const Patience& patience) {
  const std::uint8_t mode = is_data ? kDataMode : kRequestMode;
  DualNode* s = nullptr;
  DualNode* pred = nullptr;
  {
    EpochGuard guard;
    for (;;) {
      if (closed()) {
        free_unpublished(s);
        return TransferStatus::closed;
      }
      DualNode* t = tail_.load(std::memory_order_seq_cst);
      DualNode* h = head_.load(std::memory_order_seq_cst);
      if (t == h || t->mode == mode) {  // empty, or waiters of our mode: wait behind them
        const std::uintptr_t n = t->next.load(std::memory_order_seq_cst);
        if (t != tail_.load(std::memory_order_seq_cst)) continue;
        if (n != 0) {  // lagging tail
          advance_tail(t, node_of(n));
          continue;
        }
        if (patience.exhausted()) {
          free_unpublished(s);
          return patience.kind == Patience::Kind::none ? TransferStatus::unavailable : TransferStatus::timeout;
        }
        if (!s) s = new_dual_node(mode, slot, 2);  // the list's hold and ours
        if (!try_hold(t)) continue;                // t already left: the queue moved on
        std::uintptr_t expected = 0;
        if (!t->next.compare_exchange_strong(expected, link_of(s), std::memory_order_seq_cst)) {
          drop_hold(t);
          continue;
        }
        advance_tail(t, s);
        pred = t;
        break;
      }
      // Complementary waiters: fulfil the oldest, m = h.next.
      const std::uintptr_t hn = h->next.load(std::memory_order_seq_cst);
      DualNode* m = node_of(hn);
      if (t != tail_.load(std::memory_order_seq_cst) || m == nullptr || h != head_.load(std::memory_order_seq_cst))
        continue;  // inconsistent snapshot
      if (m->mode == mode) continue;  // the queue emptied and refilled with our mode
      // The claim alone decides. A frozen h.next does not mean that m was
      // served: a cleaner whose unsplice of a cancelled h failed (its pred
      // had left meanwhile) leaves h frozen, and h may since have become the
      // head; advancing past h then would make a waiting m the dummy, and
      // its owner would wait for ever.
      std::uintptr_t c = kUnclaimed;
      if (!m->claim.compare_exchange_strong(c, kClaimed, std::memory_order_seq_cst)) {
        advance_head(h, m);  // m was fulfilled, cancelled or closed: dequeue it and retry
        continue;
      }
      advance_head(h, m);
      if (is_data)
        move_(slot, m->slot);
      else
        move_(m->slot, slot);
      m->signal.set();
      free_unpublished(s);
      return TransferStatus::success;
    }
  }
  if (is_data && watchers_) watchers_->notify();  // a sender waits: selectors can receive
  return await_partner(s, pred, is_data, patience);
}

TransferStatus DualQueueCore::await_partner(DualNode* s, DualNode* pred, bool, const Patience& patience) {
  const TransferStatus st = await_fulfil(s, patience, closed_);
  {
    EpochGuard guard;
    if (st == TransferStatus::success) {
      // Listing 5's "if (!s.isOffList()) advanceHead(t, s)": help our
      // partner move the head past our predecessor.
      if (head_.load(std::memory_order_seq_cst) == pred && node_of(pred->next.load()) == s) advance_head(pred, s);
    } else {
      clean(pred, s);
    }
  }
  drop_hold(pred);
  drop_hold(s);
  return st;
}

void DualQueueCore::clean(DualNode* pred, DualNode* s) noexcept {
  // §3.3.3: unsplice s from pred unless s is the last node; a last node is
  // remembered (its pred in cleanMe) and removed by a later clean once
  // something follows it.
  while (pred->next.load(std::memory_order_seq_cst) == link_of(s)) {  // a frozen pred.next: pred left
    DualNode* h = head_.load(std::memory_order_seq_cst);
    DualNode* hn = node_of(h->next.load(std::memory_order_seq_cst));
    if (hn != nullptr && is_cancelled(hn)) {  // absorb a cancelled first node
      advance_head(h, hn);
      continue;
    }
    DualNode* t = tail_.load(std::memory_order_seq_cst);
    if (t == h) return;  // empty
    const std::uintptr_t tn = t->next.load(std::memory_order_seq_cst);
    if (t != tail_.load(std::memory_order_seq_cst)) continue;
    if (tn != 0) {
      advance_tail(t, node_of(tn));
      continue;
    }
    if (s != t && unsplice(pred, s)) return;
    DualNode* dp = clean_me_.load(std::memory_order_seq_cst);
    if (dp != nullptr) {  // try to unlink the previously saved cancelled node
      const std::uintptr_t dl = dp->next.load(std::memory_order_seq_cst);
      DualNode* d = node_of(dl);
      // A frozen dp.next comes first: dp may have left long ago, and d with
      // it, freed (only dp is held).
      const bool settled = (dl & kMarked) || d == nullptr || !is_cancelled(d) || (d != t && unsplice(dp, d));
      if (settled) {
        DualNode* expected = dp;
        if (clean_me_.compare_exchange_strong(expected, nullptr, std::memory_order_seq_cst)) {
          drop_hold(dp);
          // Look for a cancelled node nobody remembers now: d itself, if dp
          // was unlinked (cancelled) rather than dequeued, or a last node
          // whose clean found cleanMe taken (sweep_cancelled remembers it).
          sweep_cancelled();
        }
      }
      if (dp == pred) return;  // s is already saved
    } else if (remember(pred)) {
      return;  // postpone
    }
  }
  // pred.next frozen on s: pred left or is leaving. s is then the head (its
  // pred was dequeued: fine, a cancelled dummy), or pred's own unsplice
  // failed and s is still linked behind pred's predecessor, where nothing
  // else would unlink it (the paper's Java has the same remnant, §3.3.3),
  // or behind pred as the head, if pred's predecessor was dequeued
  // meanwhile: sweep it out (or absorb it as the head).
  if (pred->next.load(std::memory_order_seq_cst) == (link_of(s) | kMarked) &&
      head_.load(std::memory_order_seq_cst) != s)
    sweep_cancelled();
}

void DualQueueCore::close() {
  if (closed_.exchange(true, std::memory_order_seq_cst)) return;
  {
    EpochGuard guard;
    close_linked(head_.load(std::memory_order_seq_cst), 0);
  }
  if (watchers_) watchers_->notify();
}

std::size_t DualQueueCore::linked_nodes() const {
  EpochGuard guard;
  return count_linked(head_.load(std::memory_order_seq_cst));
}

}  // namespace weft::sync::detail
