#pragma once
// LockQueueNode: the per-acquisition node of the queue locks (MCS, CLH) in their
// Lockable form, where lock() takes no handle. A node comes from the calling
// kernel thread's cache at lock() and goes back to a cache (maybe another
// thread's: ULTs migrate) once no other party can reference it.
//
// Nodes are type-stable: they are never freed while the process runs (a
// thread's cache overflows into a process-wide list, and an exiting thread
// gives its cache there), so a racing reader of a stale node pointer (CLH's
// try_lock) reads a node, never freed memory. The number of nodes is bounded
// by the largest number of acquisitions ever in flight at once, plus the
// caches.
//
// The cache lives in thread_local storage reached only through the
// out-of-line functions below: a ULT may move to another kernel thread at any
// park or yield, and an inlined TLS address computed before the move would be
// the old thread's.

#include <atomic>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/spin_then_park.hpp"

namespace weft::sync::detail {

struct alignas(cache_line_size) LockQueueNode {
  ParkingFlag flag;  // MCS: "the lock is yours"; CLH: "I released the lock"
  std::atomic<LockQueueNode*> next{nullptr};  // MCS: the successor
};

// A node with its flag clear and no successor.
LockQueueNode* take_lock_queue_node();
// Gives back a node no party references any more.
void give_lock_queue_node(LockQueueNode* node) noexcept;

}  // namespace weft::sync::detail
