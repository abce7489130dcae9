// weft-bench harness: argument parsing, the run loop and the two output
// formats (human table, JSON Lines). See harness.hpp and docs/benchmarks.md.
#include "harness.hpp"

#include <malloc.h>
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

extern char** environ;

namespace weft::bench {

double now_ns() {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

double process_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

Metric cpus_used(double cpu_ns, double wall_ns) { return {"cpus", "CPUs", cpu_ns / wall_ns, false}; }

double resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return NAN;
  unsigned long size = 0, resident = 0;
  const int got = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  if (got != 2) return NAN;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

namespace {

// A field of /proc/self/status in bytes (it reports kB), or -1.
double status_bytes(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  while (std::getline(status, line))
    if (line.rfind(prefix, 0) == 0) return std::stod(line.substr(prefix.size())) * 1024.0;
  return -1;
}

}  // namespace

std::string sibling_executable(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path p = fs::read_symlink("/proc/self/exe").parent_path() / name;
  if (!fs::exists(p))
    throw std::runtime_error(name + " not found next to weft-bench (" + p.string() + "): build the " + name +
                             " target");
  return p.string();
}

ProcessRun run_process(const std::string& path, const std::vector<std::string>& args, char* const* envp) {
  std::vector<char*> argv{const_cast<char*>(path.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  pid_t pid = 0;
  const double t0 = now_ns();
  const int err = posix_spawn(&pid, path.c_str(), &fa, nullptr, argv.data(), envp ? envp : environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  if (err != 0) {
    close(out[0]);
    throw std::runtime_error("posix_spawn " + path + " failed");
  }
  ProcessRun run;
  char buf[256];
  for (ssize_t k; (k = read(out[0], buf, sizeof buf)) > 0;) run.output.append(buf, static_cast<std::size_t>(k));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  run.spawned_ns = t0;
  run.reaped_ns = now_ns();
  run.exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return run;
}

PeakMemory::PeakMemory() {
  malloc_trim(0);
  std::ofstream refs("/proc/self/clear_refs");
  refs << "5";  // resets VmHWM to VmRSS
  refs.flush();
  reset_ = static_cast<bool>(refs);
  resident_before_ = status_bytes("VmRSS");
}

double PeakMemory::added_bytes() const {
  const double peak = status_bytes("VmHWM");
  if (!reset_ || peak < 0 || resident_before_ < 0) return NAN;
  return std::max(0.0, peak - resident_before_);
}

namespace {

std::vector<Suite>& registry() {
  static std::vector<Suite> r;
  return r;
}

struct Machine {
  std::string host;
  std::string cpu;
  unsigned logical = 0;  // std::thread::hardware_concurrency()
  int usable = 0;        // CPUs in this process's affinity mask
};

Machine machine() {
  Machine m;
  char buf[256] = {};
  m.host = gethostname(buf, sizeof buf - 1) == 0 ? buf : "unknown";
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        m.cpu = line.substr(colon + 1);
        m.cpu.erase(0, m.cpu.find_first_not_of(" \t"));
      }
      break;
    }
  }
  if (m.cpu.empty()) m.cpu = "unknown CPU";
  m.logical = std::thread::hardware_concurrency();
  cpu_set_t set;
  CPU_ZERO(&set);
  m.usable = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
  return m;
}

std::string json_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          out += b;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// Value with ~4 significant digits, for the table.
std::string fmt(double v) {
  char b[64];
  if (v >= 1e5)
    std::snprintf(b, sizeof b, "%.0f", v);
  else if (v >= 100)
    std::snprintf(b, sizeof b, "%.1f", v);
  else if (v >= 1)
    std::snprintf(b, sizeof b, "%.2f", v);
  else
    std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

struct Stats {
  double median = NAN, min = NAN, max = NAN;
};

Stats stats(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  return s;
}

// Samples of one extra metric (Measurement::extra) of one row.
struct ExtraSeries {
  std::string name, unit;
  bool higher_is_better = false;
  std::vector<double> samples;  // finite values only
  Stats st;
};

struct Row {
  const Impl* impl;
  std::vector<double> per_op;  // ns per op, one per repetition
  std::vector<double> total;   // ms, one per repetition
  std::string error;           // non-empty: a run threw (e.g. wrong result)
  Stats op, tot;
  std::vector<ExtraSeries> extra = {};
  bool ok() const { return impl->missing.empty() && error.empty(); }
  const ExtraSeries* find_extra(const std::string& name) const {
    for (const auto& e : extra)
      if (e.name == name) return &e;
    return nullptr;
  }
};

// Names of the extra metrics of a case's rows, in order of first appearance.
std::vector<std::string> extra_names(const std::vector<Row>& rows) {
  std::vector<std::string> names;
  for (const auto& r : rows)
    for (const auto& e : r.extra)
      if (std::find(names.begin(), names.end(), e.name) == names.end()) names.push_back(e.name);
  return names;
}

int usage(std::ostream& os, const std::string& bad = {}) {
  if (!bad.empty()) os << "weft-bench: " << bad << "\n\n";
  os << "usage: weft-bench SUITE [options]   run a suite\n"
        "       weft-bench list              list suites and their cases\n"
        "       weft-bench help              this text\n"
        "options:\n"
        "  --reps N      measured repetitions per implementation (default 5);\n"
        "                the median is reported, with min and max\n"
        "  --warmup N    unmeasured runs of each implementation first (default 1)\n"
        "  --settle MS   pause before each run so other runtimes' threads go idle (default 10)\n"
        "  --quick       small sizes (demo, CI)\n"
        "  --filter S    only cases whose name contains S\n"
        "  --rows A,B    only the rows named A and B (e.g. --rows weft to profile weft alone)\n"
        "  --json        JSON Lines: one record per (case, impl, metric)\n"
        "suites:\n";
  for (const auto& s : registry())
    os << "  " << s.name << std::string(s.name.size() < 12 ? 12 - s.name.size() : 1, ' ')
       << s.description << "\n";
  return bad.empty() ? 0 : 2;
}

bool parse_int(const std::string& s, int& out) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < 0 || v > 1000000) return false;
  out = static_cast<int>(v);
  return true;
}

void print_header(const Suite& suite, const Options& o, const Machine& m) {
  std::printf("weft-bench %s%s\n", suite.name.c_str(), o.quick ? " --quick" : "");
  std::printf("machine: %s | %s | %u logical CPUs, %d usable\n", m.host.c_str(),
              m.cpu.c_str(), m.logical, m.usable);
  std::printf("%d repetitions (+%d warm-up) per row, interleaved; value = median [min .. max]\n",
              o.reps, o.warmup);
  std::printf("'vs weft' = this row's time / weft's time: > 1 means weft is that many times faster\n");
  std::printf("'vs best' = this row's time / the fastest row's time: 1.00 is the fastest\n");
  std::fflush(stdout);
}

void print_case(const Case& c, const std::vector<Row>& rows) {
  const Row* ref = nullptr;
  double best = INFINITY;
  for (const auto& r : rows) {
    if (!r.ok()) continue;
    if (r.impl->name == kReference) ref = &r;
    best = std::min(best, r.op.median);
  }
  size_t w = 6;
  for (const auto& r : rows) w = std::max(w, r.impl->name.size());
  const std::vector<std::string> extras = extra_names(rows);
  std::printf("\n%s — %s\n", c.name.c_str(), c.what.c_str());
  std::printf("  %-*s %12s  %-22s %11s %8s %8s", static_cast<int>(w), "impl",
              c.op_unit.c_str(), "[min .. max]", "total ms", "vs weft", "vs best");
  for (const auto& e : extras) std::printf(" %10s", e.c_str());
  std::printf("\n");
  for (const auto& r : rows) {
    const char* name = r.impl->name.c_str();
    if (!r.impl->missing.empty()) {
      std::printf("  %-*s %12s  (%s)\n", static_cast<int>(w), name, "missing",
                  r.impl->missing.c_str());
      continue;
    }
    if (!r.error.empty()) {
      std::printf("  %-*s %12s  %s\n", static_cast<int>(w), name, "FAILED", r.error.c_str());
      continue;
    }
    char range[64];
    std::snprintf(range, sizeof range, "[%s .. %s]", fmt(r.op.min).c_str(), fmt(r.op.max).c_str());
    std::string vs_weft = ref ? fmt(r.op.median / ref->op.median) : "—";
    std::printf("  %-*s %12s  %-22s %11s %8s %8s", static_cast<int>(w), name,
                fmt(r.op.median).c_str(), range, fmt(r.tot.median).c_str(),
                vs_weft.c_str(), fmt(r.op.median / best).c_str());
    for (const auto& e : extras) {
      const ExtraSeries* x = r.find_extra(e);
      // "—" is 3 bytes but one column: pad by hand.
      if (x && std::isfinite(x->st.median))
        std::printf(" %10s", fmt(x->st.median).c_str());
      else
        std::printf("          —");
    }
    std::printf("\n");
  }
  std::fflush(stdout);
}

void print_json(const Suite& s, const Case& c, const std::vector<Row>& rows, const Options& o,
                const Machine& m) {
  const Row* ref = nullptr;
  for (const auto& r : rows)
    if (r.ok() && r.impl->name == kReference) ref = &r;
  for (const auto& r : rows) {
    struct Rec {
      const char* name;
      const char* unit;
      const std::vector<double>* samples;
      const Stats* st;
      double ref_median;
      bool higher = false;
    };
    const Rec metrics[] = {
        {"time_per_op", c.op_unit.c_str(), &r.per_op, &r.op, ref ? ref->op.median : NAN},
        {"total_time", "ms", &r.total, &r.tot, ref ? ref->tot.median : NAN},
    };
    std::vector<Rec> all(std::begin(metrics), std::end(metrics));
    // Extra metrics: one more record each, where this row has samples.
    for (const auto& e : r.extra) {
      const ExtraSeries* re = ref ? ref->find_extra(e.name) : nullptr;
      all.push_back({e.name.c_str(), e.unit.c_str(), &e.samples, &e.st,
                     re ? re->st.median : NAN, e.higher_is_better});
    }
    for (const auto& mt : all) {
      std::ostringstream os;
      os << "{\"suite\":\"" << json_escape(s.name) << "\",\"case\":\"" << json_escape(c.name)
         << "\",\"impl\":\"" << json_escape(r.impl->name) << "\",\"metric\":\""
         << json_escape(mt.name) << "\",\"unit\":\"" << json_escape(mt.unit)
         << "\",\"better\":\"" << (mt.higher ? "higher" : "lower") << "\"";
      if (!r.ok()) {
        const bool missing = !r.impl->missing.empty();
        os << ",\"status\":\"" << (missing ? "missing" : "failed") << "\",\"value\":null"
           << ",\"note\":\"" << json_escape(missing ? r.impl->missing : r.error) << "\"";
      } else {
        os << ",\"status\":\"ok\",\"value\":" << num(mt.st->median)
           << ",\"repetitions\":" << mt.samples->size() << ",\"median\":" << num(mt.st->median)
           << ",\"min\":" << num(mt.st->min) << ",\"max\":" << num(mt.st->max)
           << ",\"samples\":[";
        for (size_t i = 0; i < mt.samples->size(); ++i)
          os << (i ? "," : "") << num((*mt.samples)[i]);
        os << "],\"ratio_vs_weft\":" << num(mt.st->median / mt.ref_median);
      }
      os << ",\"quick\":" << (o.quick ? "true" : "false") << ",\"host\":\""
         << json_escape(m.host) << "\",\"cpu\":\"" << json_escape(m.cpu)
         << "\",\"cpus\":" << m.usable << "}";
      std::printf("%s\n", os.str().c_str());
    }
  }
  std::fflush(stdout);
}

std::string cell_text(const SummaryTable::Cell& c) {
  if (!c.text.empty()) return c.text;
  return std::isfinite(c.value) ? fmt(c.value) : "—";
}

// Display width: "—" and "×" are one column but several bytes.
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
  return n;
}

void print_summary(const SummaryTable& t) {
  std::vector<size_t> w(t.columns.size(), 0);
  for (size_t i = 0; i < t.columns.size(); ++i) w[i] = display_width(t.columns[i]);
  for (const auto& row : t.rows)
    for (size_t i = 0; i < row.size() && i < w.size(); ++i)
      w[i] = std::max(w[i], display_width(cell_text(row[i])));
  auto line = [&](auto cell_at) {
    std::string out = " ";
    for (size_t i = 0; i < w.size(); ++i) {
      std::string s = cell_at(i);
      std::string pad(w[i] - std::min(w[i], display_width(s)), ' ');
      out += " ";
      out += i == 0 ? s + pad : pad + s;  // label left, numbers right
    }
    std::printf("%s\n", out.c_str());
  };
  std::printf("\n%s — %s\n", t.name.c_str(), t.what.c_str());
  line([&](size_t i) { return t.columns[i]; });
  for (const auto& row : t.rows)
    line([&](size_t i) { return i < row.size() ? cell_text(row[i]) : std::string(); });
  std::fflush(stdout);
}

void print_summary_json(const Suite& s, const SummaryTable& t, const Options& o, const Machine& m) {
  for (const auto& row : t.rows) {
    if (row.empty()) continue;
    for (size_t i = 1; i < row.size() && i < t.columns.size(); ++i) {
      std::ostringstream os;
      os << "{\"suite\":\"" << json_escape(s.name) << "\",\"case\":\"" << json_escape(t.name)
         << "\",\"impl\":\"" << json_escape(cell_text(row[0])) << "\",\"metric\":\""
         << json_escape(t.columns[i]) << "\",\"status\":\"summary\",\"value\":"
         << num(row[i].value);
      if (!row[i].text.empty()) os << ",\"text\":\"" << json_escape(row[i].text) << "\"";
      os << ",\"quick\":" << (o.quick ? "true" : "false") << ",\"host\":\""
         << json_escape(m.host) << "\",\"cpu\":\"" << json_escape(m.cpu)
         << "\",\"cpus\":" << m.usable << "}";
      std::printf("%s\n", os.str().c_str());
    }
  }
  std::fflush(stdout);
}

// Runs one implementation once; returns false (and sets row.error) if it threw.
bool run_once(Row& row, bool record, int settle_ms) {
  if (settle_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
  try {
    Measurement m = row.impl->run();
    if (!(m.ops > 0) || !(m.total_ns >= 0)) throw std::runtime_error("bad measurement");
    if (record) {
      row.per_op.push_back(m.total_ns / m.ops);
      row.total.push_back(m.total_ns / 1e6);
      for (const auto& x : m.extra) {
        ExtraSeries* e = nullptr;
        for (auto& have : row.extra)
          if (have.name == x.name) e = &have;
        if (!e) {
          row.extra.push_back({x.name, x.unit, x.higher_is_better, {}, {}});
          e = &row.extra.back();
        }
        if (std::isfinite(x.value)) e->samples.push_back(x.value);
      }
    }
    return true;
  } catch (const std::exception& e) {
    row.error = e.what();
  } catch (...) {
    row.error = "unknown exception";
  }
  return false;
}

int run_suite(const Suite& suite, const Options& o) {
  const Machine m = machine();
  std::vector<Case> cases = suite.cases(o);
  std::vector<const Case*> kept;  // the cases --filter keeps, in order
  for (const auto& c : cases)
    if (o.filter.empty() || c.name.find(o.filter) != std::string::npos) kept.push_back(&c);
  if (kept.empty()) {
    std::cerr << "weft-bench: no case of suite '" << suite.name << "' matches --filter '"
              << o.filter << "' (see 'weft-bench list')\n";
    return 2;
  }
  auto row_wanted = [&](const std::string& impl) {
    return o.rows.empty() || std::find(o.rows.begin(), o.rows.end(), impl) != o.rows.end();
  };
  for (const auto& want : o.rows) {
    bool found = false;
    for (const Case* c : kept)
      for (const auto& impl : c->impls) found = found || impl.name == want;
    if (!found) {
      std::cerr << "weft-bench: no case of suite '" << suite.name << "' kept by --filter has a row '"
                << want << "' (see 'weft-bench list')\n";
      return 2;
    }
  }
  if (!o.json) print_header(suite, o, m);
  bool failed = false;
  std::vector<RowResult> results;
  for (const Case* kept_case : kept) {
    const Case& c = *kept_case;
    std::vector<Row> rows;
    for (const auto& impl : c.impls)
      if (row_wanted(impl.name)) rows.push_back(Row{&impl, {}, {}, {}, {}, {}});
    // Warm-up, then repetitions interleaved across rows so that machine noise
    // and drift fall on every row alike.
    for (int rep = -o.warmup; rep < o.reps; ++rep)
      for (auto& r : rows)
        if (r.ok()) run_once(r, rep >= 0, o.settle_ms);
    for (auto& r : rows) {
      if (!r.error.empty()) failed = true;
      r.op = stats(r.per_op);
      r.tot = stats(r.total);
      RowResult rr{c.name, r.impl->name, r.ok(), r.op.median};
      for (auto& e : r.extra) {
        e.st = stats(e.samples);
        rr.extra.emplace_back(e.name, e.st.median);
      }
      results.push_back(std::move(rr));
    }
    if (o.json)
      print_json(suite, c, rows, o, m);
    else
      print_case(c, rows);
  }
  if (suite.summary) {
    for (const auto& t : suite.summary(results, o)) {
      if (o.json)
        print_summary_json(suite, t, o, m);
      else
        print_summary(t);
    }
  }
  return failed ? 1 : 0;
}

}  // namespace

double RowResult::metric(const std::string& name) const {
  for (const auto& [n, v] : extra)
    if (n == name) return v;
  return NAN;
}

bool register_suite(Suite suite) {
  registry().push_back(std::move(suite));
  return true;
}

const std::vector<Suite>& suites() { return registry(); }

int main_driver(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage(std::cerr, "no suite given");
  const std::string cmd = args[0];
  if (cmd == "help" || cmd == "--help" || cmd == "-h") return usage(std::cout);

  Options o;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string a = args[i], val;
    bool has_val = false;
    if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      val = a.substr(eq + 1);
      a = a.substr(0, eq);
      has_val = true;
    }
    auto value = [&](const char* opt) -> bool {
      if (has_val) return true;
      if (i + 1 >= args.size()) return false;
      val = args[++i];
      (void)opt;
      return true;
    };
    if (a == "--quick" && !has_val) {
      o.quick = true;
    } else if (a == "--json" && !has_val) {
      o.json = true;
    } else if (a == "--reps") {
      if (!value("--reps") || !parse_int(val, o.reps) || o.reps < 1)
        return usage(std::cerr, "--reps needs a positive integer, got '" + val + "'");
    } else if (a == "--warmup") {
      if (!value("--warmup") || !parse_int(val, o.warmup))
        return usage(std::cerr, "--warmup needs a non-negative integer, got '" + val + "'");
    } else if (a == "--settle") {
      if (!value("--settle") || !parse_int(val, o.settle_ms))
        return usage(std::cerr, "--settle needs a non-negative integer (ms), got '" + val + "'");
    } else if (a == "--filter") {
      if (!value("--filter")) return usage(std::cerr, "--filter needs a substring");
      o.filter = val;
    } else if (a == "--rows") {
      if (!value("--rows") || val.empty()) return usage(std::cerr, "--rows needs a comma-separated list of row names");
      o.rows.clear();
      for (std::size_t start = 0; start <= val.size();) {
        const std::size_t comma = std::min(val.find(',', start), val.size());
        if (comma == start) return usage(std::cerr, "--rows '" + val + "' has an empty row name");
        o.rows.push_back(val.substr(start, comma - start));
        start = comma + 1;
      }
    } else {
      return usage(std::cerr, "unknown option '" + args[i] + "'");
    }
  }

  if (cmd == "list") {
    for (const auto& s : registry()) {
      std::cout << s.name << ": " << s.description << "\n";
      for (const auto& c : s.cases(o)) {
        std::cout << "  " << c.name << " — " << c.what << "\n    rows:";
        for (const auto& impl : c.impls)
          std::cout << " " << impl.name << (impl.missing.empty() ? "" : " (missing)");
        std::cout << "\n";
      }
    }
    return 0;
  }
  for (const auto& s : registry())
    if (s.name == cmd) return run_suite(s, o);
  return usage(std::cerr, "unknown suite '" + cmd + "'");
}

}  // namespace weft::bench
