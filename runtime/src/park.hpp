#pragma once
// Parking a plain thread (internal): park() and park_until() called outside
// a ULT block the calling thread on its stand-in task's park token.

#include <chrono>

namespace weft::detail {

// Spins briefly for an unpark (a ULT handing a plain thread its result is
// usually quick), then sleeps on a futex until unparked or `deadline`
// (time_point::max(): no deadline). False if it returned for the deadline.
bool park_thread(std::chrono::steady_clock::time_point deadline);

}  // namespace weft::detail
