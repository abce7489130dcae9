#pragma once
// Which worker each member of a parallel region runs on (internal; tested
// directly). Workers are one per core already; a region's placement policy
// (MCTOP-PLACE, thesis §7.6 and §7.7.4's MCTOP_MP) chooses WHICH workers its
// members use, and may differ from one region to the next.
//
//  * No policy (or NONE): member k on worker (caller + k) mod workers.
//  * A policy: sched::place(topology, policy, m) with m = min(members,
//    contexts) gives m CPUs in the policy's order; each maps to the worker
//    pinned there. A CPU that has no worker (the runtime has fewer workers
//    than the machine has CPUs) maps to the worker nearest to it in the
//    topology's latency, preferring, among equally near ones, the worker
//    with fewer members (counting the CPUs that do have their worker), then
//    the lower index. Members beyond m wrap round the m choices.
//    Member 0 is the caller and stays on its worker: if that worker is among
//    the choices, member 0 takes its first occurrence; if not, the caller's
//    worker replaces the last choice.
// Throws std::invalid_argument naming the policy when it cannot be applied:
// unknown name, unpinned workers, RR_SCALE without bandwidth figures.

#include <span>
#include <string_view>
#include <vector>

#include "weft/sched/placement.hpp"
#include "weft/sched/topology.hpp"

namespace weft::detail {

// The default: member k on worker (caller + k) mod workers.
inline int rotated_worker(int caller_worker, int member, int workers) { return (caller_worker + member) % workers; }

// The worker of each member (size `members`, [0] == caller_worker).
std::vector<int> place_team(const sched::Topology& topology, std::span<const int> worker_cpus,
                            sched::Policy policy, int members, int caller_worker);

// The same for a runtime and a policy name, remembered per (runtime,
// policy, members, caller) on the calling worker, so that a region pays for
// sched::place once. Called from a ULT. Empty name or NONE: the default
// rotation. The reference is valid until the next call on this worker.
const std::vector<int>& team_workers(std::string_view placement, int members, int caller_worker);

}  // namespace weft::detail
