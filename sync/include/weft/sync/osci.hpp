#pragma once
// Osci (Fatourou & Kallimanis, "Lock Oscillation: Boosting the Performance of
// Concurrent Data Structures", OPODIS 2017, Algorithm 1).
//
// Combining in two levels. Within a core, the first caller (the "director")
// publishes one of its two "fat" ListNodes in Announce[core], records its
// request there, opens the node's door and yields (line 10): the other ULTs
// of the core run and record their requests in the same node, each holding
// the door for a moment. When the director runs again it closes the door and
// appends the whole batch to the shared request list with ONE Swap on Tail
// (line 13). Across cores, the list is combined CC-Synch-style: the combiner
// walks it, serving every request of every node (at most h requests, counted
// at node granularity, line 37), and hands the combiner role to the first
// request of the next node (lines 43-44), or empties the list with a CAS on
// Tail (line 40).
//
// Differences from the pseudocode, all for generality or safety:
// - slots in a node are taken in arrival order (a count under the door)
//   rather than fixed at `i mod t`, so any number of ULTs per worker works;
//   a full node is treated like a closed door (retry from line 2);
// - the director prepares its node (door still CLOSE) before publishing it in
//   Announce, rather than after, and opens the door right after publishing;
// - a request's `completed` flag is a state word (recorded, served,
//   consumed) and its `locked` flag is its node's release word (below): the
//   recorder marks its request consumed once it has read its result; a director waits until every slot of its node is consumed before
//   reusing the node: with preemptive threads (or a ULT that was released but
//   not yet rescheduled) a slow reader must not see its slot overwritten by
//   the next batch;
// - a caller reads Announce before trying the CAS of line 2 (as the authors'
//   code does);
// - the door of a ULT's batch is held without a lock: a director on a worker
//   names its worker as the node's owner, and only ULTs of that worker record
//   in it. They take turns on one kernel thread and recording does not
//   yield, so "acquire the door" (lines 20-25) is a check that it is open,
//   and a recorder pays no locked instruction (the CAS and the store were
//   ~6 ns of a ~45 ns operation on the 2-core VM, where the local work is 33).
//   Any other caller finds such a door closed (line 21) and retries. A
//   director on a plain thread (owner: none) opens a door every caller
//   acquires with the CAS, as in the paper, where the threads of a core may
//   be preempted while they hold it;
// - a caller waiting for a combiner (lines 16 and 26) watches its node's
//   release word, on a cache line of its own, not its request: the combiner
//   writes that word once, after it served the whole node (or to hand the
//   combiner role to the node's director, line 44), and only then are the
//   requests read. Watching the requests themselves, every waiting ULT of a
//   core re-read a line the combiner was writing at each of its turns (one
//   yield, ~10 ns apart); each re-read took the line away from the combiner in
//   the middle of the node, so serving a request cost a cache miss of its
//   own. On 16 cores at W=64 this took Osci-x32 from 35 to 106 Mops/s and
//   Osci-x128 from 80 to 181 (docs/sync-combining.md, same runs).
// - the combiner fetches the next node's lines (its requests for writing)
//   while it serves one, as the authors' osci.c prefetches `p->next`: what a
//   combiner waits for per node of another core is Osci's cost where it is
//   combiner-bound (16 cores at few ULTs per core: docs/sync-combining.md);
//   for the same reason a request's argument and response share their bytes
//   where they can (ThreadReq below), as the authors' 16-byte records do.
// The core of a caller is weft::this_ult::worker_index() (through
// current_worker_index(); plain threads use their ordinal), modulo
// OsciConfig::cores. Like the paper, Osci is correct with any scheduler; it
// is fast when a yield is a cheap, fair ULT switch (the default YieldWait).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>

#include "weft/sync/combining.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/handle_base.hpp"
#include "weft/sync/detail/node_arena.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

