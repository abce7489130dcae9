// weft-topo: show a machine's topology, infer it with MCTOP-ALG, and try
// MCTOP-PLACE policies on it. Run `weft-topo help` for usage.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <sched.h>

#include <algorithm>
#include <barrier>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>

#include "weft/sched/cpuset.hpp"
#include "weft/sched/latency_probe.hpp"
#include "weft/sched/latency_table_io.hpp"
#include "weft/sched/numa_memory.hpp"
#include "weft/sched/omp_places.hpp"
#include "weft/sched/place_pool.hpp"
#include "weft/sched/placement.hpp"
#include "weft/sched/power.hpp"
#include "weft/sched/topology.hpp"
#include "weft/sched/topology_io.hpp"

#include "text_format.hpp"  // sched/src: join, json_escape

namespace ws = weft::sched;

namespace {

using ws::detail::join;
using ws::detail::json_escape;

const char* kUsage =
    "usage:\n"
    "  weft-topo show [MACHINE] [--json]           tree, levels and latency table\n"
    "  weft-topo infer [--save FILE] [--save-table FILE] [--reps N] [--nodes N] [--smt yes|no] [--mem] [--power]\n"
    "                  [--json]                    measure latencies (MCTOP-ALG) on this machine and infer;\n"
    "                                              --save-table keeps the measured table, --mem also measures\n"
    "                                              per-node memory latency/bandwidth, --power the per-socket\n"
    "                                              power model (RAPL, if readable); prints what did not fit\n"
    "  weft-topo infer --table FILE [--nodes N] [--smt yes|no] [--save FILE] [--json]\n"
    "                                              infer from a saved latency table (docs/topology-format.md);\n"
    "                                              nodes: --nodes, else the file's 'nodes' line, else 1\n"
    "  weft-topo latency [--method probe|pingpong|both] [--cpus LIST] [--reps N] [--runs K] [--save-table FILE]\n"
    "                                              measure a latency table on this machine (cycles) with the\n"
    "                                              MCTOP-ALG probe or a plain ping-pong; 'both' compares them\n"
    "  weft-topo place POLICY N [--sockets K] [MACHINE] [--json]\n"
    "                                              place N threads under an MCTOP-PLACE policy (with the\n"
    "                                              estimated max power when the machine has a power model)\n"
    "  weft-topo power [--measure] [--interval S] [--save FILE] [MACHINE] [--json]\n"
    "                                              RAPL availability and the machine's power model;\n"
    "                                              --measure measures it on this machine with RAPL\n"
    "  weft-topo omp [N] [--places VALUE] [--bind VALUE] [MACHINE] [--json]\n"
    "                                              the OMP_PLACES / OMP_PROC_BIND placement of N workers\n"
    "                                              (default: the variables' values, N = default worker count)\n"
    "  weft-topo pin POLICY N [POLICY N ...] [--sockets K]\n"
    "                                              on this machine: threads pin themselves through a\n"
    "                                              placement pool, one phase per POLICY N, and report\n"
    "                                              where they run (sched_getcpu)\n"
    "  weft-topo help\n"
    "MACHINE (default: this machine via hwloc, latencies estimated):\n"
    "  --synthetic DESC   hwloc synthetic description, e.g. \"pack:2 core:10 pu:2\"\n"
    "  --xml FILE         hwloc XML export (lstopo --of xml)\n"
    "  --load FILE        a topology saved by `weft-topo infer --save` (docs/topology-format.md)\n"
    "POLICY: NONE SEQUENTIAL CON_HWC CON_CORE_HWC CON_CORE BALANCE_HWC BALANCE_CORE_HWC\n"
    "        BALANCE_CORE RR_HWC RR_CORE RR_SCALE POWER\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Args {
  std::vector<std::string> positional;
  std::optional<std::string> synthetic, xml, load, save, places, bind, table, save_table, cpus;
  std::optional<bool> smt;
  std::string method = "both";
  bool json = false, mem = false, power = false, measure = false, reps_given = false;
  int reps = 2000, nodes = 0, sockets = 0, runs = 3;
  double interval = 0.5;
};

int to_int(const std::string& opt, const std::string& v, int min) {
  try {
    size_t used = 0;
    int x = std::stoi(v, &used);
    if (used == v.size() && x >= min) return x;
  } catch (...) {
  }
  throw UsageError(opt + " expects an integer >= " + std::to_string(min) + ", got \"" + v + "\"");
}

