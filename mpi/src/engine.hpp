#pragma once
// The progress engine behind weft::mpi (one per Environment).
//
// Which engine, and why: the waiters poll for each other. A ULT (or plain
// thread) that waits on a request and finds no poller becomes the poller: it
// calls MPI_Testsome over ALL outstanding operations, marks the completed
// ones and unparks their waiters, and yields between passes (fair yield: every
// other ready ULT of its worker runs once in between). Every other waiter
// parks. When the poller's own operation completes it hands the role to a
// parked waiter whose operation is still outstanding. Chosen over a
// dedicated progress ULT because
//  - nothing polls when nobody waits (a progress ULT would keep one worker
//    busy, or need a sleep period that adds latency, for the whole run);
//  - it needs no runtime: the same code serves ULTs and plain threads, and a
//    Runtime can start and stop while the Environment lives;
//  - there is no ULT to stop before the Runtime is destroyed.
// The cost is that the poller's worker spins (yielding) while some request
// is waited for and nothing else is ready there; MPI itself progresses only
// inside MPI calls, so something has to call MPI while anyone waits.
//
// One std::mutex guards the outstanding set and every MPI call weft::mpi
// makes (which is what makes MPI_THREAD_SERIALIZED enough). It is held only
// around non-blocking MPI calls, never across a park or a yield.
// unpark() is called with the lock held and a waiter reads `done` only under
// it, so a waiter that returns (and may finish its ULT) is never unparked
// afterwards.

#include <mpi.h>

#include <cstddef>
#include <mutex>
#include <span>
#include <vector>

#include "weft/mpi/detail/operation.hpp"

namespace weft::mpi::detail {

class Engine {
 public:
  // The engine of the live Environment; std::logic_error without one.
  static Engine& get();
  static void install(Engine* engine);

  std::mutex& lock() { return mutex_; }

  // Adds a just-posted operation to the outstanding set (lock held).
  void add_locked(Operation* op) { outstanding_.push_back(op); }

  // Parks (or polls, when no one else does) until one of `ops` is done;
  // returns its index. Null entries are skipped; at least one must be set.
  std::size_t await(std::span<Operation* const> ops);

  // One MPI_Testsome pass over the outstanding set (lock held).
  void poll_locked();

 private:
  void complete_locked(Operation* op, const MPI_Status& status, int error);
  void hand_off_locked();

  std::mutex mutex_;
  std::vector<Operation*> outstanding_;
  bool polling_ = false;  // some waiter is the poller
  // MPI_Testsome's arrays, reused between passes.
  std::vector<MPI_Request> handles_;
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
};

}  // namespace weft::mpi::detail
