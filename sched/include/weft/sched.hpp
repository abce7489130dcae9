#pragma once
// The sched layer of weft: the machine's topology (hwloc, MCTOP inference,
// saved files), MCTOP-PLACE placements and pinning, the power model, OpenMP
// place lists and NUMA memory. Include this, or <weft/weft.hpp> for every
// layer. See docs/topology-format.md and docs/runtime.md.

#include "weft/sched/cpu.hpp"
#include "weft/sched/cpuset.hpp"
#include "weft/sched/latency_probe.hpp"
#include "weft/sched/mctop_alg.hpp"
#include "weft/sched/numa_memory.hpp"
#include "weft/sched/omp_places.hpp"
#include "weft/sched/place_pool.hpp"
#include "weft/sched/placement.hpp"
#include "weft/sched/power.hpp"
#include "weft/sched/power_model.hpp"
#include "weft/sched/topology.hpp"
#include "weft/sched/topology_io.hpp"
