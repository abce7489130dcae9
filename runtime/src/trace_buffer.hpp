#pragma once
// One worker's trace ring (internal): fixed-size, written by the worker's
// thread alone with plain stores, no lock and no allocation; when full, each
// new event overwrites the oldest. trace.cpp reads it to write the file:
// see there (and TraceBuffer::snapshot) for how a reader and a late writer
// stay apart.

#include <x86intrin.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace weft::detail {

enum class TraceKind : std::uint8_t {
  run,          // a = the context switched away from (ULT id, 0 = scheduler), b = the one now running,
                // c = b's label, d = why a stopped (a PostSwitch: none = yield or scheduler, park,
                // finish; or kTraceInlineJoin: a ran b inline)
  spawn,        // a = the new ULT's id, c = its label
  unpark,       // a = the parked ULT made ready
  steal,        // a = the ULT's id (0 if none), c = victim worker, d = distance class | 0x80 when taken
  spin_begin,   // the idle worker starts spinning for work
  spin_end,
  sleep_begin,  // ... and goes to sleep on its futex
  sleep_end,
  scope_begin,  // a = the Scope's id, b = the ULT that opened it (0: none), c = its label
  scope_end,    // a = the Scope's id
  scope_arg,    // a = the Scope's id, b = the value, c = the key's label (Scope::arg)
};

struct TraceEvent {
  std::uint64_t tsc;  // __rdtsc() when recorded
  std::uint64_t a;
  std::uint64_t b;
  std::uint32_t c;
  TraceKind kind;
  std::uint8_t d;
};
static_assert(sizeof(TraceEvent) == 32);

inline std::uint64_t trace_clock() { return __rdtsc(); }

class TraceBuffer {
 public:
  explicit TraceBuffer(std::size_t capacity)
      : events_(new TraceEvent[capacity]), capacity_(capacity), start_tsc_(trace_clock()) {}

  // Owner thread only.
  void record(TraceKind kind, std::uint64_t a, std::uint64_t b, std::uint32_t c, std::uint8_t d) {
    TraceEvent& e = events_[slot_];
    e.tsc = trace_clock();
    e.a = a;
    e.b = b;
    e.c = c;
    e.kind = kind;
    e.d = d;
    if (++slot_ == capacity_) slot_ = 0;
    head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release);  // publishes e
  }

  struct Snapshot {
    std::vector<TraceEvent> events;  // oldest first
    std::uint64_t recorded = 0;      // events ever recorded
    std::uint64_t dropped = 0;       // recorded - events.size()
  };
  // The events recorded so far. `writer_may_be_in_flight`: the owner may still
  // be inside one record() that began before it was told to stop (trace.cpp);
  // that record writes the slot after the newest, which in a full ring holds
  // the oldest event, so that one is left out (and counted as dropped).
  Snapshot snapshot(bool writer_may_be_in_flight) const {
    Snapshot s;
    s.recorded = head_.load(std::memory_order_acquire);
    std::uint64_t keep = s.recorded < capacity_ ? s.recorded : capacity_;
    if (writer_may_be_in_flight && s.recorded >= capacity_) --keep;
    s.dropped = s.recorded - keep;
    s.events.reserve(keep);
    for (std::uint64_t i = s.recorded - keep; i < s.recorded; ++i) s.events.push_back(events_[i % capacity_]);
    return s;
  }
  std::uint64_t start_tsc() const { return start_tsc_; }
  std::size_t capacity() const { return capacity_; }

 private:
  std::unique_ptr<TraceEvent[]> events_;  // default-initialized: pages are touched as the ring fills
  std::size_t capacity_;
  std::size_t slot_ = 0;                  // owner only: head_ % capacity_
  std::atomic<std::uint64_t> head_{0};    // events ever recorded
  std::uint64_t start_tsc_;
};

}  // namespace weft::detail
