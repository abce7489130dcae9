#pragma once
// weft::mpi::Request: a non-blocking MPI call in flight (from isend, irecv,
// iallreduce, ...) and its parking waits. wait() from a ULT parks the ULT,
// and its worker runs other ULTs, until the progress engine (see
// mpi/src/engine.cpp) sees the call complete; from a plain thread it blocks
// that thread the same way. No worker ever sits in a blocking MPI call.
//
// The buffers given to the call must stay alive until it completes. A
// Request destroyed before completion waits for it first (an error it then
// reports is dropped: call wait() to see it).

#include <cstddef>
#include <memory>
#include <span>

#include "weft/mpi/detail/operation.hpp"

namespace weft::mpi {

// What a completed call reports. For receives: the sender, the tag and the
// number of elements received; collectives and sends leave them unspecified.
struct Status {
  int source = MPI_ANY_SOURCE;
  int tag = MPI_ANY_TAG;
  std::size_t count = 0;
};

// The result of wait_any (below): which request completed, and its status.
struct Completion {
  std::size_t index;
  Status status;
};

class Request {
 public:
  Request() = default;
  Request(Request&& other) noexcept = default;
  // Waits for the call this request held, if any, then takes other's.
  Request& operator=(Request&& other) noexcept;
  ~Request();

  // True while the request holds a call not yet waited for.
  bool valid() const { return op_ != nullptr; }

  // Parks until the call completes; then the request is empty. Throws
  // weft::mpi::Error when MPI reports the call failed, std::logic_error when
  // the request is empty.
  Status wait();
  // One progress pass if the call is not yet known complete; true when it is
  // (wait() then returns at once).
  bool test();

  // Wraps a posted operation (used by isend, irecv, ...).
  explicit Request(std::unique_ptr<detail::Operation> op) : op_(std::move(op)) {}

 private:
  friend void wait_all(std::span<Request> requests);
  friend Completion wait_any(std::span<Request> requests);
  std::unique_ptr<detail::Operation> op_;
};

inline Status wait(Request& request) { return request.wait(); }

// Waits for every valid request (empty ones are skipped). Throws the first
// error, in order, after all have completed.
void wait_all(std::span<Request> requests);

// Parks until one of the valid requests completes; that one is then empty.
// Throws std::invalid_argument when none is valid, weft::mpi::Error when the
// completed call failed.
Completion wait_any(std::span<Request> requests);

}  // namespace weft::mpi