struct OsciConfig {
  std::size_t max_combine = 0;  // h, as in CombiningConfig (the paper uses 2n)
  // Number of Announce slots, one per core/worker; 0 = hardware_concurrency().
  int cores = 0;
};

// SlotsPerNode: requests one fat node holds (the paper: one per ULT of the
// core). A core with more recording ULTs than that closes a full node and the
// rest retry for the next batch; 128 covers the paper's largest sweep point
// (at 128 ULTs per core with 64 slots, Osci lost ~20% to the retries on the
// 2-core VM). A node costs 64 + SlotsPerNode * sizeof(request) bytes, two per
// handle.
template <SequentialObject Seq, WaitPolicy Wait = YieldWait, std::size_t SlotsPerNode = 128>
class Osci {
  static_assert(SlotsPerNode >= 1);

 public:
  using Sequential = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;

 private:
  enum : int { kLocked = 0, kOpen = 1, kClose = 2 };  // door values of Algorithm 1

  // A request's state: Algorithm 1's (locked, completed) pair in one word,
  // plus "consumed" (its recorder has read the result; the slot may be reused).
  enum : std::uint32_t {
    kRecorded = 0,  // locked, not completed: waiting for a combiner
    kServed = 1,    // unlocked, completed: ret holds the response (line 35)
    kCombine = 2,   // (a node's release word only) its director combines next (line 44)
    kConsumed = 3,  // the caller has read its response
  };
  // A request's argument and then its response. When both are trivially
  // copyable they share the bytes (the combiner has read the argument when it
  // writes the response, and the recorder reads only the response): a slot
  // of Fetch&Multiply is then 16 bytes instead of 24, four to a cache line,
  // and a batch's slots cross between the recording and the combining core
  // in a third fewer lines. On 16 cores Osci-x8 went from 30-37 to 53-55
  // Mops/s and x128 from 117-132 to 133-138 (docs/sync-combining.md).
  static constexpr bool kShareSlotBytes = std::is_trivially_copyable_v<Op> && std::is_trivially_copyable_v<Result>;
  struct SeparateCell {
    Op req{};
    Result ret{};
  };
  struct SharedCell {
    union {
      Op req;
      Result ret;
    };
    SharedCell() : req{} {}
  };
  struct ThreadReq : std::conditional_t<kShareSlotBytes, SharedCell, SeparateCell> {
    std::atomic<std::uint32_t> state{kConsumed};
  };
  // What the waiters of a node watch (see above): kRecorded while the batch
  // waits, kServed once every request in it is served, kCombine when its
  // director is to combine next (its request is still to be served).
  struct alignas(cache_line_size) ReleaseWord {
    std::atomic<std::uint32_t> state{kServed};
  };
  struct alignas(cache_line_size) ListNode {
    alignas(cache_line_size) std::atomic<int> door{kClose};
    std::atomic<ListNode*> next{nullptr};
    std::size_t count = 0;  // slots in use; changed only while holding the door
    // The worker whose ULTs alone record in this batch, holding the door
    // without a CAS (nullptr: every caller, with the CAS). Set by the director
    // before it publishes the node.
    std::atomic<const void*> owner{nullptr};
    ReleaseWord release;
    alignas(cache_line_size) ThreadReq reqs[SlotsPerNode];
  };
  struct alignas(cache_line_size) AnnounceSlot {
    std::atomic<ListNode*> node{nullptr};
  };

 public:
  // Per-caller state: the two ListNodes a caller uses as director (line 1).
  // Retired, not reused, when the handle dies (Tail or a combiner may still
  // point at them); freed with the object.
  class Handle : public detail::HandleBase<Handle, Osci> {
   public:
    Handle() = default;
    Handle(Handle&&) noexcept = default;
    Handle& operator=(Handle&&) noexcept = default;
    ~Handle() { this->release(); }