Args parse(int argc, char** argv, const std::vector<std::string>& allowed) {
  Args a;
  auto ok = [&](const std::string& o) {
    for (const auto& x : allowed)
      if (x == o) return true;
    return false;
  };
  for (int i = 2; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) != 0) {
      a.positional.push_back(s);
      continue;
    }
    if (!ok(s)) throw UsageError("unknown option " + s + " for '" + argv[1] + "'");
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(s + " needs a value");
      return argv[++i];
    };
    if (s == "--json") a.json = true;
    else if (s == "--mem") a.mem = true;
    else if (s == "--synthetic") a.synthetic = value();
    else if (s == "--xml") a.xml = value();
    else if (s == "--load") a.load = value();
    else if (s == "--save") a.save = value();
    else if (s == "--reps") a.reps = to_int(s, value(), 1), a.reps_given = true;
    else if (s == "--runs") a.runs = to_int(s, value(), 1);
    else if (s == "--table") a.table = value();
    else if (s == "--save-table") a.save_table = value();
    else if (s == "--cpus") a.cpus = value();
    else if (s == "--method") {
      a.method = value();
      if (a.method != "probe" && a.method != "pingpong" && a.method != "both")
        throw UsageError("--method expects probe, pingpong or both, got \"" + a.method + "\"");
    } else if (s == "--smt") {
      std::string v = value();
      if (v != "yes" && v != "no") throw UsageError("--smt expects yes or no, got \"" + v + "\"");
      a.smt = v == "yes";
    }
    else if (s == "--nodes") a.nodes = to_int(s, value(), 1);
    else if (s == "--sockets") a.sockets = to_int(s, value(), 1);
    else if (s == "--power") a.power = true;
    else if (s == "--measure") a.measure = true;
    else if (s == "--places") a.places = value();
    else if (s == "--bind") a.bind = value();
    else if (s == "--interval") {
      std::string v = value();
      try {
        size_t used = 0;
        a.interval = std::stod(v, &used);
        if (used != v.size() || !(a.interval > 0 && a.interval <= 60)) throw 0;
      } catch (...) {
        throw UsageError("--interval expects seconds in (0, 60], got \"" + v + "\"");
      }
    }
  }
  int machines = a.synthetic.has_value() + a.xml.has_value() + a.load.has_value();
  if (machines > 1) throw UsageError("give at most one of --synthetic, --xml, --load");
  return a;
}

ws::Topology machine(const Args& a) {
  if (a.synthetic) return ws::Topology::from_hwloc_synthetic(*a.synthetic);
  if (a.xml) return ws::Topology::from_hwloc_xml(*a.xml);
  if (a.load) return ws::load_topology(*a.load);
  return ws::Topology::discover();
}

const std::vector<std::string> kMachineOpts = {"--synthetic", "--xml", "--load", "--json"};

int cmd_show(int argc, char** argv) {
  Args a = parse(argc, argv, kMachineOpts);
  if (!a.positional.empty()) throw UsageError("'show' takes no argument \"" + a.positional[0] + "\"");
  ws::Topology t = machine(a);
  std::cout << (a.json ? t.to_json() + "\n" : t.to_string());
  return 0;
}

// What MCTOP-ALG could not fit and how it resolved it (AlgResult::diagnostics).
void print_diagnostics(const ws::AlgResult& r, std::ostream& out, bool measured_here) {
  if (r.uniform()) {
    out << "inference: the table is a uniform hierarchy (the thesis's result, nothing resolved)\n";
    return;
  }
  out << "inference: the table is not a uniform hierarchy; " << r.diagnostics.size()
      << " diagnostic(s), each resolved as it says:\n";
  const size_t shown = std::min<size_t>(r.diagnostics.size(), 40);
  for (size_t i = 0; i < shown; ++i)
    out << "  [" << ws::to_string(r.diagnostics[i].kind) << "] " << r.diagnostics[i].message << "\n";
  if (shown < r.diagnostics.size()) out << "  ... and " << r.diagnostics.size() - shown << " more\n";
  if (measured_here)
    out << "  (on bare metal this means noisy measurements: retry on an idle machine, with more --reps;\n"
           "   on a virtual machine the vCPUs' placement on the host may really be uneven: "
           "docs/topology-format.md)\n";
}

