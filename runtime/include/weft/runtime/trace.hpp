#pragma once
// Tracing: a timeline of every ULT and worker in the Chrome Trace Event JSON
// format, which the Perfetto UI (ui.perfetto.dev) and chrome://tracing open
// as they are. Start it around a region of a program:
//
//   weft::trace::start("run.json");   // or WEFT_TRACE=run.json for a whole run
//   ...                                // spawn, join, park, ...
//   weft::trace::stop();               // writes run.json
//
// Each worker records into a fixed-size ring buffer of its own (no locks, no
// allocation while recording; the oldest events are dropped when it fills,
// and the trace says how many); the file is written at stop(), or at exit
// when WEFT_TRACE started it. docs/observability.md describes the tracks
// and events. Name a ULT's slices with a label at spawn:
//
//   weft::spawn(weft::label("bfs-level"), [&] { ... });

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "weft/runtime/label.hpp"

namespace weft {

namespace trace {

// Events each worker keeps when no size is given (WEFT_TRACE_BUFFER, or this).
inline constexpr std::size_t kDefaultBufferEvents = std::size_t{1} << 18;
inline constexpr std::size_t kMinBufferEvents = 16;
inline constexpr std::size_t kMaxBufferEvents = std::size_t{1} << 26;

// Starts recording every worker of every live runtime, and of runtimes
// started later, for a trace written to `path` by stop(). buffer_events: the
// ring size per worker (0: WEFT_TRACE_BUFFER if set, else
// kDefaultBufferEvents). Throws std::invalid_argument when `path` cannot be
// written or the size is outside [kMinBufferEvents, kMaxBufferEvents], and
// std::logic_error when a trace is already being recorded.
void start(const std::string& path, std::size_t buffer_events = 0);

// What stop() wrote.
struct Summary {
  bool written = false;             // false: the file could not be written (said on stderr)
  std::string path;
  std::uint64_t events = 0;         // events kept in the buffers
  std::uint64_t dropped_events = 0; // events lost to full buffers, all workers
};

// Stops recording and writes the trace. Never throws for a write failure:
// the message goes to stderr and Summary::written is false. Without a trace
// being recorded it does nothing (written = false, empty path).
Summary stop();

// Whether a trace is being recorded.
bool active();

namespace detail {
// Set while a trace records: the one test a Scope makes when none does.
inline std::atomic<bool> recording{false};
std::uint64_t scope_begin(label name);  // 0 when the caller is not a traced worker
void scope_end(std::uint64_t id);
void scope_arg(std::uint64_t id, label key, std::uint64_t value);
}  // namespace detail

// A named stretch of the calling ULT's work (a parallel region, a loop
// chunk, a kernel phase), shown as an async slice on its worker's track:
//
//   { weft::trace::Scope scope(weft::label("bfs-level")); ... }
//
// Costs one load and a branch when no trace records; nothing is recorded on
// a plain thread. A started ULT never changes workers, so both ends land on
// the same track even if the ULT yields or parks inside. The slice's
// arguments name the ULT that opened it ("ult") and whatever arg() added:
//
//   scope.arg(weft::label("frontier"), queue.size());
class Scope {
 public:
  explicit Scope(label name) {
    if (detail::recording.load(std::memory_order_relaxed)) [[unlikely]]
      id_ = detail::scope_begin(name);
  }
  ~Scope() {
    if (id_) [[unlikely]]
      detail::scope_end(id_);
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // Adds "key": value to the slice's arguments (a later arg with the same
  // key shadows it in the viewer); nothing when the scope records nothing.
  void arg(label key, std::uint64_t value) {
    if (id_) [[unlikely]]
      detail::scope_arg(id_, key, value);
  }

 private:
  std::uint64_t id_ = 0;
};

}  // namespace trace
}  // namespace weft
