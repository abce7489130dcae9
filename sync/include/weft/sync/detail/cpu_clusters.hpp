#pragma once
// Which cluster (socket) the calling kernel thread runs on, for the
// hierarchical locks (weft/sync/locks/cohort_lock.hpp).

#include <vector>

namespace weft::sync::detail {

// Socket of each OS CPU (index: OS CPU id; -1 where the CPU is not in the
// topology), from the live weft::Runtime's topology, else from
// sched::Topology::discover() (once per process).
std::vector<int> socket_of_each_cpu();

// The OS CPU the caller runs on (sched_getcpu, re-read every 64 calls per
// thread: a locality hint, it may be stale), 0 if unknown.
int current_cpu() noexcept;

}  // namespace weft::sync::detail