ws::AlgResult infer_from_table(const Args& a) {
  if (a.mem || a.power) throw UsageError("--mem and --power measure this machine; they do not go with --table");
  if (a.reps_given || a.save_table) throw UsageError("--reps and --save-table are for a measurement, not --table");
  ws::LatencyTableFile f = ws::load_latency_table(*a.table);
  ws::AlgOptions o;
  o.os_node_of_row = f.os_nodes;
  const int file_nodes = static_cast<int>(std::set<int>(f.os_nodes.begin(), f.os_nodes.end()).size());
  o.num_nodes = a.nodes ? a.nodes : std::max(1, file_nodes);
  o.smt = a.smt;
  std::fprintf(stderr, "weft-topo infer: %s: %d cpus, %d memory node(s)\n", a.table->c_str(), f.table.size(),
               o.num_nodes);
  return ws::infer_topology(f.table, o);
}

ws::AlgResult infer_this_machine(const Args& a) {
  ws::ProbeOptions po;
  po.repetitions = a.reps;
  po.note = [](const std::string& what) { std::fprintf(stderr, "\nweft-topo infer: %s\n", what.c_str()); };
  po.progress = [&](int done, int total) {
    if (done == total || done % 16 == 0)
      std::fprintf(stderr, "\rweft-topo infer: %d/%d context pairs measured", done, total);
    if (done == total) std::fprintf(stderr, "\n");
  };
  std::fprintf(stderr, "weft-topo infer: measuring with %d repetitions per pair...\n", a.reps);
  ws::MachineLatencies m = ws::measure_machine(po);
  const ws::ProbeCalibration& c = m.calibration;
  std::fprintf(stderr,
               "weft-topo infer: probe on cpu %d: timer %.0f cycles (subtracted), local CAS %.0f cycles "
               "(10th percentile %.0f: the floor), TSC %.3f GHz%s\n",
               c.os_cpu, c.timer_overhead, c.local_cas, c.local_cas_p10, c.tsc_per_ns,
               c.invariant_tsc ? "" : " (not invariant: cycles are TSC ticks, not core cycles)");
  if (a.smt)
    m.smt = *a.smt;
  else if (!m.smt_note.empty())
    std::fprintf(stderr, "weft-topo infer: %s\n", m.smt_note.c_str());
  if (a.save_table) {
    ws::save_latency_table(m.table, *a.save_table,
                           {"measured by weft-topo infer (the MCTOP-ALG lock-step CAS probe, " +
                            std::to_string(a.reps) + " repetitions per pair, median, timer overhead subtracted)"},
                           m.os_nodes);
    std::fprintf(stderr, "weft-topo infer: latency table saved to %s\n", a.save_table->c_str());
  }
  return ws::infer_measured(m, a.nodes);
}

int cmd_infer(int argc, char** argv) {
  Args a = parse(argc, argv,
                 {"--table", "--save", "--save-table", "--reps", "--nodes", "--smt", "--mem", "--power", "--json"});
  if (!a.positional.empty()) throw UsageError("'infer' takes no argument \"" + a.positional[0] + "\"");
  auto t0 = std::chrono::steady_clock::now();
  ws::AlgResult r = a.table ? infer_from_table(a) : infer_this_machine(a);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "weft-topo infer: inferred in %.2f s (SMT %s, %zu latency clusters)\n", secs,
               r.smt ? "yes" : "no", r.clusters.size());
  ws::Topology t = r.topology;
  if (a.mem) {
    ws::MemoryProbeOptions mo;
    mo.progress = [](int node) { std::fprintf(stderr, "weft-topo infer: measuring memory of node %d\n", node); };
    t = ws::measure_memory(t, mo);
  }
  if (a.power) {
    try {
      ws::PowerProbeOptions po;
      po.progress = [](const std::string& phase) { std::fprintf(stderr, "weft-topo infer: power: %s\n", phase.c_str()); };
      t = ws::measure_power(t, po);
    } catch (const ws::PowerUnavailable& e) {
      std::fprintf(stderr, "weft-topo infer: no power model: %s\n", e.what());
    }
  }
  if (a.save) {
    ws::save_topology(t, *a.save);
    std::fprintf(stderr, "weft-topo infer: saved to %s\n", a.save->c_str());
  }
  if (a.json) {
    print_diagnostics(r, std::cerr, !a.table);
    std::cout << t.to_json() << "\n";
  } else {
    std::cout << "latency clusters (min / median / max cycles):\n";
    for (const auto& c : r.clusters) std::cout << "  " << c.min << " / " << c.median << " / " << c.max << "  (" << c.count << " pairs)\n";
    print_diagnostics(r, std::cout, !a.table);
    std::cout << t.to_string();
  }
  return 0;
}

