#pragma once
// The apps layer of weft: the OpenMP-like parallel layer (parallel_for,
// parallel_reduce, parallel_invoke, parallel regions, parallel sorts).
// Include this, or <weft/weft.hpp> for every layer. docs/parallel.md maps
// OpenMP's pragmas onto these.

#include "weft/apps/default_runtime.hpp"
#include "weft/apps/environment.hpp"
#include "weft/apps/parallel_for.hpp"
#include "weft/apps/parallel_invoke.hpp"
#include "weft/apps/parallel_reduce.hpp"
#include "weft/apps/parallel_region.hpp"
#include "weft/apps/schedule.hpp"
#include "weft/apps/sort.hpp"
