#pragma once
// The runtime layer of weft: ULTs on per-core workers and everything that
// blocks them. Include this, or <weft/weft.hpp> for every layer.

#include "weft/runtime/barrier.hpp"
#include "weft/runtime/condition_variable.hpp"
#include "weft/runtime/config.hpp"
#include "weft/runtime/future.hpp"
#include "weft/runtime/label.hpp"
#include "weft/runtime/latch.hpp"
#include "weft/runtime/mutex.hpp"
#include "weft/runtime/runtime.hpp"
#include "weft/runtime/semaphore.hpp"
#include "weft/runtime/stats.hpp"
#include "weft/runtime/task_group.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/runtime/trace.hpp"
#include "weft/runtime/ult.hpp"
