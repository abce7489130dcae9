#pragma once
// The weft runtime the OpenMP library runs on (internal).
//
// An OpenMP program's initial thread is the primary thread (member 0) of
// every team it starts, as in libgomp, and must stay that thread: GCC's
// threadprivate variables are thread-local storage. So the runtime's worker
// 0 is a hosted one (Config::hosted_worker): it has no thread of its own,
// and a region from the initial thread runs as a ULT on it while the initial
// thread runs that worker (team.hpp's run_region). Member 0 then waits as a
// ULT does, and the initial thread's CPU runs the team's tasks meanwhile.
// The runtime has one worker per thread of the default team (nthreads-var,
// one per allowed CPU by default): worker 0 on the initial thread's CPU,
// the others with threads of their own.
//
// Other plain threads (a program's own threads that start regions) are
// member 0 of their teams as plain threads; their members go to workers
// 1..N-1 (worker 0 runs only inside the initial thread's regions). So does a
// runtime of one CPU, or one that WEFT_WORKERS, WEFT_CPUS or WEFT_PLACEMENT
// sets: there the initial thread is a plain member 0 too, beside the workers
// named.
//
// The runtime is started on first use and never destroyed: exit() may be
// called from any thread, inside a region too, and must neither wait for
// members blocked in a barrier nor destroy a runtime from one of its own
// workers (the worker threads outlive static destruction by design).
//
// Its configuration is weft's default one (default_runtime_config():
// OMP_NUM_THREADS, OMP_WAIT_POLICY, OMP_PLACES, OMP_PROC_BIND and the WEFT_*
// variables) with that one worker less, and OMP_STACKSIZE as the ULT stack
// size unless WEFT_STACK_SIZE is set. When WEFT_WORKERS, WEFT_CPUS or
// WEFT_PLACEMENT is set, the workers are exactly what they say.

#include <cstdint>

#include "weft/runtime/config.hpp"
#include "weft/runtime/runtime.hpp"

namespace weft::omp {

// The configuration the runtime starts with (also checked at load, so that a
// bad variable stops the program before main()).
// Under LD_PRELOAD the program still loads libgomp (it names it as a needed
// library), and libgomp's constructor binds the initial thread to its first
// place when OMP_PLACES / OMP_PROC_BIND ask for binding, which would make
// this library see one CPU (sched::allowed_cpus() is the calling thread's
// mask). libgomp computed its places within the mask the process started
// with, so where the initial thread is bound to exactly libgomp's first
// place, this gives it the union of libgomp's places back. Runs once, before
// the settings or the configuration read the CPUs; a no-op without libgomp.
void undo_libgomp_initial_binding();

const Config& runtime_config();

// The runtime, started by the first call.
Runtime& runtime();

// Workers of the runtime (starts it).
int num_workers();

// How long waits spin before they park, in ns: the runtime's idle spin
// (OMP_WAIT_POLICY: ACTIVE 1000 us, PASSIVE 0, default 50 us).
std::int64_t spin_ns();

// Whether the calling thread runs its regions' member 0 on the runtime's
// hosted worker (Runtime::host): the initial thread, outside every region,
// when the runtime has one (two CPUs or more, and no WEFT_WORKERS, WEFT_CPUS
// or WEFT_PLACEMENT).
bool initial_thread_hosts();

// The CPU the initial thread was pinned to (OMP_PROC_BIND with OMP_PLACES:
// the first place's CPU), -1 when it is not pinned.
int initial_thread_cpu();

}  // namespace weft::omp
