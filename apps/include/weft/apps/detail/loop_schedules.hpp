#pragma once
// How the schedules hand out iterations (internal). Everything works on
// offsets [0, count) of a loop (index_space.hpp); a member receives its
// chunks as calls chunk(lo, hi), in increasing order within each source.
//
//  static        block_of / for_each_static_chunk: pure arithmetic, nothing shared.
//  dynamic       one shared counter, one fetch_add per chunk.
//  guided        one shared counter, one compare-exchange per chunk.
//  adaptive      StealableRanges: each member owns a range it takes chunks
//                from the front of; a member whose range is empty takes the
//                back half of the largest range of another member, where it
//                can be halved again by the next thief.

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "weft/apps/detail/member_storage.hpp"
#include "weft/apps/schedule.hpp"

namespace weft::detail {

// ------------------------------------------------------------------ static

struct Span {
  std::uint64_t lo = 0, hi = 0;
  bool empty() const { return lo >= hi; }
};

// Block k of `members` contiguous blocks over [0, count): sizes differ by at
// most one, the first count % members blocks one longer (as libgomp does).
inline Span block_of(std::uint64_t count, int members, int k) {
  const auto p = static_cast<std::uint64_t>(members), i = static_cast<std::uint64_t>(k);
  const std::uint64_t q = count / p, r = count % p;
  const std::uint64_t lo = i * q + std::min(i, r);
  return {lo, lo + q + (i < r ? 1 : 0)};
}

inline std::uint64_t chunks_in(std::uint64_t count, std::uint64_t chunk) { return count / chunk + (count % chunk != 0); }

// Chunks k, k + members, k + 2*members, ... of size `chunk` (> 0).
template <class Chunk>
void for_each_static_chunk(std::uint64_t count, std::uint64_t chunk, int members, int k, Chunk&& run) {
  const std::uint64_t n_chunks = chunks_in(count, chunk);
  for (std::uint64_t c = static_cast<std::uint64_t>(k); c < n_chunks; c += static_cast<std::uint64_t>(members))
    run(c * chunk, std::min(count, c * chunk + chunk));
}

// A schedule as the engine runs it: dynamic and guided with chunk 0 (a
// Schedule built by hand) mean chunk 1, as in OpenMP.
inline Schedule normalized(Schedule s) {
  if ((s.kind == Schedule::Kind::dynamic || s.kind == Schedule::Kind::guided) && s.chunk == 0) s.chunk = 1;
  if (s.kind == Schedule::Kind::adaptive) s.chunk = 0;
  return s;
}

// How many members a schedule can use at most: no more than it has chunks.
inline int members_for(const Schedule& s, std::uint64_t count, int workers) {
  const std::uint64_t chunk = s.kind == Schedule::Kind::static_ && s.chunk == 0 ? 1 : std::max<std::uint64_t>(s.chunk, 1);
  return static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(workers), chunks_in(count, chunk)));
}

// ------------------------------------------------------------------ dynamic, guided

// The next unassigned offset of a dynamic or guided loop.
class ChunkCounter {
 public:
  void reset() { next_.store(0, std::memory_order_relaxed); }

  // dynamic: the next `chunk` iterations. One fetch_add while the counter
  // cannot overflow (count + members * chunk < 2^64, true below 2^51
  // iterations); a compare-exchange loop beyond.
  Span claim_dynamic(std::uint64_t count, std::uint64_t chunk) {
    if (count < (std::uint64_t{1} << 51) && chunk <= count) {
      const std::uint64_t lo = next_.fetch_add(chunk, std::memory_order_relaxed);
      return lo >= count ? Span{} : Span{lo, std::min(count, lo + chunk)};
    }
    std::uint64_t lo = next_.load(std::memory_order_relaxed);
    while (lo < count) {
      const std::uint64_t hi = count - lo <= chunk ? count : lo + chunk;
      if (next_.compare_exchange_weak(lo, hi, std::memory_order_relaxed)) return {lo, hi};
    }
    return {};
  }

  // guided: ceil(unassigned / members) iterations, at least `chunk` (libgomp's rule).
  Span claim_guided(std::uint64_t count, std::uint64_t chunk, int members) {
    std::uint64_t lo = next_.load(std::memory_order_relaxed);
    while (lo < count) {
      const std::uint64_t left = count - lo;
      const std::uint64_t q = std::max(chunk, left / static_cast<std::uint64_t>(members) +
                                                  (left % static_cast<std::uint64_t>(members) != 0));
      const std::uint64_t hi = q >= left ? count : lo + q;
      if (next_.compare_exchange_weak(lo, hi, std::memory_order_relaxed)) return {lo, hi};
    }
    return {};
  }

