// weft-graph: the GAP benchmark kernels on weft, with GAPBS's command line.
//
//   weft-graph bfs -g 20 -n 8 -v               # Kronecker 2^20, 8 trials, verified
//   weft-graph sssp -u 18 -d 2 --workers 2     # uniform random, delta 2
//   weft-graph pr -f web.mtx -i 50 -t 1e-6 --json
//   weft-graph convert -g 22 -b kron22.sg      # write weft's binary CSR
//
// `weft-graph -h` lists the options; docs/graph.md describes them.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "weft/graph.hpp"
#include "weft/weft.hpp"

namespace wg = weft::graph;

namespace {

constexpr const char* kUsage = R"(usage: weft-graph KERNEL [options]

kernels (the GAP benchmark's, as GAPBS names its programs):
  bfs      direction-optimizing breadth-first search      (Beamer et al., SC'12)
  sssp     single-source shortest paths, delta-stepping    (Meyer & Sanders 2003)
  pr       PageRank, pull direction                        (GAP spec)
  cc       connected components, Afforest                  (Sutton et al., IPDPS'18)
  cc_sv    connected components, Shiloach-Vishkin          (Shiloach & Vishkin 1982)
  bc       betweenness centrality, Brandes, sampled sources (Brandes 2001)
  tc       triangle counting, ordered, degree relabelling  (GAP spec)
  convert  write the graph to a file (-b FILE.sg|.wsg, -e FILE.el|.wel)

graph (one of -f, -g, -u):
  -f FILE     load a graph: .el .wel .mtx .gr (text), .sg .wsg (weft's binary CSR)
  -g SCALE    generate a Kronecker graph of 2^SCALE vertices (Graph500 R-MAT parameters)
  -u SCALE    generate a uniform random graph of 2^SCALE vertices
  -k DEGREE   average degree of a generated graph                           [16]
  -s          symmetrize the input edge list (generated graphs always are)  [false]
  --seed S    generator seed                                                [27491095]

benchmark:
  -n N        trials                                                        [16]
  -r NODE     start vertex (bfs, sssp, bc)                                  [random]
  -v          verify each trial's result with the serial verifier           [false]
  -a          print the last trial's analysis (tree size, top scores, ...)  [false]
  -d DELTA    sssp: bucket width                                            [1]
  -i N        pr: most iterations [20]; bc: sources per trial [1]
  -t TOL      pr: stop when the L1 change is below TOL                      [1e-4]
  -b FILE     convert: write weft's binary CSR (.sg, or .wsg with -w)
  -e FILE     convert: write a text edge list (.el, or .wel with -w)
  -w          convert: the output is weighted (weights in [1,255] if the input has none)

weft:
  --workers N       workers (kernel threads, one per core)     [one per allowed CPU]
  --placement P     where the workers run, an MCTOP-PLACE policy, e.g. RR_CORE, CON_CORE_HWC
                    (`weft-topo help` lists them)               [the first allowed CPUs]
  --json            print one JSON object with every number instead of the text report
  -h, --help        this help

Exit status: 0 ok, 1 a verification failed or the run failed, 2 bad command line.
)";

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

enum class Kernel { bfs, sssp, pr, cc, cc_sv, bc, tc, convert };

const std::map<std::string, Kernel, std::less<>> kKernels = {
    {"bfs", Kernel::bfs}, {"sssp", Kernel::sssp}, {"pr", Kernel::pr}, {"cc", Kernel::cc},
    {"cc_sv", Kernel::cc_sv}, {"bc", Kernel::bc}, {"tc", Kernel::tc}, {"convert", Kernel::convert}};

struct Args {
  Kernel kernel = Kernel::bfs;
  std::string kernel_name;
  std::string file;
  int scale = -1;
  bool uniform = false;
  int degree = 16;
  bool symmetrize = false;
  std::uint64_t seed = wg::kDefaultSeed;
  int trials = 16;
  std::int64_t source = -1;
  bool verify = false;
  bool analysis = false;
  wg::Weight delta = 1;
  std::optional<int> iterations;
  double tolerance = 1e-4;
  std::string out_sg, out_el;
  bool out_weighted = false;
  int workers = 0;
  std::string placement;
  bool json = false;
};

long long parse_integer(std::string_view opt, std::string_view value, long long lo, long long hi, const char* what) {
  long long v = 0;
  std::size_t used = 0;
  try {
    v = std::stoll(std::string(value), &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size())
    throw UsageError(std::string(opt) + " expects " + what + ", got '" + std::string(value) + "'");
  if (v < lo || v > hi)
    throw UsageError(std::string(opt) + " " + std::string(value) + " is out of range (" + std::to_string(lo) + ".." +
                     std::to_string(hi) + ")");
  return v;
}

double parse_real(std::string_view opt, std::string_view value) {
  double v = 0;
  std::size_t used = 0;
  try {
    v = std::stod(std::string(value), &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || !(v >= 0))
    throw UsageError(std::string(opt) + " expects a non-negative number, got '" + std::string(value) + "'");
  return v;
}

// Which kernels an option applies to (empty: all).
void applies(const std::string& opt, Kernel k, std::initializer_list<Kernel> to, const char* names) {
  if (std::find(to.begin(), to.end(), k) == to.end()) throw UsageError("option " + opt + " applies to " + names + " only");
}

Args parse_args(int argc, char** argv) {
  Args a;
  if (argc < 2) throw UsageError("no kernel given");
  const std::string first = argv[1];
  if (first == "-h" || first == "--help") {
    std::cout << kUsage;
    std::exit(0);
  }
  const auto k = kKernels.find(first);
  if (k == kKernels.end())
    throw UsageError("unknown kernel '" + first + "' (expected bfs, sssp, pr, cc, cc_sv, bc, tc or convert)");
  a.kernel = k->second;
  a.kernel_name = first;
  std::set<std::string> seen;
  for (int i = 2; i < argc; ++i) {
    std::string opt = argv[i];
    std::string value;
    bool has_value = false;
    if (opt.rfind("--", 0) == 0) {
      if (const auto eq = opt.find('='); eq != std::string::npos) {
        value = opt.substr(eq + 1);
        opt = opt.substr(0, eq);
        has_value = true;
      }
    } else if (opt.size() > 2 && opt[0] == '-') {  // -g20
      value = opt.substr(2);
      opt = opt.substr(0, 2);
      has_value = true;
    }
    static const std::set<std::string> kTakesValue = {"-f", "-g", "-u", "-k", "-n", "-r", "-d", "-i", "-t",
                                                      "-b", "-e", "--seed", "--workers", "--placement"};
    static const std::set<std::string> kFlags = {"-s", "-v", "-a", "-w", "--json", "-h", "--help"};
    if (kTakesValue.count(opt)) {
      if (!has_value) {
        if (i + 1 >= argc) throw UsageError("option " + opt + " needs a value");
        value = argv[++i];
      }
    } else if (kFlags.count(opt)) {
      if (has_value) throw UsageError("option " + opt + " takes no value");
    } else {
      throw UsageError("unknown option '" + std::string(argv[i]) + "'");
    }
    if (!seen.insert(opt).second && opt != "-h") throw UsageError("option " + opt + " given twice");
    const Kernel kn = a.kernel;
    if (opt == "-h" || opt == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (opt == "-f") {
      a.file = value;
    } else if (opt == "-g" || opt == "-u") {
      a.scale = static_cast<int>(parse_integer(opt, value, 1, 30, "a scale (2^scale vertices)"));
      a.uniform = opt == "-u";
      if (seen.count("-g") && seen.count("-u")) throw UsageError("-g and -u both given: choose one generator");
    } else if (opt == "-k") {
      a.degree = static_cast<int>(parse_integer(opt, value, 1, 1 << 20, "an average degree"));
    } else if (opt == "-s") {
      a.symmetrize = true;
    } else if (opt == "--seed") {
      a.seed = static_cast<std::uint64_t>(parse_integer(opt, value, 0, INT64_MAX, "a seed"));
    } else if (opt == "-n") {
      applies(opt, kn, {Kernel::bfs, Kernel::sssp, Kernel::pr, Kernel::cc, Kernel::cc_sv, Kernel::bc, Kernel::tc}, "the kernels");
      a.trials = static_cast<int>(parse_integer(opt, value, 1, 1 << 20, "a number of trials"));
    } else if (opt == "-r") {
      applies(opt, kn, {Kernel::bfs, Kernel::sssp, Kernel::bc}, "bfs, sssp and bc");
      a.source = parse_integer(opt, value, 0, wg::kMaxNodes - 1, "a vertex");
    } else if (opt == "-v") {
      applies(opt, kn, {Kernel::bfs, Kernel::sssp, Kernel::pr, Kernel::cc, Kernel::cc_sv, Kernel::bc, Kernel::tc}, "the kernels");
      a.verify = true;
    } else if (opt == "-a") {
      applies(opt, kn, {Kernel::bfs, Kernel::sssp, Kernel::pr, Kernel::cc, Kernel::cc_sv, Kernel::bc, Kernel::tc}, "the kernels");
      a.analysis = true;
    } else if (opt == "-d") {
      applies(opt, kn, {Kernel::sssp}, "sssp");
      a.delta = static_cast<wg::Weight>(parse_integer(opt, value, 1, INT32_MAX, "a bucket width"));
    } else if (opt == "-i") {
      applies(opt, kn, {Kernel::pr, Kernel::bc}, "pr and bc");
      a.iterations = static_cast<int>(parse_integer(opt, value, 1, 1 << 24, "a count"));
    } else if (opt == "-t") {
      applies(opt, kn, {Kernel::pr}, "pr");
      a.tolerance = parse_real(opt, value);
    } else if (opt == "-b" || opt == "-e") {
      applies(opt, kn, {Kernel::convert}, "convert");
      (opt == "-b" ? a.out_sg : a.out_el) = value;
    } else if (opt == "-w") {
      applies(opt, kn, {Kernel::convert}, "convert");
      a.out_weighted = true;
    } else if (opt == "--workers") {
      a.workers = static_cast<int>(parse_integer(opt, value, 1, 4096, "a worker count"));
    } else if (opt == "--placement") {
      a.placement = value;
    } else if (opt == "--json") {
      a.json = true;
    }
  }
  if (a.file.empty() == (a.scale < 0))
    throw UsageError(a.file.empty() ? "no graph input: use -f FILE, -g SCALE or -u SCALE"
                                    : "-f and a generator (-g/-u) both given: choose one input");
  if (!a.file.empty() && (seen.count("-k") || seen.count("--seed")))
    throw UsageError("-k and --seed apply to generated graphs (-g, -u), not to -f");
  if (a.kernel == Kernel::convert && a.out_sg.empty() && a.out_el.empty())
    throw UsageError("convert needs an output: -b FILE.sg or -e FILE.el");
  return a;
}

// ---------------------------------------------------------------- output

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// GAPBS's report lines: "Label:" padded to 21 columns.
void print_time(const std::string& label, double seconds) { std::printf("%-21s%3.5f\n", (label + ":").c_str(), seconds); }
void print_label(const std::string& label, const std::string& value) {
  std::printf("%-21s%7s\n", (label + ":").c_str(), value.c_str());
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
      continue;
    }
    out += c;
  }
  return out + "\"";
}
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

// Peak resident set (VmHWM) in bytes, -1 if unknown.
double peak_rss_bytes() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) * 1024;
  return -1;
}

// Shows a step's progress on stderr while it is a terminal.
wg::ProgressFn terminal_progress() {
  if (!isatty(STDERR_FILENO)) return {};
  return [](std::string_view step, double fraction) {
    if (fraction >= 1.0)
      std::fprintf(stderr, "\r\033[K");
    else
      std::fprintf(stderr, "\r%.*s %3d%%", static_cast<int>(step.size()), step.data(), static_cast<int>(fraction * 100));
    std::fflush(stderr);
  };
}

struct Trial {
  double seconds = 0;
  std::vector<wg::NodeId> sources;
  std::optional<bool> verified;
  double verify_seconds = 0;
  std::string problem;
  double teps = NAN;  // bfs
};

struct Report {
  std::vector<std::pair<std::string, double>> times;  // "Generate Time", ...
  std::string graph_line;
  std::vector<std::pair<std::string, std::string>> graph_json;
  std::vector<Trial> trials;
  std::vector<std::string> analysis;
  std::vector<std::pair<std::string, std::string>> result_json;  // analysis numbers
};

// ---------------------------------------------------------------- graphs

template <class Graph>
void describe_graph(const Graph& g, const std::string& source, Report& r) {
  const double avg = g.num_nodes() == 0 ? 0 : static_cast<double>(g.num_edges()) / g.num_nodes();
  std::ostringstream line;
  line << "Graph has " << g.num_nodes() << " nodes and " << g.num_edges() << (g.directed() ? " directed" : " undirected")
       << " edges for degree: " << static_cast<long>(avg) << " (" << std::fixed;
  line.precision(1);
  line << static_cast<double>(g.memory_bytes()) / (1 << 20) << " MiB)";
  r.graph_line = line.str();
  r.graph_json = {{"source", json_string(source)},
                  {"nodes", std::to_string(g.num_nodes())},
                  {"edges", std::to_string(g.num_edges())},
                  {"directed", g.directed() ? "true" : "false"},
                  {"weighted", Graph::kWeighted ? "true" : "false"},
                  {"memory_bytes", std::to_string(g.memory_bytes())}};
}

template <class Graph>
Graph make_graph(const Args& a, Report& r, const wg::ProgressFn& progress) {
  constexpr bool kW = Graph::kWeighted;
  const auto t0 = std::chrono::steady_clock::now();
  if (!a.file.empty()) {
    wg::LoadOptions lo;
    lo.symmetrize = a.symmetrize;
    lo.read.require_nonnegative_weights = a.kernel == Kernel::sssp;
    lo.progress = progress;
    Graph g = [&] {
      if constexpr (kW)
        return wg::load_weighted_graph(a.file, lo);
      else
        return wg::load_graph(a.file, lo);
    }();
    r.times.push_back({"Read+Build Time", seconds_since(t0)});
    describe_graph(g, a.file, r);
    return g;
  }
  const wg::GeneratorOptions go{.kind = a.uniform ? wg::GraphKind::uniform : wg::GraphKind::kronecker,
                                .scale = a.scale,
                                .degree = a.degree,
                                .seed = a.seed,
                                .progress = progress};
  auto edges = [&] {
    if constexpr (kW)
      return wg::generate_weighted_edges(go);
    else
      return wg::generate_edges(go);
  }();
  r.times.push_back({"Generate Time", seconds_since(t0)});
  const auto t1 = std::chrono::steady_clock::now();
  Graph g = wg::build_graph(std::move(edges), {.symmetrize = a.symmetrize, .progress = progress});
  r.times.push_back({"Build Time", seconds_since(t1)});
  describe_graph(g, std::string(a.uniform ? "uniform-" : "kron-") + std::to_string(a.scale), r);
  return g;
}

// ---------------------------------------------------------------- kernels

// Runs `trials` trials of run() (returning the result), each timed; then,
// untimed, measure(result, trial) (BFS's TEPS), check(result) ->
// Verification when asked, and analyse() on the last when asked.
template <class Run, class Measure, class Check, class Analyse>
void benchmark(const Args& a, Report& r, Run&& run, Measure&& measure, Check&& check, Analyse&& analyse) {
  for (int t = 0; t < a.trials; ++t) {
    Trial trial;
    const auto t0 = std::chrono::steady_clock::now();
    auto result = run(trial);
    trial.seconds = seconds_since(t0);
    measure(result, trial);
    if (a.verify) {
      const auto t1 = std::chrono::steady_clock::now();
      const wg::Verification v = check(result, trial);
      trial.verify_seconds = seconds_since(t1);
      trial.verified = v.ok;
      trial.problem = v.problem;
    }
    if (a.analysis && t == a.trials - 1) analyse(result, trial);
    if (!a.json) {
      print_time("Trial Time", trial.seconds);
      if (std::isfinite(trial.teps)) std::printf("%-21s%3.5f\n", "Trial GTEPS:", trial.teps / 1e9);
      if (trial.verified) {
        print_label("Verification", *trial.verified ? "PASS" : "FAIL");
        if (!*trial.verified) std::printf("  %s\n", trial.problem.c_str());
        print_time("Verification Time", trial.verify_seconds);
      }
      std::fflush(stdout);
    }
    r.trials.push_back(std::move(trial));
  }
}

// The k largest (score, vertex) pairs.
template <class T>
std::vector<std::pair<T, wg::NodeId>> top(std::span<const T> scores, std::size_t k) {
  std::vector<std::pair<T, wg::NodeId>> all;
  for (std::size_t i = 0; i < scores.size(); ++i) all.push_back({scores[i], static_cast<wg::NodeId>(i)});
  k = std::min(k, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(),
                    [](const auto& x, const auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
  all.resize(k);
  return all;
}

// Most kernels have nothing to measure beyond the time.
constexpr auto kNothing = [](const auto&, Trial&) {};

void run_unweighted(const Args& a, Report& r, const wg::CSRGraph& g) {
  switch (a.kernel) {
    case Kernel::bfs: {
      wg::SourcePicker pick(g, a.source, a.seed);
      benchmark(a, r, [&](Trial& t) {
        t.sources = {pick.next()};
        return wg::bfs(g, t.sources[0]);
      }, [&](const wg::BfsResult& res, Trial& t) {
        // TEPS: the edges of the reached component (Graph500's count) per second.
        t.teps = static_cast<double>(wg::bfs_edges_traversed(g, res.parent)) / t.seconds;
      }, [&](const wg::BfsResult& res, Trial& t) { return wg::verify_bfs(g, t.sources[0], res.parent); },
      [&](const wg::BfsResult& res, Trial& t) {
        std::int64_t reached = 0;
        for (const wg::NodeId p : res.parent) reached += p >= 0;
        r.analysis.push_back("BFS Tree has " + std::to_string(reached) + " nodes and " +
                             std::to_string(wg::bfs_edges_traversed(g, res.parent)) + " edges (" +
                             std::to_string(res.top_down_steps) + " top-down, " + std::to_string(res.bottom_up_steps) +
                             " bottom-up steps) from source " + std::to_string(t.sources[0]));
        r.result_json = {{"reached", std::to_string(reached)}, {"top_down_steps", std::to_string(res.top_down_steps)},
                         {"bottom_up_steps", std::to_string(res.bottom_up_steps)}};
      });
      break;
    }
    case Kernel::pr: {
      const wg::PageRankOptions po{.max_iterations = a.iterations.value_or(20), .tolerance = a.tolerance};
      benchmark(a, r, [&](Trial&) { return wg::pagerank(g, po); }, kNothing,
                [&](const wg::PageRankResult& res, Trial&) { return wg::verify_pagerank(g, res.scores, po); },
                [&](const wg::PageRankResult& res, Trial&) {
                  r.analysis.push_back(std::to_string(res.iterations) + " iterations, last L1 change " +
                                       json_number(res.change));
                  for (const auto& [s, v] : top<float>(res.scores, 5))
                    r.analysis.push_back(std::to_string(v) + ":" + json_number(s));
                  r.result_json = {{"iterations", std::to_string(res.iterations)}, {"change", json_number(res.change)}};
                });
      break;
    }
    case Kernel::cc:
    case Kernel::cc_sv: {
      benchmark(a, r, [&](Trial&) {
        return a.kernel == Kernel::cc ? wg::connected_components(g) : wg::connected_components_sv(g);
      }, kNothing, [&](const wg::CcResult& res, Trial&) { return wg::verify_cc(g, res.component); },
      [&](const wg::CcResult& res, Trial&) {
        std::map<wg::NodeId, std::int64_t> size;
        for (const wg::NodeId c : res.component) ++size[c];
        std::vector<std::pair<std::int64_t, wg::NodeId>> by_size;
        for (const auto& [c, s] : size) by_size.push_back({s, c});
        std::sort(by_size.rbegin(), by_size.rend());
        r.analysis.push_back(std::to_string(std::min<std::size_t>(5, by_size.size())) + " biggest clusters");
        for (std::size_t i = 0; i < std::min<std::size_t>(5, by_size.size()); ++i)
          r.analysis.push_back(std::to_string(by_size[i].second) + ":" + std::to_string(by_size[i].first));
        r.analysis.push_back("There are " + std::to_string(size.size()) + " components");
        r.result_json = {{"components", std::to_string(size.size())}, {"iterations", std::to_string(res.iterations)}};
      });
      break;
    }
    case Kernel::bc: {
      wg::SourcePicker pick(g, a.source, a.seed);
      const int sources = a.iterations.value_or(1);
      benchmark(a, r, [&](Trial& t) {
        for (int i = 0; i < sources; ++i) t.sources.push_back(pick.next());
        return wg::betweenness_centrality(g, t.sources);
      }, kNothing, [&](const wg::BcResult& res, Trial& t) { return wg::verify_bc(g, t.sources, res.scores); },
      [&](const wg::BcResult& res, Trial&) {
        for (const auto& [s, v] : top<float>(res.scores, 5)) r.analysis.push_back(std::to_string(v) + ":" + json_number(s));
      });
      break;
    }
    case Kernel::tc: {
      if (g.directed()) throw std::invalid_argument("tc needs an undirected graph: the input is directed (add -s)");
      benchmark(a, r, [&](Trial&) { return wg::triangle_count(g); }, kNothing,
                [&](const wg::TcResult& res, Trial&) { return wg::verify_tc(g, res.triangles); },
                [&](const wg::TcResult& res, Trial&) {
                  r.analysis.push_back(std::to_string(res.triangles) + " triangles" +
                                       (res.relabelled ? " (relabelled by degree)" : ""));
                  r.result_json = {{"triangles", std::to_string(res.triangles)},
                                   {"relabelled", res.relabelled ? "true" : "false"}};
                });
      break;
    }
    default:
      break;
  }
}

void run_sssp(const Args& a, Report& r, const wg::WeightedCSRGraph& g) {
  wg::SourcePicker pick(g, a.source, a.seed);
  benchmark(a, r, [&](Trial& t) {
    t.sources = {pick.next()};
    return wg::sssp(g, t.sources[0], {.delta = a.delta});
  }, kNothing, [&](const wg::SsspResult& res, Trial& t) { return wg::verify_sssp(g, t.sources[0], res.distance); },
  [&](const wg::SsspResult& res, Trial& t) {
    std::int64_t reached = 0;
    for (const wg::Weight d : res.distance) reached += d != wg::kInfiniteDistance;
    r.analysis.push_back("SSSP Tree reaches " + std::to_string(reached) + " nodes from source " +
                         std::to_string(t.sources[0]) + " (" + std::to_string(res.buckets) + " buckets, " +
                         std::to_string(res.phases) + " phases)");
    r.result_json = {{"reached", std::to_string(reached)}, {"buckets", std::to_string(res.buckets)},
                     {"phases", std::to_string(res.phases)}};
  });
}

template <class Graph>
void convert(const Args& a, const Graph& g, Report& r) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!a.out_sg.empty()) wg::write_serialized(g, a.out_sg);
  if (!a.out_el.empty()) wg::write_edge_list(g, a.out_el);
  r.times.push_back({"Write Time", seconds_since(t0)});
}

// ---------------------------------------------------------------- main

int session(const Args& a) {
  weft::Config config;
  if (a.workers > 0) config.workers = a.workers;
  config.placement = a.placement;
  weft::Runtime rt(config);
  const std::vector<int> cpus = rt.worker_cpus();
  const std::string placement = rt.config().placement.empty() ? "default" : rt.config().placement;
  if (!a.json) {
    std::printf("weft-graph %s: %d workers, placement %s, CPUs", a.kernel_name.c_str(), rt.num_workers(), placement.c_str());
    for (const int c : cpus) std::printf(" %d", c);
    std::printf("\n");
  }
  Report r;
  const wg::ProgressFn progress = terminal_progress();
  const bool weighted = a.kernel == Kernel::sssp || (a.kernel == Kernel::convert && a.out_weighted);
  rt.run([&] {
    if (weighted) {
      const wg::WeightedCSRGraph g = make_graph<wg::WeightedCSRGraph>(a, r, progress);
      if (!a.json) {
        for (const auto& [label, s] : r.times) print_time(label, s);
        std::printf("%s\n", r.graph_line.c_str());
      }
      if (a.kernel == Kernel::convert)
        convert(a, g, r);
      else
        run_sssp(a, r, g);
    } else {
      const wg::CSRGraph g = make_graph<wg::CSRGraph>(a, r, progress);
      if (!a.json) {
        for (const auto& [label, s] : r.times) print_time(label, s);
        std::printf("%s\n", r.graph_line.c_str());
      }
      if (a.kernel == Kernel::convert) {
        convert(a, g, r);
      } else {
        run_unweighted(a, r, g);
      }
    }
  });
  std::vector<double> times;
  bool all_ok = true;
  for (const Trial& t : r.trials) {
    times.push_back(t.seconds);
    if (t.verified && !*t.verified) all_ok = false;
  }
  double average = 0, median = 0;
  if (!times.empty()) {
    for (const double t : times) average += t;
    average /= static_cast<double>(times.size());
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
  const double peak = peak_rss_bytes();
  if (!a.json) {
    if (a.kernel == Kernel::convert) {
      for (const auto& [label, s] : r.times)
        if (label == "Write Time") print_time(label, s);
    }
    for (const std::string& line : r.analysis) std::printf("%s\n", line.c_str());
    if (!times.empty()) {
      print_time("Average Time", average);
      print_time("Median Time", median);
    }
    if (a.kernel == Kernel::bfs && !times.empty()) {
      double edges = 0;
      for (const Trial& t : r.trials) edges += t.teps * t.seconds;
      std::printf("%-21s%3.5f\n", "Average GTEPS:", edges / (average * static_cast<double>(times.size())) / 1e9);
    }
    if (peak > 0) std::printf("%-21s%.1f MiB\n", "Peak Memory:", peak / (1 << 20));
    return all_ok ? 0 : 1;
  }
  std::string out = "{\"kernel\": " + json_string(a.kernel_name) + ", \"workers\": " + std::to_string(rt.num_workers()) +
                    ", \"placement\": " + json_string(placement) + ", \"graph\": {";
  for (std::size_t i = 0; i < r.graph_json.size(); ++i)
    out += (i ? ", " : "") + json_string(r.graph_json[i].first) + ": " + r.graph_json[i].second;
  out += "}";
  for (const auto& [label, s] : r.times) {
    std::string key = label;
    for (char& c : key) c = c == ' ' || c == '+' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out += ", " + json_string(key.substr(0, key.size() - 5) + "_s") + ": " + json_number(s);
  }
  out += ", \"trials\": [";
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    const Trial& t = r.trials[i];
    out += std::string(i ? ", " : "") + "{\"time_s\": " + json_number(t.seconds);
    if (!t.sources.empty()) {
      out += ", \"sources\": [";
      for (std::size_t k = 0; k < t.sources.size(); ++k) out += (k ? ", " : "") + std::to_string(t.sources[k]);
      out += "]";
    }
    if (t.verified) {
      out += std::string(", \"verified\": ") + (*t.verified ? "true" : "false") +
             ", \"verify_time_s\": " + json_number(t.verify_seconds);
      if (!*t.verified) out += ", \"problem\": " + json_string(t.problem);
    }
    if (std::isfinite(t.teps)) out += ", \"gteps\": " + json_number(t.teps / 1e9);
    out += "}";
  }
  out += "]";
  if (!times.empty()) out += ", \"average_time_s\": " + json_number(average) + ", \"median_time_s\": " + json_number(median);
  for (const auto& [k, v] : r.result_json) out += ", " + json_string(k) + ": " + v;
  out += ", \"peak_memory_bytes\": " + json_number(peak) + "}";
  std::printf("%s\n", out.c_str());
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  try {
    args = parse_args(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "weft-graph: %s\n(weft-graph -h for help)\n", e.what());
    return 2;
  }
  try {
    return session(args);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "weft-graph: %s\n", e.what());
    return 1;
  }
}
