#pragma once
// weft: a topology-aware user-level threading runtime. One header for all of
// it; each layer also has its own (weft/runtime.hpp, weft/sched/..., weft/sync/...).

#include "weft/runtime.hpp"
#include "weft/sched/cpuset.hpp"
#include "weft/sched/placement.hpp"
#include "weft/sched/topology.hpp"