   private:
    friend class Osci;
    Handle(Osci* obj, ListNode* a, ListNode* b) : detail::HandleBase<Handle, Osci>(obj, &obj->bound_), nodes_{a, b} {}
    ListNode* nodes_[2] = {nullptr, nullptr};
    unsigned toggle_ = 0;
  };

  Osci() : Osci(Seq{}) {}
  explicit Osci(Seq seq, OsciConfig cfg = {})
      : seq_(std::move(seq)),
        bound_(cfg.max_combine),
        ncores_(cfg.cores > 0 ? cfg.cores : default_cores()),
        announce_(std::make_unique<AnnounceSlot[]>(static_cast<std::size_t>(ncores_))) {}
  explicit Osci(Seq seq, CombiningConfig cfg) : Osci(std::move(seq), OsciConfig{.max_combine = cfg.max_combine}) {}
  Osci(const Osci&) = delete;
  Osci& operator=(const Osci&) = delete;

  Handle handle() {
    ListNode* a = arena_.make();
    ListNode* b = arena_.make();
    return Handle(this, a, b);
  }

  // Aligned to a cache line, so that where the linker puts it does not move
  // with unrelated code: on the 2-core VM the same apply ran Osci-x128 5-6 %
  // slower when every function before it moved by 48 bytes (medians of 7
  // alternating rounds: 23.2 against 21.9 ns/op; aligned, 22.1), as the
  // bench's local work did (bench/results/combining-2core.md, 2026-11-28).
  __attribute__((aligned(64))) Result apply(Handle& h, const Op& arg) {
    const CurrentWorker me = current_worker();
    AnnounceSlot& announce = announce_[static_cast<std::size_t>(core_index(me.index))];
    for (;;) {
      ListNode* cur = announce.node.load(std::memory_order_acquire);  // line 2: is a batch open?
      if (cur == nullptr) {
        // Line 1: the node we would direct; prepared while still private.
        ListNode* mine = h.nodes_[h.toggle_];
        wait_consumed(mine);
        // The door stays CLOSE (from its last use) until the node is published:
        // a recorder holding a stale pointer to it restarts from line 2.
        mine->next.store(nullptr, std::memory_order_relaxed);
        mine->owner.store(me.identity, std::memory_order_relaxed);
        mine->release.state.store(kRecorded, std::memory_order_relaxed);
        mine->count = 1;
        mine->reqs[0].req = arg;                                          // line 5
        mine->reqs[0].state.store(kRecorded, std::memory_order_relaxed);  // lines 6-7
        if (announce.node.compare_exchange_strong(cur, mine, std::memory_order_acq_rel,
                                                  std::memory_order_acquire)) {  // line 2
          // Lines 3-18: we are the director of this core's batch.
          h.toggle_ ^= 1u;                                       // line 4
          mine->door.store(kOpen, std::memory_order_release);    // line 9: recording period
          Wait{}.pause();                                        // line 10: let the core's ULTs record
          announce.node.store(nullptr, std::memory_order_release);  // line 11
          for (;;) {                                             // line 12: close the door
            int open = kOpen;
            if (mine->door.compare_exchange_strong(open, kClose, std::memory_order_acq_rel,
                                                   std::memory_order_relaxed))
              break;
            Wait{}.pause();
          }
          ListNode* prev = tail_.exchange(mine, std::memory_order_acq_rel);  // line 13
          if (prev == nullptr) return combine(mine, 0);        // empty list: combiner
          prev->next.store(mine, std::memory_order_release);  // line 15
          std::uint32_t st;
          const std::uint64_t pauses =  // line 16
              wait_until<Wait>([&] { return (st = mine->release.state.load(std::memory_order_acquire)) != kRecorded; });
          if (st == kServed) return mine->reqs[0].ret;  // lines 17-18
          return combine(mine, pauses);                 // released uncompleted: combiner
        }
        // Another caller became the director meanwhile: record in its node (cur).
      }
      // Lines 19-28: record in the director's node `cur`.
      bool recorded = false;
      std::size_t offset = 0;
      if (const void* owner = cur->owner.load(std::memory_order_relaxed)) {
        // A worker's batch (see the header): its own ULTs hold the door by
        // running; to everyone else it is closed.
        if (owner == me.identity && cur->door.load(std::memory_order_relaxed) == kOpen && cur->count < SlotsPerNode) {
          offset = record(*cur, arg);  // lines 23-24
          recorded = true;
        }
      } else {
        for (;;) {  // lines 20-22: acquire the door
          int open = kOpen;
          if (cur->door.compare_exchange_strong(open, kLocked, std::memory_order_acquire,
                                                std::memory_order_relaxed)) {
            // A caller that read Announce long ago may find the node reused
            // as a worker's batch: not its door to hold.
            if (cur->owner.load(std::memory_order_relaxed) == nullptr && cur->count < SlotsPerNode) {
              offset = record(*cur, arg);  // lines 23-24
              recorded = true;
            }
            cur->door.store(kOpen, std::memory_order_release);  // line 25
            break;
          }
          if (open == kClose) break;  // line 21: batch closed, start from scratch
          Wait{}.pause();             // line 22
        }
      }
      if (!recorded) {
        Wait{}.pause();
        continue;  // back to line 2
      }
      // Lines 26-28. Only a director's request (slot 0) is ever handed the
      // combiner role (line 44), so a recorder waits until its node is served.
      ThreadReq& slot = cur->reqs[offset];
      wait_until<Wait>([&] { return cur->release.state.load(std::memory_order_acquire) == kServed; });
      Result r = slot.ret;
      slot.state.store(kConsumed, std::memory_order_release);
      return r;
    }
  }

