#include "fatal.hpp"

#include <cstdio>
#include <cstdlib>

namespace weft::omp {

void fatal(const char* entry, const std::string& what) {
  std::fprintf(stderr, "weft-omp: %s: %s\n", entry, what.c_str());
  std::fflush(stderr);
  std::abort();
}

void fatal_environment(const char* message) {
  std::fprintf(stderr, "%s (weft's OpenMP runtime, libweft-omp.so)\n", message);
  std::fflush(stderr);
  std::exit(EXIT_FAILURE);
}

}  // namespace weft::omp