// "0,2,4-7" -> {0,2,4,5,6,7}.
std::vector<int> parse_cpu_list(const std::string& s) {
  std::vector<int> cpus;
  std::istringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    size_t dash = item.find('-');
    int lo = to_int("--cpus", item.substr(0, dash), 0);
    int hi = dash == std::string::npos ? lo : to_int("--cpus", item.substr(dash + 1), lo);
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  if (cpus.size() < 2) throw UsageError("--cpus needs at least two cpus, got \"" + s + "\"");
  return cpus;
}

int cmd_latency(int argc, char** argv) {
  Args a = parse(argc, argv, {"--method", "--cpus", "--reps", "--runs", "--save-table"});
  if (!a.positional.empty()) throw UsageError("'latency' takes no argument \"" + a.positional[0] + "\"");
  std::vector<int> cpus = a.cpus ? parse_cpu_list(*a.cpus) : ws::allowed_cpus();
  if (cpus.size() < 2) throw UsageError("'latency' needs at least two cpus");
  if (a.method == "both" && a.save_table) throw UsageError("--save-table saves one table: give --method probe or pingpong");
  auto progress = [](const char* what) {
    return [what](int done, int total) {
      if (done == total || done % 16 == 0) std::fprintf(stderr, "\rweft-topo latency: %s: %d/%d pairs", what, done, total);
      if (done == total) std::fprintf(stderr, "\n");
    };
  };
  std::optional<ws::LatencyTable> probe, pingpong;
  std::string probe_how, pingpong_how;
  if (a.method != "pingpong") {
    ws::ProbeCalibration c = ws::calibrate_probe(cpus[0]);
    std::printf("# probe calibration on cpu %d: timer %.0f cycles, local CAS %.0f cycles (10th percentile %.0f), "
                "TSC %.3f GHz, invariant TSC %s\n",
                c.os_cpu, c.timer_overhead, c.local_cas, c.local_cas_p10, c.tsc_per_ns, c.invariant_tsc ? "yes" : "no");
    ws::ProbeOptions po;
    po.repetitions = a.reps;
    po.progress = progress("probe");
    po.note = [](const std::string& what) { std::fprintf(stderr, "\nweft-topo latency: probe: %s\n", what.c_str()); };
    probe = ws::measure_latency_table(cpus, po);
    probe_how = "MCTOP-ALG probe (lock-step CAS, Fig 7.3): cycles of the CAS that takes the line from the other cpu, "
                "median of " + std::to_string(a.reps) + ", timer overhead subtracted";
  }
  if (a.method != "probe") {
    ws::PingPongOptions pp;
    pp.round_trips = a.reps;
    pp.runs = a.runs;
    pp.progress = progress("ping-pong");
    pingpong = ws::measure_pingpong_table(cpus, pp);
    pingpong_how = "plain ping-pong on one 128-byte-aligned atomic: one-way latency = median of " +
                   std::to_string(a.reps) + " round trips (timer overhead subtracted) halved, minimum over " +
                   std::to_string(a.runs) + " runs";
  }
  auto emit = [&](const ws::LatencyTable& t, const std::string& how) {
    if (a.save_table) {
      ws::save_latency_table(t, *a.save_table, {"measured by weft-topo latency: " + how});
      std::fprintf(stderr, "weft-topo latency: saved to %s\n", a.save_table->c_str());
    }
    std::ostringstream o;
    ws::save_latency_table(t, o, {how});
    std::cout << o.str();
  };
  if (probe) emit(*probe, probe_how);
  if (pingpong) emit(*pingpong, pingpong_how);
  if (probe && pingpong) {
    std::printf("# pair: probe / ping-pong (cycles), ratio\n");
    for (int i = 0; i < probe->size(); ++i)
      for (int j = i + 1; j < probe->size(); ++j)
        std::printf("# cpus %d-%d: %.0f / %.0f, %.2f\n", cpus[i], cpus[j], probe->at(i, j), pingpong->at(i, j),
                    probe->at(i, j) / pingpong->at(i, j));
  }
  return 0;
}

