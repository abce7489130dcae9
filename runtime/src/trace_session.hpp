#pragma once
// The process's trace session (internal; the public side is
// weft/runtime/trace.hpp): which workers record into which buffers, and the
// runtime's hooks into it.

#include <cstddef>

namespace weft::detail {

class RuntimeImpl;

// At a runtime's start: runs `publish` (which makes the runtime visible to
// trace::start(), i.e. adds it to the live-runtime registry) under the
// session's lock, starts a trace if the runtime's Config::trace_file asks
// for one and none is recording, and attaches the runtime's workers to the
// trace being recorded.
void trace_runtime_started(RuntimeImpl& rt, void (*publish)(RuntimeImpl&));
// After the runtime's workers have exited: their buffers stay in the session
// (written by trace::stop() or at exit) and the workers are forgotten.
void trace_runtime_stopped(RuntimeImpl& rt);

// WEFT_TRACE_BUFFER, or 0 when unset; throws std::invalid_argument naming the
// variable when it is not a count in [kMinBufferEvents, kMaxBufferEvents].
std::size_t trace_buffer_from_env();
// The same check for a size given in code; `what` names where it came from.
void check_trace_buffer_events(std::size_t events, const char* what);

}  // namespace weft::detail
