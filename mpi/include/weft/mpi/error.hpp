#pragma once
// weft::mpi::Error: an error MPI reported, as a C++ exception. weft::mpi sets
// MPI_ERRORS_RETURN on the communicators it is given (Environment does it for
// MPI_COMM_WORLD and MPI_COMM_SELF; return_errors() for others), so MPI hands
// the code back instead of aborting, and the call (or the wait of the request
// that failed) throws this, in the calling ULT, with MPI's own error string.

#include <stdexcept>
#include <string>

namespace weft::mpi {

class Error : public std::runtime_error {
 public:
  // `what` names the call, e.g. "MPI_Isend"; the message adds MPI's string.
  Error(int code, const std::string& what);
  // The MPI error code (MPI_ERR_RANK, MPI_ERR_TRUNCATE, ...).
  int code() const noexcept { return code_; }
  // Its class (MPI_Error_class), to compare with MPI_ERR_* portably.
  int error_class() const noexcept { return class_; }

 private:
  int code_;
  int class_;
};

// Throws Error(code, what) unless code is MPI_SUCCESS.
void check(int code, const char* what);

}  // namespace weft::mpi