  CombiningStats stats() const noexcept { return stats_.get(); }
  Seq& unsafe_object() noexcept { return seq_; }
  int cores() const noexcept { return ncores_; }

 private:
  friend class detail::HandleBase<Handle, Osci>;
  void release_handle(Handle&) noexcept {}  // the nodes are retired (see Handle)

  // Lines 29-45, run by a director (its request is my_node's slot 0): serve
  // whole nodes from `my_node` on, then pass the role on. Each other node is
  // released to its waiters (director and recorders) only
  // once the combiner is done with that node (has read its `next`, or swung
  // Tail away from it): until its director returns, the node cannot be
  // reused, so the reads of line 37/39 and the CAS of line 40 never see a
  // recycled node (with the director released first, it could direct two more
  // batches, reuse the node and put it back at Tail meanwhile: ABA on Tail).
  // `pauses`: how often the new combiner's wait paused before it got the role.
  Result combine(ListNode* my_node, std::uint64_t pauses) {
    detail::CombineRound round(stats_);
    round.waited<Wait>(pauses);
    const std::size_t h_bound = bound_.get();
    std::size_t counter = 0;
    ListNode* held = nullptr;   // `tmp` when served but not yet released to its waiters
    ListNode* fetched = nullptr;  // the node whose requests were prefetched
    std::size_t expected = my_node->count;  // a node's batch size, guessed from the last one
    ListNode* tmp = my_node;    // line 29
    for (;;) {                  // line 30
      if (tmp != my_node && tmp != fetched) prefetch_requests(tmp, expected);
      const std::size_t n = tmp->count;
      expected = n;
      // While this node is served, the next one's lines are on their way (the
      // authors' osci.c prefetches the next node the same way).
      if (ListNode* ahead = tmp->next.load(std::memory_order_relaxed)) {
        prefetch_requests(ahead, n);
        fetched = ahead;
      }
      for (std::size_t j = 0; j < n; ++j) {  // lines 31-36
        ThreadReq& r = tmp->reqs[j];
        if (r.state.load(std::memory_order_relaxed) != kServed) {  // not completed
          r.ret = seq_.apply(r.req);
          ++counter;
          r.state.store(kServed, std::memory_order_relaxed);  // completed, unlocked
        }
      }
      // The node's waiters see it served once the combiner is done with it
      // (the director's node may then be reused: see `held`).
      if (tmp != my_node)
        held = tmp;
      else
        tmp->release.state.store(kServed, std::memory_order_release);
      ListNode* next = tmp->next.load(std::memory_order_acquire);
      if (next == nullptr || counter >= h_bound) break;  // line 37
      release_served(held);
      tmp = next;  // line 38
    }
    round.served(counter);
    const Result result = my_node->reqs[0].ret;  // the director's own
    ListNode* next = tmp->next.load(std::memory_order_acquire);
    if (next == nullptr) {  // line 39
      ListNode* expected = tmp;
      if (tail_.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel,
                                        std::memory_order_relaxed)) {  // line 40
        release_served(held);
        return result;
      }
      wait_until<Wait>([&] { return (next = tmp->next.load(std::memory_order_acquire)) != nullptr; });  // line 42
    }
    // Lines 43-44: the first request of the next node (its director's) combines next.
    next->release.state.store(kCombine, std::memory_order_release);
    release_served(held);
    return result;
  }

  // A combiner reads every request of another core's node and then writes
  // it: fetched for writing, each line of requests crosses once instead of
  // twice (shared on the read, taken over on the write). On 16 cores the
  // combiner is Osci's bottleneck at few ULTs per core, and its time goes
  // per node, not per request (docs/sync-combining.md).
  static void prefetch_requests(const ListNode* node, std::size_t slots) noexcept {
    constexpr std::size_t kMaxLines = 16;
    __builtin_prefetch(node);  // door, next and count: read only
    const std::size_t bytes = (slots < SlotsPerNode ? slots : SlotsPerNode) * sizeof(ThreadReq);
    const std::size_t lines = (bytes + cache_line_size - 1) / cache_line_size;
    const char* first = reinterpret_cast<const char*>(node->reqs);
    for (std::size_t i = 0; i < lines && i < kMaxLines; ++i) prefetch_for_write(first + i * cache_line_size);
  }

  // Takes the next slot of `node` (its door held) for `arg`; returns it.
  static std::size_t record(ListNode& node, const Op& arg) {
    const std::size_t offset = node.count;
    ThreadReq& slot = node.reqs[offset];
    slot.req = arg;
    slot.state.store(kRecorded, std::memory_order_relaxed);
    node.count = offset + 1;
    return offset;
  }

  static void release_served(ListNode*& node) noexcept {
    if (node) node->release.state.store(kServed, std::memory_order_release);
    node = nullptr;
  }
  // Before a director reuses its node: every recorder of the last batch has
  // read its response (slot 0 is the director's own).
  static void wait_consumed(const ListNode* node) noexcept {
    for (std::size_t j = 1; j < node->count; ++j)
      wait_until<Wait>([&] { return node->reqs[j].state.load(std::memory_order_acquire) == kConsumed; });
  }

  int core_index(int w) const {
    if (w < 0) w = current_thread_ordinal();
    return w < ncores_ ? w : w % ncores_;  // no division in the common case
  }
  static int default_cores() noexcept {
    const unsigned n = std::thread::hardware_concurrency();
    return n ? static_cast<int>(n) : 1;
  }

  // Three lines: Tail (swapped by every director), the object and the round
  // counts (written by whoever combines), and what every apply reads
  // (read-mostly), so that an apply's reads never pull the line a combiner on
  // another core is writing.
  alignas(cache_line_size) std::atomic<ListNode*> tail_{nullptr};
  alignas(cache_line_size) Seq seq_;
  detail::StatsCounter stats_;
  alignas(cache_line_size) detail::CombineBound bound_;
  int ncores_;
  std::unique_ptr<AnnounceSlot[]> announce_;
  detail::NodeArena<ListNode> arena_;
};

}  // namespace weft::sync
