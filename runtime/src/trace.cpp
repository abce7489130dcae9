// The trace session and the Chrome Trace Event JSON writer (see
// weft/runtime/trace.hpp and docs/observability.md for the format).
//
// Recording: each worker appends to its own TraceBuffer (trace_buffer.hpp)
// when its trace flag is set; the flag is the only thing the hot paths test.
//
// Stopping while workers run: stop() clears every flag, then makes every
// thread of the process pass a full memory barrier (membarrier(2),
// MEMBARRIER_CMD_PRIVATE_EXPEDITED). A worker that read its flag before its
// barrier may still be inside that one record() (or about to make it: a
// switch reads the flag before the jump and records after); its next flag
// read comes after the barrier and sees the flag clear. So at most one write
// per worker can still land after stop() has read the buffer heads: the slot
// after the newest event, which TraceBuffer::snapshot leaves out. Such a
// buffer is not freed until its runtime has stopped (trace_runtime_stopped),
// since that late write may come at any time.

#include "weft/runtime/trace.hpp"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "machine_topology.hpp"
#include "runtime_impl.hpp"
#include "trace_buffer.hpp"
#include "trace_session.hpp"
#include "weft/runtime/label.hpp"
#include "weft/sched/topology.hpp"
#include "worker.hpp"

namespace weft {
namespace detail {

// ---------------------------------------------------------------- labels

namespace {

struct LabelTable {
  std::mutex mutex;
  std::vector<const char*> names{nullptr};  // id -> literal; 0 = no label
  std::unordered_map<const char*, std::uint16_t> ids;
};
LabelTable& labels() {
  static auto* table = new LabelTable;  // never destroyed: a trace written at exit reads it
  return *table;
}

}  // namespace

std::uint16_t label_id(label l) {
  struct Cached {
    const char* name;
    std::uint16_t id;
  };
  thread_local Cached cache[16] = {};
  const char* name = l.name();
  Cached& slot = cache[(reinterpret_cast<std::uintptr_t>(name) >> 3) & 15];
  if (slot.name == name) return slot.id;
  LabelTable& table = labels();
  std::lock_guard lock(table.mutex);
  auto [it, inserted] = table.ids.try_emplace(name, static_cast<std::uint16_t>(table.names.size()));
  if (inserted) {
    if (table.names.size() > 0xFFFF) {
      table.ids.erase(it);
      throw std::length_error("weft::label: more than 65535 distinct labels in one process");
    }
    table.names.push_back(name);
  }
  slot = {name, it->second};
  return it->second;
}

const char* label_name(std::uint16_t id) {
  if (id == 0) return "ult";
  LabelTable& table = labels();
  std::lock_guard lock(table.mutex);
  return id < table.names.size() ? table.names[id] : "ult";
}

// ---------------------------------------------------------------- worker hooks

void Worker::trace_record(TraceKind kind, std::uint64_t a, std::uint64_t b, std::uint32_t c, std::uint8_t d) {
  if (TraceBuffer* buffer = trace_buffer_.load(std::memory_order_acquire)) buffer->record(kind, a, b, c, d);
}
void Worker::trace_spawn(const Task* t) { trace_record(TraceKind::spawn, t->id, 0, t->label, 0); }
void Worker::trace_unpark(const Task* t) { trace_record(TraceKind::unpark, t->id, 0, 0, 0); }
void Worker::trace_run(const Task* from, const Task* to, std::uint8_t why) {
  trace_record(TraceKind::run, from->id, to->id, to->label, why);
}
std::uint64_t Worker::trace_scope_begin(std::uint16_t label) {
  const std::uint64_t id = next_id();  // unique among ULT and scope ids
  trace_record(TraceKind::scope_begin, id, current_ ? current_->id : 0, label, 0);
  return id;
}
void Worker::trace_scope_end(std::uint64_t id) {
  if (tracing()) trace_record(TraceKind::scope_end, id, 0, 0, 0);
}
void Worker::trace_scope_arg(std::uint64_t id, std::uint16_t key, std::uint64_t value) {
  if (tracing()) trace_record(TraceKind::scope_arg, id, value, key, 0);
}
void Worker::trace_attach(TraceBuffer* buffer) {
  trace_buffer_.store(buffer, std::memory_order_release);
  trace_flag_.store(kTraceSwitch, std::memory_order_release);
}
void Worker::trace_detach() { trace_flag_.store(0, std::memory_order_seq_cst); }

// ---------------------------------------------------------------- settings

void check_trace_buffer_events(std::size_t events, const char* what) {
  if (events < trace::kMinBufferEvents || events > trace::kMaxBufferEvents)
    throw std::invalid_argument(std::string("weft: ") + what + " = " + std::to_string(events) +
                                " trace events per worker is out of range (" +
                                std::to_string(trace::kMinBufferEvents) + ".." +
                                std::to_string(trace::kMaxBufferEvents) + ")");
}

}  // namespace detail

namespace trace::detail {
std::uint64_t scope_begin(label name) {
  weft::detail::Worker* w = weft::detail::tls_worker;
  return w && w->tracing() ? w->trace_scope_begin(weft::detail::label_id(name)) : 0;
}
void scope_end(std::uint64_t id) {
  if (weft::detail::Worker* w = weft::detail::tls_worker) w->trace_scope_end(id);
}
void scope_arg(std::uint64_t id, label key, std::uint64_t value) {
  if (weft::detail::Worker* w = weft::detail::tls_worker) w->trace_scope_arg(id, weft::detail::label_id(key), value);
}
}  // namespace trace::detail

namespace detail {

std::size_t trace_buffer_from_env() {
  const char* v = std::getenv("WEFT_TRACE_BUFFER");
  if (!v) return 0;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (*v == '\0' || *v == '-' || *end != '\0' || errno != 0 || n < trace::kMinBufferEvents ||
      n > trace::kMaxBufferEvents)
    throw std::invalid_argument(std::string("weft: environment variable WEFT_TRACE_BUFFER='") + v +
                                "' is invalid: expected a count of trace events per worker from " +
                                std::to_string(trace::kMinBufferEvents) + " to " +
                                std::to_string(trace::kMaxBufferEvents));
  return static_cast<std::size_t>(n);
}

// ---------------------------------------------------------------- the session

namespace {

// One worker's track in the trace being recorded.
struct Track {
  const RuntimeImpl* runtime;
  int process;      // the runtime's number in this trace (the JSON pid)
  int worker;
  int os_cpu;       // -1: not pinned
  std::string topology_file;
  Worker* live;     // null once its runtime has stopped (no writer left)
  std::unique_ptr<TraceBuffer> buffer;
};

struct Session {
  std::mutex mutex;
  bool active = false;
  std::string path;
  std::size_t capacity = 0;
  std::uint64_t start_tsc = 0;
  std::chrono::steady_clock::time_point start_time;
  int processes = 0;
  std::vector<Track> tracks;
  // Buffers of an earlier trace that a live worker may still write one
  // late event to (see the top of this file): freed when its runtime stops.
  std::vector<std::pair<const RuntimeImpl*, std::unique_ptr<TraceBuffer>>> retired;
  bool write_at_exit_registered = false;
};

Session& session() {
  static auto* s = new Session;  // never destroyed: the trace is written at exit
  return *s;
}

void attach_locked(Session& s, RuntimeImpl& rt) {
  const int process = ++s.processes;
  for (int i = 0; i < rt.num_workers(); ++i) {
    Worker& w = rt.worker(i);
    auto buffer = std::make_unique<TraceBuffer>(s.capacity);
    w.trace_attach(buffer.get());
    s.tracks.push_back(Track{&rt, process, i, w.pinned_cpu(), rt.config().topology_file, &w, std::move(buffer)});
  }
}

// Every thread of the process executes a full memory barrier before this returns.
void barrier_on_every_thread() {
  static const bool registered =
      syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
  if (registered && syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return;
  // No expedited membarrier: the global one (slower, same guarantee).
  if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0) return;
  // Neither: give a worker inside record() ample time to finish it.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

void write_at_exit() {
  if (trace::active()) trace::stop();
}

void start_locked(Session& s, const std::string& path, std::size_t buffer_events, const char* path_name,
                  const char* size_name) {
  if (s.active)
    throw std::logic_error("weft: " + std::string(path_name) + ": a trace is already being recorded (to '" +
                           s.path + "'); stop it first");
  if (path.empty()) throw std::invalid_argument(std::string("weft: ") + path_name + " is an empty path");
  if (buffer_events == 0) buffer_events = trace_buffer_from_env();
  if (buffer_events == 0) buffer_events = trace::kDefaultBufferEvents;
  check_trace_buffer_events(buffer_events, size_name);
  // Fail now rather than after the run: the file must be writable.
  if (std::FILE* f = std::fopen(path.c_str(), "w")) {
    std::fclose(f);
  } else {
    throw std::invalid_argument(std::string("weft: ") + path_name + "='" + path +
                                "': cannot write the trace file there: " + std::strerror(errno));
  }
  s.active = true;
  trace::detail::recording.store(true, std::memory_order_relaxed);
  s.path = path;
  s.capacity = buffer_events;
  s.processes = 0;
  s.start_time = std::chrono::steady_clock::now();
  s.start_tsc = trace_clock();
  if (!s.write_at_exit_registered) {
    std::atexit(write_at_exit);
    s.write_at_exit_registered = true;
  }
}

}  // namespace

void trace_runtime_started(RuntimeImpl& rt, void (*publish)(RuntimeImpl&)) {
  Session& s = session();
  std::lock_guard lock(s.mutex);
  publish(rt);
  const std::string& file = rt.config().trace_file;
  if (!file.empty() && !s.active) {
    try {
      start_locked(s, file, rt.config().trace_buffer_events, "WEFT_TRACE (Config::trace_file)",
                   "WEFT_TRACE_BUFFER (Config::trace_buffer_events)");
    } catch (...) {
      std::lock_guard registry(registry_mutex());
      auto& live = live_runtimes();
      live.erase(std::remove(live.begin(), live.end(), &rt), live.end());
      throw;
    }
  }
  if (s.active) attach_locked(s, rt);
}

void trace_runtime_stopped(RuntimeImpl& rt) {
  Session& s = session();
  std::lock_guard lock(s.mutex);
  for (Track& t : s.tracks)
    if (t.runtime == &rt) t.live = nullptr;
  std::erase_if(s.retired, [&](const auto& r) { return r.first == &rt; });
}

// ---------------------------------------------------------------- the JSON writer

namespace {

struct Clock {
  std::uint64_t start_tsc;
  double ns_per_tick;
  double us(std::uint64_t tsc) const {
    const double ticks = tsc >= start_tsc ? static_cast<double>(tsc - start_tsc) : 0.0;
    return ticks * ns_per_tick / 1000.0;
  }
};

std::string escaped(const char* s) {
  std::string out;
  for (; *s; ++s) {
    const auto c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// One JSON event, kept with its track and time so each track is written in time order.
struct Out {
  std::size_t track;
  double ts;
  int order;  // among events at the same ts: slices (0) before what they enclose
  std::string json;
};

const char* ended_as(std::uint8_t why) {
  if (why == kTraceInlineJoin) return "join";
  switch (static_cast<PostSwitch>(why)) {
    case PostSwitch::park:
      return "park";
    case PostSwitch::finish:
      return "finish";
    case PostSwitch::none:
      break;
  }
  return "yield";
}

struct Point {
  std::size_t track;
  std::uint64_t tsc;
};

class JsonWriter {
 public:
  JsonWriter(const Session& s, const Clock& clock) : s_(s), clock_(clock) {}

  std::string write(const std::vector<TraceBuffer::Snapshot>& snaps, std::uint64_t stop_tsc) {
    label_names_ = label_table_copy();
    for (std::size_t i = 0; i < s_.tracks.size(); ++i) write_track(i, snaps[i], stop_tsc);
    write_flows();
    std::stable_sort(out_.begin(), out_.end(), [](const Out& a, const Out& b) {
      if (a.track != b.track) return a.track < b.track;
      if (a.ts != b.ts) return a.ts < b.ts;
      return a.order < b.order;
    });
    std::string json = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"weft\",\"clock\":\"rdtsc\"";
    std::uint64_t kept = 0, dropped = 0;
    for (const auto& snap : snaps) {
      kept += snap.events.size();
      dropped += snap.dropped;
    }
    json += ",\"buffer_events\":" + std::to_string(s_.capacity) + ",\"events\":" + std::to_string(kept) +
            ",\"dropped_events\":" + std::to_string(dropped) + "},\n\"traceEvents\":[\n";
    bool first = true;
    for (const std::string& m : metadata_) {
      json += first ? "" : ",\n";
      json += m;
      first = false;
    }
    for (const Out& o : out_) {
      json += first ? "" : ",\n";
      json += o.json;
      first = false;
    }
    json += "\n]}\n";
    return json;
  }

 private:
  static std::vector<std::string> label_table_copy() {
    LabelTable& table = labels();
    std::lock_guard lock(table.mutex);
    std::vector<std::string> names;
    for (const char* n : table.names) names.push_back(escaped(n ? n : "ult"));
    return names;
  }
  const std::string& label(std::uint32_t id) const {
    static const std::string ult = "ult";
    return id < label_names_.size() && id != 0 ? label_names_[id] : ult;
  }

  std::string where(std::size_t track) const {
    const Track& t = s_.tracks[track];
    return "\"pid\":" + std::to_string(t.process) + ",\"tid\":" + std::to_string(t.worker);
  }
  static std::string number(double us) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", us);
    return buf;
  }

  void slice(std::size_t track, const std::string& name, const char* cat, std::uint64_t begin, std::uint64_t end,
             const std::string& args) {
    const double ts = clock_.us(begin);
    const double dur = std::max(0.0, clock_.us(end) - ts);
    out_.push_back({track, ts, 0,
                    "{\"ph\":\"X\",\"name\":\"" + name + "\",\"cat\":\"" + cat + "\"," + where(track) +
                        ",\"ts\":" + number(ts) + ",\"dur\":" + number(dur) + ",\"args\":{" + args + "}}"});
  }
  // A Scope: an async slice (its own row under the worker in Perfetto, so it
  // may span the runs of several ULTs).
  void scope(std::size_t track, std::uint64_t id, std::uint32_t name, std::uint64_t begin, std::uint64_t end,
             const std::string& args) {
    const double ts = clock_.us(begin), te = std::max(ts, clock_.us(end));
    const std::string common = "\"name\":\"" + label(name) + "\",\"cat\":\"scope\",\"id\":" + std::to_string(id) +
                               "," + where(track);
    out_.push_back({track, ts, 0, "{\"ph\":\"b\"," + common + ",\"ts\":" + number(ts) + ",\"args\":{" + args + "}}"});
    out_.push_back({track, te, 3, "{\"ph\":\"e\"," + common + ",\"ts\":" + number(te) + "}"});
  }
  void instant(std::size_t track, const char* name, const char* cat, std::uint64_t tsc, const std::string& args) {
    const double ts = clock_.us(tsc);
    out_.push_back({track, ts, 1,
                    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"" + std::string(name) + "\",\"cat\":\"" + cat + "\"," +
                        where(track) + ",\"ts\":" + number(ts) + ",\"args\":{" + args + "}}"});
  }
  void flow(const char* name, Point from, Point to) {
    const std::string id = std::to_string(++flows_);
    const double from_ts = clock_.us(from.tsc), to_ts = clock_.us(to.tsc);
    out_.push_back({from.track, from_ts, 2,
                    "{\"ph\":\"s\",\"name\":\"" + std::string(name) + "\",\"cat\":\"flow\",\"id\":" + id + "," +
                        where(from.track) + ",\"ts\":" + number(from_ts) + "}"});
    out_.push_back({to.track, to_ts, 2,
                    "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"" + std::string(name) + "\",\"cat\":\"flow\",\"id\":" +
                        id + "," + where(to.track) + ",\"ts\":" + number(to_ts) + "}"});
  }

  std::string track_name(const Track& t) const {
    std::string name = "worker " + std::to_string(t.worker);
    if (t.os_cpu < 0) return name + " (not pinned)";
    name += " (cpu " + std::to_string(t.os_cpu);
    try {
      const sched::Topology& topo = machine_topology(t.topology_file);
      const int ctx = topo.context_of_os_cpu(t.os_cpu);
      if (ctx >= 0)
        name += ", core " + std::to_string(topo.core_of(ctx)) + ", socket " + std::to_string(topo.socket_of(ctx));
    } catch (const std::exception&) {
      // No machine model: the CPU alone names the track.
    }
    return name + ")";
  }

  void write_track(std::size_t i, const TraceBuffer::Snapshot& snap, std::uint64_t stop_tsc) {
    const Track& t = s_.tracks[i];
    if (i == 0 || s_.tracks[i - 1].process != t.process)
      metadata_.push_back("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(t.process) +
                          ",\"args\":{\"name\":\"weft runtime " + std::to_string(t.process) + "\"}}");
    metadata_.push_back("{\"ph\":\"M\",\"name\":\"thread_name\"," + where(i) + ",\"args\":{\"name\":\"" +
                        track_name(t) + "\"}}");
    metadata_.push_back("{\"ph\":\"M\",\"name\":\"thread_sort_index\"," + where(i) +
                        ",\"args\":{\"sort_index\":" + std::to_string(t.worker) + "}}");
    const std::uint64_t coverage_start = snap.dropped ? snap.events.front().tsc : t.buffer->start_tsc();
    if (snap.dropped)
      instant(i, "events dropped", "trace", coverage_start,
              "\"dropped\":" + std::to_string(snap.dropped) + ",\"buffer_events\":" + std::to_string(s_.capacity));
    // The running ULT (0: none) and the idle stretch in progress.
    std::uint64_t ult = 0, ult_since = 0;
    std::uint32_t ult_label = 0;
    bool ult_known = false;  // false: it was running before the first event kept
    const char* idle = nullptr;
    std::uint64_t idle_since = 0;
    bool first_run = true;
    struct OpenScope {
      std::uint64_t begin;
      std::uint32_t label;
      std::string args;  // "ult":N and each Scope::arg
    };
    std::map<std::uint64_t, OpenScope> scopes;
    auto end_ult = [&](std::uint64_t at, const char* ended) {
      std::string args = "\"ult\":" + std::to_string(ult) + ",\"ended\":\"" + ended + "\"";
      if (!ult_known) args += ",\"began_before_trace\":true";
      slice(i, ult_known ? label(ult_label) : std::string("ult"), "ult", ult_since, at, args);
      ult = 0;
    };
    for (const TraceEvent& e : snap.events) {
      switch (e.kind) {
        case TraceKind::run:
          if (first_run && !ult && e.a != 0) {  // switched away from a ULT whose start was not kept
            ult = e.a;
            ult_since = coverage_start;
            ult_known = false;
          }
          first_run = false;
          if (ult) end_ult(e.tsc, ended_as(e.d));
          if (e.b != 0) {
            ult = e.b;
            ult_since = e.tsc;
            ult_label = e.c;
            ult_known = true;
            begins_[e.b].push_back({i, e.tsc});
          }
          break;
        case TraceKind::spawn:
          instant(i, "spawn", "ult", e.tsc,
                  "\"ult\":" + std::to_string(e.a) + ",\"label\":\"" + label(e.c) + "\"");
          spawns_[e.a] = {i, e.tsc};
          break;
        case TraceKind::unpark:
          instant(i, "unpark", "ult", e.tsc, "\"ult\":" + std::to_string(e.a));
          unparks_.push_back({e.a, {i, e.tsc}});
          break;
        case TraceKind::steal: {
          const bool taken = e.d & 0x80;
          instant(i, taken ? "steal" : "steal attempt", "steal", e.tsc,
                  "\"victim\":" + std::to_string(e.c) + ",\"distance\":" + std::to_string(e.d & 0x7F) +
                      ",\"taken\":" + (taken ? "true" : "false") +
                      (taken ? ",\"ult\":" + std::to_string(e.a) : std::string()));
          if (taken) steals_.push_back({t.process, static_cast<int>(e.c), {i, e.tsc}});
          break;
        }
        case TraceKind::spin_begin:
        case TraceKind::sleep_begin:
          idle = e.kind == TraceKind::spin_begin ? "spin" : "sleep";
          idle_since = e.tsc;
          break;
        case TraceKind::spin_end:
        case TraceKind::sleep_end:
          if (idle) slice(i, idle, "idle", idle_since, e.tsc, "");
          idle = nullptr;
          break;
        case TraceKind::scope_begin:
          scopes[e.a] = {e.tsc, e.c, "\"ult\":" + std::to_string(e.b)};
          break;
        case TraceKind::scope_arg: {
          auto it = scopes.find(e.a);
          if (it != scopes.end())  // else its begin was dropped
            it->second.args += ",\"" + label(e.c) + "\":" + std::to_string(e.b);
          break;
        }
        case TraceKind::scope_end: {
          auto it = scopes.find(e.a);
          if (it == scopes.end()) break;  // its begin was dropped
          scope(i, e.a, it->second.label, it->second.begin, e.tsc, it->second.args);
          scopes.erase(it);
          break;
        }
      }
    }
    const std::uint64_t end = t.live ? stop_tsc : (snap.events.empty() ? coverage_start : snap.events.back().tsc);
    if (ult) end_ult(end, "trace end");
    if (idle) slice(i, idle, "idle", idle_since, end, "\"unfinished\":true");
    for (const auto& [id, open] : scopes) scope(i, id, open.label, open.begin, end, open.args + ",\"unfinished\":true");
  }

  void write_flows() {
    for (auto& [id, list] : begins_)
      std::sort(list.begin(), list.end(), [](const Point& a, const Point& b) { return a.tsc < b.tsc; });
    std::map<std::uint64_t, std::size_t> used;  // ULT id -> begins taken by earlier flows
    for (auto& [id, at] : spawns_) {
      auto it = begins_.find(id);
      if (it == begins_.end()) continue;  // not run within the trace
      flow("spawn", at, it->second.front());
      used[id] = 1;
    }
    std::sort(unparks_.begin(), unparks_.end(), [](const auto& a, const auto& b) { return a.second.tsc < b.second.tsc; });
    for (auto& [id, at] : unparks_) {
      auto it = begins_.find(id);
      if (it == begins_.end()) continue;
      std::size_t& next = used[id];
      const auto& list = it->second;
      while (next < list.size() && list[next].tsc < at.tsc) ++next;
      if (next == list.size()) continue;  // resumed after the trace ended
      flow("unpark", at, list[next]);
      ++next;
    }
    for (const auto& st : steals_) {
      std::size_t victim = s_.tracks.size();
      for (std::size_t k = 0; k < s_.tracks.size(); ++k)
        if (s_.tracks[k].process == st.process && s_.tracks[k].worker == st.victim) victim = k;
      if (victim == s_.tracks.size()) continue;
      instant(victim, "stolen from", "steal", st.at.tsc, "\"thief\":" + std::to_string(s_.tracks[st.at.track].worker));
      flow("steal", {victim, st.at.tsc}, st.at);
    }
  }

  struct Steal {
    int process;
    int victim;
    Point at;
  };

  const Session& s_;
  const Clock& clock_;
  std::vector<std::string> label_names_;
  std::vector<std::string> metadata_;
  std::vector<Out> out_;
  std::map<std::uint64_t, std::vector<Point>> begins_;  // ULT id -> where its slices begin
  std::map<std::uint64_t, Point> spawns_;
  std::vector<std::pair<std::uint64_t, Point>> unparks_;
  std::vector<Steal> steals_;
  std::uint64_t flows_ = 0;
};

// The tick length, from the steady clock over the trace's span (at least 10 ms).
Clock calibrate(const Session& s) {
  using clock = std::chrono::steady_clock;
  const auto min_span = std::chrono::milliseconds(10);
  if (clock::now() - s.start_time < min_span) std::this_thread::sleep_until(s.start_time + min_span);
  const std::uint64_t tsc = trace_clock();
  const double ns = std::chrono::duration<double, std::nano>(clock::now() - s.start_time).count();
  return {s.start_tsc, tsc > s.start_tsc ? ns / static_cast<double>(tsc - s.start_tsc) : 1.0};
}

}  // namespace
}  // namespace detail

namespace trace {

void start(const std::string& path, std::size_t buffer_events) {
  weft::detail::Session& s = weft::detail::session();
  std::lock_guard lock(s.mutex);
  if (buffer_events != 0) weft::detail::check_trace_buffer_events(buffer_events, "weft::trace::start buffer_events");
  weft::detail::start_locked(s, path, buffer_events, "weft::trace::start path", "WEFT_TRACE_BUFFER");
  std::lock_guard registry(weft::detail::registry_mutex());
  for (weft::detail::RuntimeImpl* rt : weft::detail::live_runtimes()) weft::detail::attach_locked(s, *rt);
}

Summary stop() {
  using namespace weft::detail;
  Session& s = session();
  std::lock_guard lock(s.mutex);
  Summary summary;
  if (!s.active) return summary;
  s.active = false;
  weft::trace::detail::recording.store(false, std::memory_order_relaxed);
  bool any_live = false;
  for (Track& t : s.tracks)
    if (t.live) {
      t.live->trace_detach();
      any_live = true;
    }
  if (any_live) barrier_on_every_thread();
  const std::uint64_t stop_tsc = trace_clock();
  std::vector<TraceBuffer::Snapshot> snaps;
  for (const Track& t : s.tracks) {
    // The calling worker's own buffer has no writer in flight: that would be us.
    const bool in_flight = t.live && t.live != tls_worker;
    snaps.push_back(t.buffer->snapshot(in_flight));
    summary.events += snaps.back().events.size();
    summary.dropped_events += snaps.back().dropped;
  }
  const Clock clock = calibrate(s);
  summary.path = s.path;
  std::string json;
  try {
    json = JsonWriter(s, clock).write(snaps, stop_tsc);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft: could not write the trace to '%s': %s; the program's results are unaffected\n",
                 s.path.c_str(), e.what());
  }
  if (!json.empty()) {
    std::FILE* f = std::fopen(s.path.c_str(), "w");
    bool ok = f && std::fwrite(json.data(), 1, json.size(), f) == json.size();
    const int error = errno;
    if (f && std::fclose(f) != 0) ok = false;
    if (ok)
      summary.written = true;
    else
      std::fprintf(stderr, "weft: could not write the trace to '%s': %s; the program's results are unaffected\n",
                   s.path.c_str(), std::strerror(error ? error : EIO));
  }
  for (Track& t : s.tracks)
    if (t.live) s.retired.emplace_back(t.runtime, std::move(t.buffer));
  s.tracks.clear();
  return summary;
}

bool active() {
  weft::detail::Session& s = weft::detail::session();
  std::lock_guard lock(s.mutex);
  return s.active;
}

}  // namespace trace
}  // namespace weft
