// The `error` and `warning` directives at run time (OpenMP 5.1 §21.5,
// `at(execution)`): they print their message, and `error` ends the program.
#include <cstddef>
#include <cstdio>
#include <cstdlib>

extern "C" {

[[noreturn]] void GOMP_error(const char* msg, std::size_t len) {
  if (len == ~std::size_t{0}) std::fprintf(stderr, "weft-omp: error directive encountered: %s\n", msg);
  else std::fprintf(stderr, "weft-omp: error directive encountered: %.*s\n", static_cast<int>(len), msg);
  std::exit(EXIT_FAILURE);
}

void GOMP_warning(const char* msg, std::size_t len) {
  if (len == ~std::size_t{0}) std::fprintf(stderr, "weft-omp: warning directive encountered: %s\n", msg);
  else std::fprintf(stderr, "weft-omp: warning directive encountered: %.*s\n", static_cast<int>(len), msg);
}

}  // extern "C"
