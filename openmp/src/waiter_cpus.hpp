#pragma once
// Which CPU each of the library's OS threads last began a wait on
// (internal), so that a spinning waiter can tell that it may be keeping the
// thread it waits for off the CPU.
//
// The workers float unless binding is asked for (omp_runtime.cpp), as
// libgomp's threads do, and on a loaded machine the kernel may put the
// initial thread and a worker on one CPU (a futex wake-up places the woken
// thread beside its waker). Two team members sharing a CPU then take turns
// only when one of them gives the CPU up: a waiter that spins out its whole
// budget (1 ms by default) makes every barrier, task wait or hand-off cost
// that budget (measured: ~1 ms per barrier of EPCC's task + barrier test at
// load 8, i.e. 70-1000x libgomp). wait.hpp's spin therefore checks whether
// another of the library's threads last waited on the CPU it spins on, and
// if so moves the worker elsewhere (leave_shared_cpu) or gives the CPU up.
//
// One slot per worker (by index) and one for plain threads (the initial
// thread, or any thread the program made): the CPU and the time of the
// thread's last note (a spinning waiter notes every few microseconds), read
// without ordering. A note older than 50 us is not believed: the thread
// stopped waiting, or has not run since and may be anywhere by now.

namespace weft::omp {

// Notes that the calling thread waits on the CPU it runs on (now), and
// returns that CPU (-1 when the kernel does not say).
int note_waiting_cpu() noexcept;

// Whether another of the library's threads noted a wait on `cpu` within the
// last 50 us (with `any_age`: ever, as its last note; a waiter that has
// spun that long in vain asks so, since a partner kept off the CPU cannot
// renew its note).
bool cpu_shared_with_another(int cpu, bool any_age = false) noexcept;

// Called by a waiter that found its CPU shared: when the caller is a worker
// the kernel may move (the workers float: omp_runtime.cpp), it leaves `cpu`
// (its affinity without `cpu`, which migrates it at once, then its affinity
// as it was), at most once per kMoveInterval per worker. Sharing one CPU
// with a busy partner is stable under load (each gives the CPU to the other
// in turn, ~1 us per hand-off), so it is broken, not lived with. Returns
// whether it moved. Plain threads (the program's) are never moved.
bool leave_shared_cpu(int cpu) noexcept;

}  // namespace weft::omp
