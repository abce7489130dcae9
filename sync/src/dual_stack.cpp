// The synchronous dual stack (detail/dual_stack_core.hpp): Scherer, Lea &
// Scott, PPoPP'06, §3.1 (Listing 3, transfer) and §3.3.3 (Listing 6, clean).
#include "weft/sync/detail/dual_stack_core.hpp"

#include "weft/sync/detail/channel_watchers.hpp"

namespace weft::sync::detail {

namespace {
// The paper's SNode modes.
constexpr std::uint8_t kRequest = 0;
constexpr std::uint8_t kData = 1;
constexpr std::uint8_t kFulfilling = 2;
}  // namespace

DualStackCore::DualStackCore(MoveValue move, ChannelWatchers* watchers) : SyncTransferer(move, watchers) {}

DualStackCore::~DualStackCore() {
  DualNode* n = head_.load(std::memory_order_relaxed);
  while (n) {
    DualNode* next = node_of(n->next.load(std::memory_order_relaxed));
    drop_hold(n);
    n = next;
  }
}

bool DualStackCore::try_match(DualNode* m, DualNode* f) noexcept {
  std::uintptr_t c = kUnclaimed;
  if (m->claim.compare_exchange_strong(c, link_of(f), std::memory_order_seq_cst)) return true;
  return c == link_of(f);
}

void DualStackCore::pop_head(DualNode* h) noexcept {
  DualNode* below = node_of(freeze_next(h));
  DualNode* expected = h;
  if (head_.compare_exchange_strong(expected, below, std::memory_order_seq_cst)) drop_hold(h);
}

void DualStackCore::pop_pair(DualNode* f, DualNode* m) noexcept {
  DualNode* below = node_of(freeze_next(m));
  DualNode* expected = f;
  if (head_.compare_exchange_strong(expected, below, std::memory_order_seq_cst)) {
    drop_hold(f);
    drop_hold(m);
  }
}

void DualStackCore::unlink_next(DualNode* p, DualNode* m) noexcept {
  const std::uintptr_t below = freeze_next(m) & ~kMarked;
  std::uintptr_t expected = link_of(m);
  if (p->next.compare_exchange_strong(expected, below, std::memory_order_seq_cst)) drop_hold(m);
}

TransferStatus DualStackCore::transfer(void* slot, bool is_data, const Patience& patience) {
  const std::uint8_t mode = is_data ? kData : kRequest;
  DualNode* s = nullptr;  // our node; published once a push succeeds
  {
    EpochGuard guard;
    for (;;) {
      if (closed()) {
        free_unpublished(s);
        return TransferStatus::closed;
      }
      DualNode* h = head_.load(std::memory_order_seq_cst);
      if (h == nullptr || h->mode == mode) {  // empty, or waiters of our mode: push and wait
        if (patience.exhausted()) {
          if (h != nullptr && is_cancelled(h)) {  // pop a cancelled head and look again
            pop_head(h);
            continue;
          }
          free_unpublished(s);
          return patience.kind == Patience::Kind::none ? TransferStatus::unavailable : TransferStatus::timeout;
        }
        if (!s) s = new_dual_node(mode, slot, 2);  // the stack's hold and ours
        s->mode = mode;
        s->next.store(link_of(h), std::memory_order_relaxed);
        if (head_.compare_exchange_strong(h, s, std::memory_order_seq_cst)) break;
        continue;
      }
      if (!(h->mode & kFulfilling)) {  // complementary waiter on top: fulfil it
        if (is_cancelled(h)) {
          pop_head(h);
          continue;
        }
        if (!s) s = new_dual_node(mode | kFulfilling, slot, 2);
        s->mode = mode | kFulfilling;
        s->next.store(link_of(h), std::memory_order_relaxed);
        if (!head_.compare_exchange_strong(h, s, std::memory_order_seq_cst)) continue;
        for (;;) {  // match the waiter below s
          DualNode* m = node_of(s->next.load(std::memory_order_seq_cst));
          if (m == nullptr) {  // every waiter below left: pop s, start over
            pop_head(s);
            drop_hold(s);
            s = nullptr;
            break;
          }
          if (try_match(m, s)) {
            pop_pair(s, m);
            if (is_data)
              move_(slot, m->slot);
            else
              move_(m->slot, slot);
            m->signal.set();
            drop_hold(s);
            return TransferStatus::success;
          }
          unlink_next(s, m);  // m was cancelled or closed
        }
        continue;
      }
      // A fulfilling node on top: help it match its waiter and pop both.
      DualNode* m = node_of(h->next.load(std::memory_order_seq_cst));
      if (m == nullptr)
        pop_head(h);
      else if (try_match(m, h))
        pop_pair(h, m);
      else
        unlink_next(h, m);
    }
  }
  if (is_data && watchers_) watchers_->notify();  // a sender waits: selectors can receive
  return await_partner(s, is_data, patience);
}

TransferStatus DualStackCore::await_partner(DualNode* s, bool, const Patience& patience) {
  const TransferStatus st = await_fulfil(s, patience, closed_);
  {
    EpochGuard guard;
    if (st == TransferStatus::success) {
      // Listing 3: "if ((h = head) != null && h.next == s) casHead(h, s.next)",
      // help our fulfiller pop itself and s.
      DualNode* h = head_.load(std::memory_order_seq_cst);
      if (h != nullptr && node_of(h->next.load(std::memory_order_seq_cst)) == s) pop_pair(h, s);
    } else {
      clean(s);
    }
  }
  drop_hold(s);
  return st;
}

void DualStackCore::clean(DualNode* s) noexcept {
  // §3.3.3: unlink cancelled nodes from the top down to s's successor at the
  // time (`past`, only compared, never dereferenced: it may have left).
  DualNode* past = node_of(s->next.load(std::memory_order_seq_cst));
  DualNode* p;
  while ((p = head_.load(std::memory_order_seq_cst)) != nullptr && p != past && is_cancelled(p)) pop_head(p);
  while (p != nullptr && p != past) {
    const std::uintptr_t link = p->next.load(std::memory_order_seq_cst);
    DualNode* n = node_of(link);
    if (n != nullptr && !(link & kMarked) && is_cancelled(n))
      unlink_next(p, n);
    else
      p = n;
  }
}

void DualStackCore::close() {
  if (closed_.exchange(true, std::memory_order_seq_cst)) return;
  {
    EpochGuard guard;
    close_linked(head_.load(std::memory_order_seq_cst), kFulfilling);  // fulfillers are not waiters
  }
  if (watchers_) watchers_->notify();
}

std::size_t DualStackCore::linked_nodes() const {
  EpochGuard guard;
  return count_linked(head_.load(std::memory_order_seq_cst));
}

}  // namespace weft::sync::detail
