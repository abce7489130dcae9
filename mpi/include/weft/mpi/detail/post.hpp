#pragma once
// Posting a non-blocking MPI call to the progress engine (internal; used by
// the typed calls in point_to_point.hpp and collectives.hpp).

#include <memory>
#include <type_traits>

#include "weft/mpi/detail/operation.hpp"
#include "weft/mpi/request.hpp"

namespace weft::mpi::detail {

using StartCall = int (*)(void* context, MPI_Request* handle);

// Under the engine's lock: start(context, &op->handle) makes the MPI call;
// an error code becomes weft::mpi::Error naming `call`; otherwise the
// operation joins the engine's outstanding set. Throws std::logic_error
// without a live weft::mpi::Environment.
Request post(std::unique_ptr<Operation> op, const char* call, StartCall start, void* context);

template <class F>
Request post(std::unique_ptr<Operation> op, const char* call, F&& start) {
  using Fn = std::remove_reference_t<F>;
  return post(
      std::move(op), call, [](void* c, MPI_Request* h) { return (*static_cast<Fn*>(c))(h); },
      static_cast<void*>(&start));
}

}  // namespace weft::mpi::detail
