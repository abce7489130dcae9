#pragma once
// One outstanding non-blocking MPI call as the progress engine tracks it
// (internal: users hold it through weft::mpi::Request). Every field is read
// and written under the engine's lock only.

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "weft/runtime/this_ult.hpp"

namespace weft::mpi::detail {

struct Operation {
  MPI_Request handle = MPI_REQUEST_NULL;
  const char* call = "";  // e.g. "MPI_Irecv", for the error message
  // Point-to-point calls: the posted datatype and how many of it make one
  // element of the user's T, to report Status::count in elements. Collective
  // calls leave type MPI_DATATYPE_NULL (their status carries nothing).
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int units_per_element = 1;
  // Arguments MPI reads until completion that the caller does not own
  // (ialltoallv's counts and displacements, scaled to the datatype).
  std::vector<int> arguments;

  bool done = false;
  int error = MPI_SUCCESS;  // MPI's code when the call failed in completion
  int source = MPI_ANY_SOURCE;
  int tag = MPI_ANY_TAG;
  std::size_t count = 0;
  // The ULT (or plain thread) parked on this operation, if any.
  UltRef waiter;
};

}  // namespace weft::mpi::detail
