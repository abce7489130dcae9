// weft-topo: show a machine's topology, infer it with MCTOP-ALG, and try
// MCTOP-PLACE policies on it. Run `weft-topo help` for usage.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "weft/sched/latency_probe.hpp"
#include "weft/sched/numa_memory.hpp"
#include "weft/sched/placement.hpp"
#include "weft/sched/topology.hpp"
#include "weft/sched/topology_io.hpp"

namespace ws = weft::sched;

namespace {

const char* kUsage =
    "usage:\n"
    "  weft-topo show [MACHINE] [--json]           tree, levels and latency table\n"
    "  weft-topo infer [--save FILE] [--reps N] [--nodes N] [--mem] [--json]\n"
    "                                              measure latencies (MCTOP-ALG) on this machine;\n"
    "                                              --mem also measures per-node memory latency/bandwidth\n"
    "  weft-topo place POLICY N [--sockets K] [MACHINE] [--json]\n"
    "                                              place N threads under an MCTOP-PLACE policy\n"
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
  std::optional<std::string> synthetic, xml, load, save;
  bool json = false, mem = false;
  int reps = 2000, nodes = 0, sockets = 0;
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
    else if (s == "--reps") a.reps = to_int(s, value(), 1);
    else if (s == "--nodes") a.nodes = to_int(s, value(), 1);
    else if (s == "--sockets") a.sockets = to_int(s, value(), 1);
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

int cmd_infer(int argc, char** argv) {
  Args a = parse(argc, argv, {"--save", "--reps", "--nodes", "--mem", "--json"});
  if (!a.positional.empty()) throw UsageError("'infer' takes no argument \"" + a.positional[0] + "\"");
  ws::InferOptions o;
  o.probe.repetitions = a.reps;
  o.num_nodes = a.nodes;
  auto t0 = std::chrono::steady_clock::now();
  o.probe.progress = [&](int done, int total) {
    if (done == total || done % 16 == 0)
      std::fprintf(stderr, "\rweft-topo infer: %d/%d context pairs measured", done, total);
    if (done == total) std::fprintf(stderr, "\n");
  };
  std::fprintf(stderr, "weft-topo infer: measuring with %d repetitions per pair...\n", a.reps);
  ws::AlgResult r = ws::infer_machine(o);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "weft-topo infer: inferred in %.2f s (SMT %s, %zu latency clusters)\n", secs,
               r.smt ? "detected" : "not detected", r.clusters.size());
  ws::Topology t = r.topology;
  if (a.mem) {
    ws::MemoryProbeOptions mo;
    mo.progress = [](int node) { std::fprintf(stderr, "weft-topo infer: measuring memory of node %d\n", node); };
    t = ws::measure_memory(t, mo);
  }
  if (a.save) {
    ws::save_topology(t, *a.save);
    std::fprintf(stderr, "weft-topo infer: saved to %s\n", a.save->c_str());
  }
  if (a.json) {
    std::cout << t.to_json() << "\n";
  } else {
    std::cout << "latency clusters (min / median / max cycles):\n";
    for (const auto& c : r.clusters) std::cout << "  " << c.min << " / " << c.median << " / " << c.max << "  (" << c.count << " pairs)\n";
    std::cout << t.to_string();
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
    if (cmd == "place") return cmd_place(argc, argv);
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
