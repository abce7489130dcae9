#pragma once
// The apps layer of weft: the OpenMP-like parallel layer (parallel_for,
// parallel_reduce, parallel_invoke, parallel regions, parallel sorts).
// Include this, or <weft/weft.hpp> for every layer.

#include "weft/apps/default_runtime.hpp"
