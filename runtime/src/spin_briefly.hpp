#pragma once
// Spin-then-park, spin part (internal), for the blocking primitives
// (primitives.cpp) and join (worker.cpp's wait_finished).

#include "runtime_impl.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/sched/cpu.hpp"
#include "worker.hpp"

namespace weft::detail {

// Returns true once `ready()` holds, false when the caller should park. A ULT
// whose worker has other ULTs ready yields once instead of spinning: a switch
// is cheaper than a spin, and the one that releases may be among them.
// Otherwise it spins briefly (64 pauses, about 0.7 us) if a release can come
// from elsewhere (another worker or a plain thread), which is cheaper than
// parking and being woken.
template <class Ready>
bool spin_briefly(Ready ready) {
  if (ready()) return true;
  Worker* w = tls_worker;
  if (w && w->has_other_ready_work()) {
    this_ult::yield();
    return ready();
  }
  if (w && w->runtime()->num_workers() == 1) return false;  // only plain threads could release
  for (int i = 0; i < 64; ++i) {
    cpu_relax();
    if (ready()) return true;
  }
  return false;
}

}  // namespace weft::detail
