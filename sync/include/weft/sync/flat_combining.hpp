#pragma once
// Flat combining (Hendler, Incze, Shavit & Tzafrir, SPAA 2010; baseline of
// the Osci paper, Tables 1-2). Each caller owns a publication record, which
// it links into a shared publication list (CAS on the list head) when the
// record is not already there. It writes its request into the record and
// either takes the global lock and becomes the combiner, or waits on the
// record until served or until the lock is free. The combiner scans the list
// a few times applying pending requests (bounded by h), stamps served records
// with the current combining pass, and every `cleanup_every` passes unlinks
// records idle for more than `cleanup_age` passes; their owners see
// active == false and re-link them.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "weft/sync/combining.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/handle_base.hpp"
#include "weft/sync/detail/node_arena.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

struct FlatCombiningConfig {
  std::size_t max_combine = 0;        // h, as in CombiningConfig
  unsigned scans = 3;                 // passes over the list per combining turn
  std::uint64_t cleanup_every = 100;  // turns between cleanups
  std::uint64_t cleanup_age = 100;    // turns a record may stay idle in the list
};

template <SequentialObject Seq, WaitPolicy Wait = SpinWait>
class FlatCombining {
 public:
  using Sequential = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;

 private:
  struct alignas(cache_line_size) Record {
    std::atomic<Record*> next{nullptr};
    std::atomic<bool> pending{false};  // request written, not yet served
    std::atomic<bool> active{false};   // linked into the publication list
    std::uint64_t age = 0;             // last pass that served it; combiner-only
    Op op{};                           // written before pending.store(true, release)
    Result ret{};                      // written before pending.store(false, release)
  };

 public:
  // Per-caller state: its publication record. Records are recycled to later
  // handles as they are (possibly still linked in the list, never pending).
  class Handle : public detail::HandleBase<Handle, FlatCombining> {
   public:
    Handle() = default;
    Handle(Handle&&) noexcept = default;
    Handle& operator=(Handle&&) noexcept = default;
    ~Handle() { this->release(); }

   private:
    friend class FlatCombining;
    Handle(FlatCombining* obj, Record* r) : detail::HandleBase<Handle, FlatCombining>(obj, &obj->bound_), rec_(r) {}
    Record* rec_ = nullptr;
  };

  FlatCombining() : FlatCombining(Seq{}) {}
  explicit FlatCombining(Seq seq, FlatCombiningConfig cfg = {})
      : seq_(std::move(seq)), bound_(cfg.max_combine), cfg_(cfg) {
    if (cfg_.scans == 0) cfg_.scans = 1;
    if (cfg_.cleanup_every == 0) cfg_.cleanup_every = 1;
  }
  explicit FlatCombining(Seq seq, CombiningConfig cfg)
      : FlatCombining(std::move(seq), FlatCombiningConfig{.max_combine = cfg.max_combine}) {}
  FlatCombining(const FlatCombining&) = delete;
  FlatCombining& operator=(const FlatCombining&) = delete;

  Handle handle() { return Handle(this, arena_.acquire()); }

  Result apply(Handle& h, const Op& op) {
    Record* r = h.rec_;
    r->op = op;
    r->pending.store(true, std::memory_order_release);
    std::uint64_t pauses = 0;  // before this call takes the lock (trace)
    for (;;) {
      if (!r->active.load(std::memory_order_acquire)) link(r);
      if (!lock_.load(std::memory_order_relaxed) && !lock_.exchange(true, std::memory_order_acquire)) break;
      pauses += wait_until<Wait>([&] {
        return !r->pending.load(std::memory_order_acquire) || !lock_.load(std::memory_order_acquire) ||
               !r->active.load(std::memory_order_acquire);
      });
      if (!r->pending.load(std::memory_order_acquire)) return r->ret;
    }
    // Combiner: we hold the lock.
    detail::CombineRound round(stats_);
    round.waited<Wait>(pauses);
    const std::uint64_t pass = ++passes_;
    const std::size_t h_bound = bound_.get();
    std::size_t served = 0;
    for (unsigned scan = 0; scan < cfg_.scans && served < h_bound; ++scan) {
      for (Record* c = head_.load(std::memory_order_acquire); c != nullptr && served < h_bound;
           c = c->next.load(std::memory_order_acquire)) {
        if (c->pending.load(std::memory_order_acquire)) {
          c->ret = seq_.apply(c->op);
          c->age = pass;
          c->pending.store(false, std::memory_order_release);
          ++served;
        }
      }
    }
    // Our own request may not have been reached (bound hit first).
    if (r->pending.load(std::memory_order_relaxed)) {
      r->ret = seq_.apply(r->op);
      r->age = pass;
      r->pending.store(false, std::memory_order_relaxed);
      ++served;
    }
    if (pass % cfg_.cleanup_every == 0) cleanup(pass);
    round.served(served);
    lock_.store(false, std::memory_order_release);
    return r->ret;
  }

  CombiningStats stats() const noexcept { return stats_.get(); }
  Seq& unsafe_object() noexcept { return seq_; }

 private:
  friend class detail::HandleBase<Handle, FlatCombining>;
  void release_handle(Handle& h) noexcept { arena_.recycle(h.rec_); }

  // Pushes r at the head of the publication list.
  void link(Record* r) noexcept {
    r->active.store(true, std::memory_order_relaxed);
    Record* head = head_.load(std::memory_order_relaxed);
    ExponentialBackoff<Wait> backoff;
    for (;;) {
      r->next.store(head, std::memory_order_relaxed);
      if (head_.compare_exchange_weak(head, r, std::memory_order_release, std::memory_order_relaxed)) return;
      backoff();
    }
  }

  // Unlinks records idle for too long. Never unlinks the head (new records
  // are pushed there concurrently) and never a pending record. Lock held.
  void cleanup(std::uint64_t pass) noexcept {
    Record* prev = head_.load(std::memory_order_acquire);
    if (prev == nullptr) return;
    Record* c;
    while ((c = prev->next.load(std::memory_order_acquire)) != nullptr) {
      if (c->age + cfg_.cleanup_age < pass && !c->pending.load(std::memory_order_acquire)) {
        prev->next.store(c->next.load(std::memory_order_relaxed), std::memory_order_release);
        c->active.store(false, std::memory_order_release);  // owner re-links it when needed
      } else {
        prev = c;
      }
    }
  }

  alignas(cache_line_size) std::atomic<bool> lock_{false};
  alignas(cache_line_size) std::atomic<Record*> head_{nullptr};
  alignas(cache_line_size) Seq seq_;
  std::uint64_t passes_ = 0;  // lock holder only
  detail::CombineBound bound_;
  detail::StatsCounter stats_;
  FlatCombiningConfig cfg_;
  detail::NodeArena<Record> arena_;
};

}  // namespace weft::sync
