#pragma once
// ReaderIndicator: MRQD's reader indicator (QD paper §6, Fig. 11): arrive()
// and depart() by readers, query() ("is any reader inside?") by a writer.
// Padded per-slot counters, a reader counts on the slot of its worker (or
// kernel thread), so readers never contend on one line; query() scans.
//
// A ULT may leave on another worker than it arrived on (it migrated), so it
// departs on another slot: a slot may go negative, and query() asks whether
// the SUM of the slots is non-zero (the paper's "any slot > 0" would see a
// +1 residue on one slot forever). A reader that arrived before a writer's
// seq_cst check of the lock is counted in every later scan until its depart
// is; transient arrive/depart pairs on one slot add 0 or +1, so a scan sums
// to zero only when no such reader is inside.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>

#include "weft/runtime/this_ult.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync::detail {

class ReaderIndicator {
 public:
  ReaderIndicator()
      : n_(std::clamp<std::size_t>(2 * std::max(1u, std::thread::hardware_concurrency()), 4, 256)),
        slots_(std::make_unique<Slot[]>(n_)) {}

  void arrive() noexcept { slots_[my_slot()].count.fetch_add(1, std::memory_order_seq_cst); }
  void depart() noexcept { slots_[my_slot()].count.fetch_sub(1, std::memory_order_seq_cst); }
  bool query() const noexcept {
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < n_; ++i) sum += slots_[i].count.load(std::memory_order_seq_cst);
    return sum != 0;
  }

 private:
  struct alignas(cache_line_size) Slot {
    std::atomic<std::int64_t> count{0};
  };
  std::size_t my_slot() const noexcept {
    const int w = weft::this_ult::worker_index();
    return static_cast<std::size_t>(w >= 0 ? w : current_thread_ordinal()) % n_;
  }

  std::size_t n_;
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace weft::sync::detail
