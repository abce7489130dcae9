// Entry points of constructs weft's OpenMP runtime does not implement:
// device offload (target, target data/update/enter/exit, and the teams
// construct inside a target region).
// Each stops the program at its first call with a message naming it, never
// silently runs something else. The offload image registration that a
// binary built with offloading calls from its constructors is accepted (it
// only tells the library what a later target region would need).
//
// Also the `error` and `warning` directives (OpenMP 5.1 §21.5), which are not
// unsupported: they print their message, and `error` ends the program.
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "fatal.hpp"

using weft::omp::unsupported;

extern "C" {

void GOMP_target() { unsupported("GOMP_target", "device offload (the target construct)"); }
void GOMP_target_ext() { unsupported("GOMP_target_ext", "device offload (the target construct)"); }
void GOMP_target_data() { unsupported("GOMP_target_data", "device offload (target data)"); }
void GOMP_target_data_ext() { unsupported("GOMP_target_data_ext", "device offload (target data)"); }
void GOMP_target_end_data() { unsupported("GOMP_target_end_data", "device offload (target data)"); }
void GOMP_target_update() { unsupported("GOMP_target_update", "device offload (target update)"); }
void GOMP_target_update_ext() { unsupported("GOMP_target_update_ext", "device offload (target update)"); }
void GOMP_target_enter_exit_data() {
  unsupported("GOMP_target_enter_exit_data", "device offload (target enter/exit data)");
}
// Emitted only inside target regions (teams on the host: teams.cpp).
void GOMP_teams() { unsupported("GOMP_teams", "the teams construct in a target region"); }
bool GOMP_teams4() { unsupported("GOMP_teams4", "the teams construct in a target region"); }

void GOMP_offload_register(const void*, int, const void*) {}
void GOMP_offload_unregister(const void*, int, const void*) {}
void GOMP_offload_register_ver(unsigned, const void*, int, const void*) {}
void GOMP_offload_unregister_ver(unsigned, const void*, int, const void*) {}

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
