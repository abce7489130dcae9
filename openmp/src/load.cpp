// What the library does when it is loaded (LD_PRELOAD, or linked in place
// of libgomp), before the program's main(): read the environment, so that a
// malformed OMP_* or WEFT_* variable stops the program at once with a
// message naming it, and print OMP_DISPLAY_ENV. The runtime's workers start
// later, at the first parallel region or task (omp_runtime.cpp), which also
// binds the initial thread where OMP_PLACES / OMP_PROC_BIND put thread 0.
#include "icv.hpp"
#include "omp_runtime.hpp"

namespace weft::omp {
namespace {

__attribute__((constructor)) void on_load() {
  const Settings& s = settings();
  runtime_config();
  if (s.display_env) display_env(s.display_env == 2);
}

}  // namespace
}  // namespace weft::omp
