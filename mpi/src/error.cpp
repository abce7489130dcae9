#include "weft/mpi/error.hpp"

#include <mpi.h>

namespace weft::mpi {

namespace {
std::string describe(int code, const std::string& what) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    return "weft::mpi: " + what + " failed with MPI error code " + std::to_string(code);
  }
  return "weft::mpi: " + what + " failed: " + std::string(text, static_cast<std::size_t>(length));
}

int class_of(int code) {
  int c = MPI_ERR_UNKNOWN;
  MPI_Error_class(code, &c);
  return c;
}
}  // namespace

Error::Error(int code, const std::string& what)
    : std::runtime_error(describe(code, what)), code_(code), class_(class_of(code)) {}

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw Error(code, what);
}

}  // namespace weft::mpi