 private:
  alignas(kCacheLine) std::atomic<std::uint64_t> next_{0};
  char pad_[kCacheLine - sizeof(std::atomic<std::uint64_t>)];
};

// ------------------------------------------------------------------ adaptive

// One member's range of units [lo, hi), packed in one word so that the owner
// (taking from the front) and thieves (taking the back half) agree with one
// compare-exchange.
using RangeSlot = Padded<std::atomic<std::uint64_t>>;

// Range stealing over `members` slots (see the top of this file). Offsets
// are grouped into units of `unit_` iterations so that a range fits in 32
// bits: unit = 1 below 2^32 iterations.
class StealableRanges {
 public:
  StealableRanges(std::uint64_t base, std::uint64_t count, RangeSlot* slots, int members)
      : base_(base), count_(count), slots_(slots), members_(members) {
    const std::uint64_t max_units = 0xFFFFFFFFull;
    unit_ = count <= max_units ? 1 : count / max_units + 1;
    units_ = chunks_in(count, unit_);
  }

  std::uint64_t units() const { return units_; }
  std::uint64_t unit() const { return unit_; }
  // Gives member k the units [lo, hi) (before the members start).
  void assign(int k, std::uint64_t lo, std::uint64_t hi) {
    slots_[k].value.store(pack(lo, hi), std::memory_order_relaxed);
  }

  // Member k's share: chunks of its own range (at most grain_units, and at
  // most a quarter of what it holds, so that a thief finds something to
  // halve), then stolen halves, until no range has two units left or
  // stop() says so. chunk(lo, hi) gets iteration offsets.
  template <class Stop, class Chunk>
  void run_member(int k, std::uint64_t grain_units, Stop&& stop, Chunk&& chunk) {
    std::atomic<std::uint64_t>& mine = slots_[k].value;
    while (true) {
      std::uint64_t r = mine.load(std::memory_order_relaxed);
      while (lo_of(r) < hi_of(r)) {
        const std::uint64_t lo = lo_of(r), left = hi_of(r) - lo;
        const std::uint64_t take = std::max<std::uint64_t>(1, std::min(grain_units, left / 4));
        if (!mine.compare_exchange_weak(r, pack(lo + take, hi_of(r)), std::memory_order_acq_rel,
                                        std::memory_order_relaxed))
          continue;
        if (stop()) return;
        chunk(base_ + lo * unit_, base_ + std::min(count_, (lo + take) * unit_));
        r = mine.load(std::memory_order_relaxed);
      }
      if (stop() || !steal_into(k)) return;
    }
  }

 private:
  static std::uint64_t pack(std::uint64_t lo, std::uint64_t hi) { return (hi << 32) | lo; }
  static std::uint64_t lo_of(std::uint64_t r) { return r & 0xFFFFFFFFull; }
  static std::uint64_t hi_of(std::uint64_t r) { return r >> 32; }

  // Takes the back half of the largest other range into slot k (empty now,
  // so no thief touches it). False when no range has two units left.
  bool steal_into(int k) {
    for (int attempt = 0; attempt < 64; ++attempt) {
      int victim = -1;
      std::uint64_t seen = 0, most = 1;
      for (int v = 0; v < members_; ++v) {
        if (v == k) continue;
        const std::uint64_t r = slots_[v].value.load(std::memory_order_acquire);
        const std::uint64_t left = lo_of(r) < hi_of(r) ? hi_of(r) - lo_of(r) : 0;
        if (left > most) {
          most = left;
          victim = v;
          seen = r;
        }
      }
      if (victim < 0) return false;
      const std::uint64_t lo = lo_of(seen), hi = hi_of(seen), mid = lo + (hi - lo) / 2;
      if (slots_[victim].value.compare_exchange_strong(seen, pack(lo, mid), std::memory_order_acq_rel,
                                                       std::memory_order_relaxed)) {
        slots_[k].value.store(pack(mid, hi), std::memory_order_release);
        return true;
      }
    }
    return false;  // lost 64 races in a row: the others are taking the work anyway
  }

  std::uint64_t base_, count_;
  RangeSlot* slots_;
  int members_;
  std::uint64_t unit_ = 1, units_ = 0;
};

}  // namespace weft::detail