int cmd_place(int argc, char** argv) {
  std::vector<std::string> opts = kMachineOpts;
  opts.push_back("--sockets");
  Args a = parse(argc, argv, opts);
  if (a.positional.size() != 2) throw UsageError("'place' needs POLICY and N");
  ws::Policy p = ws::parse_policy(a.positional[0]);
  int n = to_int("N", a.positional[1], 1);
  ws::Topology t = machine(a);
  ws::Placement pl = ws::place(t, p, n, a.sockets);
  std::cout << (a.json ? pl.to_json(t) + "\n" : pl.summary(t));
  return 0;
}

int cmd_power(int argc, char** argv) {
  std::vector<std::string> opts = kMachineOpts;
  opts.insert(opts.end(), {"--measure", "--interval", "--save"});
  Args a = parse(argc, argv, opts);
  if (!a.positional.empty()) throw UsageError("'power' takes no argument \"" + a.positional[0] + "\"");
  ws::Topology t = machine(a);
  ws::RaplStatus st = ws::rapl_status();
  if (a.measure) {
    if (a.synthetic || a.xml) throw UsageError("--measure runs on this machine (no --synthetic / --xml)");
    ws::PowerProbeOptions po;
    po.interval_s = a.interval;
    po.progress = [](const std::string& phase) { std::fprintf(stderr, "weft-topo power: measuring: %s\n", phase.c_str()); };
    t = ws::measure_power(t, po);  // PowerUnavailable (with the reason) -> exit 1
    if (a.save) {
      ws::save_topology(t, *a.save);
      std::fprintf(stderr, "weft-topo power: saved to %s\n", a.save->c_str());
    }
  } else if (a.save) {
    throw UsageError("--save needs --measure");
  }
  if (a.json) {
    std::cout << "{\"rapl_available\":" << (st.available ? "true" : "false");
    if (!st.available) {
      std::cout << ",\"rapl_reason\":\"" << json_escape(st.reason) << "\"";
    }
    std::cout << ",\"power_source\":\"" << ws::to_string(t.power_source()) << "\",\"sockets\":[";
    for (int s = 0; s < t.num_sockets(); ++s) {
      ws::PowerInfo p = t.power(s);
      std::cout << (s ? "," : "") << "{\"socket\":" << s << ",\"idle_w\":" << p.idle_w << ",\"socket_w\":" << p.socket_w
                << ",\"core_w\":" << p.core_w << ",\"context_w\":" << p.context_w << ",\"dram_idle_w\":" << p.dram_idle_w
                << ",\"dram_active_w\":" << p.dram_active_w << "}";
    }
    std::cout << "]}\n";
    return 0;
  }
  std::cout << st.describe();
  if (!t.has_power_info()) {
    std::cout << "power model: none (POWER places by structure: fewest sockets, then fewest cores)\n"
              << "  measure one with `weft-topo power --measure [--save FILE]` where RAPL is readable, or write\n"
              << "  'power' lines in a topology file (docs/topology-format.md) and use --load FILE\n";
    return 0;
  }
  std::cout << "power model (" << ws::to_string(t.power_source()) << ", watts):\n"
            << "  socket   idle  +socket  +core  +context   DRAM idle  +active\n";
  for (int s = 0; s < t.num_sockets(); ++s) {
    ws::PowerInfo p = t.power(s);
    char line[160];
    std::snprintf(line, sizeof line, "  %6d %6.1f %8.1f %6.1f %9.2f %11.1f %8.1f\n", s, p.idle_w, p.socket_w, p.core_w,
                  p.context_w, p.dram_idle_w, p.dram_active_w);
    std::cout << line;
  }
  return 0;
}

int cmd_omp(int argc, char** argv) {
  std::vector<std::string> opts = kMachineOpts;
  opts.insert(opts.end(), {"--places", "--bind"});
  Args a = parse(argc, argv, opts);
  if (a.positional.size() > 1) throw UsageError("'omp' takes at most one argument, N");
  ws::Topology t = machine(a);
  const bool here = !a.synthetic && !a.xml && !a.load;
  int n = a.positional.empty() ? (here ? ws::default_worker_count() : t.num_contexts()) : to_int("N", a.positional[0], 1);
  auto env = [](const char* name) -> std::optional<std::string> {
    if (const char* v = std::getenv(name)) return std::string(v);
    return std::nullopt;
  };
  std::optional<std::string> places = a.places ? a.places : env("OMP_PLACES");
  std::optional<std::string> bind = a.bind ? a.bind : env("OMP_PROC_BIND");
  auto view = [](const std::optional<std::string>& s) {
    return s ? std::optional<std::string_view>(*s) : std::nullopt;
  };
  ws::OmpBinding b = ws::omp_binding(t, view(places), view(bind), n);
  if (a.json) {
    std::cout << "{\"active\":" << (b.active ? "true" : "false") << ",\"pinned\":" << (b.pinned ? "true" : "false")
              << ",\"bind\":\"" << ws::to_string(b.bind) << "\",\"places\":[";
    for (size_t i = 0; i < b.places.size(); ++i) std::cout << (i ? "," : "") << "[" << join(b.places[i]) << "]";
    std::cout << "],\"dropped_cpus\":[" << join(b.dropped_cpus) << "],\"thread_place\":[" << join(b.thread_place)
              << "],\"os_cpus\":[" << join(b.os_cpus) << "]}\n";
  } else {
    std::cout << b.describe();
  }
  return 0;
}

