#pragma once
// weft: a topology-aware user-level threading runtime. One header for all of
// it; each layer also has its own (weft/sched.hpp, weft/runtime.hpp,
// weft/sync.hpp, weft/apps.hpp) and every concept its own header below those.

#include "weft/apps.hpp"
#include "weft/runtime.hpp"
#include "weft/sched.hpp"
#include "weft/sync.hpp"