int cmd_pin(int argc, char** argv) {
  Args a = parse(argc, argv, {"--sockets"});
  if (a.positional.empty() || a.positional.size() % 2 != 0) throw UsageError("'pin' needs POLICY N pairs");
  struct Phase {
    ws::Policy policy;
    int n;
  };
  std::vector<Phase> phases;
  int threads = 0;
  for (size_t i = 0; i < a.positional.size(); i += 2) {
    phases.push_back({ws::parse_policy(a.positional[i]), to_int("N", a.positional[i + 1], 1)});
    threads = std::max(threads, phases.back().n);
  }
  ws::PlacementPool pool(ws::Topology::discover());
  std::vector<std::string> lines(static_cast<size_t>(threads));
  std::mutex m;
  std::barrier sync(threads + 1);
  std::vector<std::thread> ts;
  for (int i = 0; i < threads; ++i)
    ts.emplace_back([&, i] {
      for (size_t ph = 0; ph < phases.size(); ++ph) {
        sync.arrive_and_wait();  // the main thread selected this phase's placement
        std::string line;
        try {
          std::optional<ws::PinInfo> p = pool.pin();
          if (!p) {
            line = "thread " + std::to_string(i) + ": no free context (unpinned)";
          } else {
            std::ostringstream o;
            o << "thread " << i << ": slot " << p->slot << " ctx " << p->context << " cpu " << p->os_cpu << " core "
              << p->core << " (#" << p->core_in_socket << " in socket, SMT #" << p->context_in_core << ") socket "
              << p->socket << " node " << p->node << (p->pinned ? "" : " [unpinned: NONE]") << " -> running on cpu "
              << sched_getcpu();
            line = o.str();
          }
        } catch (const std::exception& e) {
          line = "thread " + std::to_string(i) + ": " + e.what();
        }
        {
          std::lock_guard lock(m);
          lines[static_cast<size_t>(i)] = line;
        }
        sync.arrive_and_wait();  // everyone pinned; main prints
      }
      pool.unpin();
    });
  int rc = 0;
  for (const auto& ph : phases) {
    try {
      pool.select(ph.policy, ph.n, a.sockets);
    } catch (const std::exception& e) {
      std::cerr << "weft-topo: " << e.what() << "\n";
      rc = 1;
      // keep the last good selection so the threads are not left waiting
      if (pool.num_placements() == 0) pool.select(ws::Policy::Sequential, 1);
    }
    sync.arrive_and_wait();
    sync.arrive_and_wait();
    std::cout << "## phase " << ws::to_string(ph.policy) << " " << ph.n << " (pool: " << pool.num_placements()
              << " placement(s))\n";
    for (const auto& l : lines) std::cout << l << "\n";
  }
  for (auto& t : ts) t.join();
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string cmd = argv[1];
  try {
    if (cmd == "show") return cmd_show(argc, argv);
    if (cmd == "infer") return cmd_infer(argc, argv);
    if (cmd == "latency") return cmd_latency(argc, argv);
    if (cmd == "place") return cmd_place(argc, argv);
    if (cmd == "power") return cmd_power(argc, argv);
    if (cmd == "omp") return cmd_omp(argc, argv);
    if (cmd == "pin") return cmd_pin(argc, argv);
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
      std::cout << kUsage;
      return 0;
    }
    throw UsageError("unknown subcommand \"" + cmd + "\"");
  } catch (const UsageError& e) {
    std::cerr << "weft-topo: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "weft-topo: " << e.what() << "\n";
    return 1;
  }
}
