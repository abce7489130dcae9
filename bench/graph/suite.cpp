// `weft-bench graph`: the six GAP kernels on weft beside the same algorithms
// written with plain OpenMP (and oneTBB for PageRank and TC), on the same
// in-memory graph, in the same run (baselines.hpp). Each repetition is one
// trial; a row reports seconds per trial (median), GTEPS for BFS, and the
// peak memory the trial added. Every row's first run is checked by weft's
// serial verifier (TC: the first row's count, the others against it).
//
//   weft-bench graph                 # scale 20 (WEFT_BENCH_GRAPH_SCALE overrides), 1, 2, 4 ... workers
//   weft-bench graph --quick         # scale 16
//   weft-bench graph --filter bfs/kron
#include <omp.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "graph/baselines.hpp"
#include "harness.hpp"
#include "weft/graph.hpp"
#include "weft/weft.hpp"

namespace weft::bench::graph {
namespace {

int bench_scale(const Options& o) {
  if (const char* s = std::getenv("WEFT_BENCH_GRAPH_SCALE")) {
    const int v = std::atoi(s);
    if (v < 1 || v > 30) throw std::invalid_argument("WEFT_BENCH_GRAPH_SCALE='" + std::string(s) + "': expected 1..30");
    return v;
  }
  return o.quick ? 16 : 20;
}

// 1, 2, 4, ... up to the CPUs this process may use (and that count itself).
std::vector<int> worker_counts() {
  Runtime probe;
  const int all = probe.num_workers();
  std::vector<int> w;
  for (int k = 1; k < all; k *= 2) w.push_back(k);
  w.push_back(all);
  return w;
}

// ---------------------------------------------------------------- graphs

// The graphs of the cases, built once (with weft, on every CPU) when a case
// first needs them; one unweighted and one weighted graph kept at a time.
struct GraphKey {
  wg::GraphKind kind;
  int scale;
  bool operator==(const GraphKey&) const = default;
  std::string name() const { return std::string(kind == wg::GraphKind::kronecker ? "kron-" : "urand-") + std::to_string(scale); }
};

template <class Graph>
const Graph& cached_graph(const GraphKey& key) {
  static std::optional<GraphKey> held;
  static std::unique_ptr<Graph> graph;
  if (!held || !(*held == key)) {
    graph.reset();
    Runtime rt;
    graph = rt.run([&] {
      const wg::GeneratorOptions go{.kind = key.kind, .scale = key.scale};
      if constexpr (Graph::kWeighted)
        return std::make_unique<Graph>(wg::build_graph(wg::generate_weighted_edges(go)));
      else
        return std::make_unique<Graph>(wg::build_graph(wg::generate_edges(go)));
    });
    held = key;
  }
  return *graph;
}

// ---------------------------------------------------------------- one trial

// Times kernel() (one trial), with the peak memory it added.
template <class Kernel>
auto timed_trial(Measurement& m, Kernel&& kernel) {
  const PeakMemory memory;
  const double t0 = now_ns();
  auto result = kernel();
  const double t1 = now_ns();
  m.total_ns = t1 - t0;
  m.ops = 1e9;  // per_op = seconds per trial
  m.extra.push_back({"peak MiB", "MiB", memory.added_bytes() / (1 << 20), false});
  return result;
}

enum class Impl { weft, openmp, tbb };

// Runs f() where `impl` runs: on a ULT of a fresh weft runtime of `workers`,
// in an OpenMP team of `workers`, or in a oneTBB arena of `workers`.
template <class F>
Measurement in_context(Impl impl, int workers, F&& f) {
  if (impl == Impl::weft) {
    Config c;
    c.workers = workers;
    Runtime rt(c);
    return rt.spawn_on(0, [&] { return f(); }).join();
  }
  if (impl == Impl::openmp) {
    omp_set_num_threads(workers);
    return f();
  }
  tbb::task_arena arena(workers);
  Measurement m;
  arena.execute([&] { m = f(); });
  return m;
}

void check(const wg::Verification& v, const char* what) {
  if (!v) throw std::runtime_error(std::string(what) + " failed verification: " + v.problem);
}

const char* impl_name(Impl impl) { return impl == Impl::weft ? kReference : impl == Impl::openmp ? "openmp" : "tbb"; }

// One row's state across its runs: its sources (the same seeded sequence in
// every row) and whether its first run was verified.
template <class Graph>
struct Row {
  std::optional<wg::SourcePicker<Graph>> pick;
  bool verified = false;
  wg::NodeId next_source(const Graph& g) {
    if (!pick) pick.emplace(g);
    return pick->next();
  }
  // True on the first call only: the run to verify.
  bool first() { return !std::exchange(verified, true); }
};

// Adds one row per implementation; each run is trial(impl, g, row, m) on
// the case's graph (built outside any runtime), in impl's context.
template <class Graph, class Trial>
void add_rows(Case& c, const GraphKey& key, int workers, std::initializer_list<Impl> impls, Trial trial) {
  for (const Impl impl : impls) {
    auto row = std::make_shared<Row<Graph>>();
    c.add(impl_name(impl), [=] {
      const Graph& g = cached_graph<Graph>(key);
      return in_context(impl, workers, [&] {
        Measurement m;
        trial(impl, g, *row, m);
        return m;
      });
    });
  }
}

// ---------------------------------------------------------------- cases

constexpr wg::Weight kDelta = 2;
constexpr int kBcSources = 4;
const wg::PageRankOptions kPr{};
using G = wg::CSRGraph;
using WG = wg::WeightedCSRGraph;

std::string workers_label(int w) { return std::to_string(w) + (w == 1 ? "-worker" : "-workers"); }

void add_bfs(Case& c, const GraphKey& key, int workers) {
  add_rows<G>(c, key, workers, {Impl::weft, Impl::openmp}, [](Impl impl, const G& g, Row<G>& row, Measurement& m) {
    const wg::NodeId s = row.next_source(g);
    const wg::BfsResult r = timed_trial(m, [&] { return impl == Impl::weft ? wg::bfs(g, s) : omp_bfs(g, s); });
    m.extra.insert(m.extra.begin(),
                   {"GTEPS", "GTEPS", static_cast<double>(wg::bfs_edges_traversed(g, r.parent)) / m.total_ns, true});
    if (row.first()) check(wg::verify_bfs(g, s, r.parent), "bfs");
  });
}

void add_sssp(Case& c, const GraphKey& key, int workers) {
  add_rows<WG>(c, key, workers, {Impl::weft, Impl::openmp}, [](Impl impl, const WG& g, Row<WG>& row, Measurement& m) {
    const wg::NodeId s = row.next_source(g);
    const wg::SsspResult r =
        timed_trial(m, [&] { return impl == Impl::weft ? wg::sssp(g, s, {.delta = kDelta}) : omp_sssp(g, s, kDelta); });
    if (row.first()) check(wg::verify_sssp(g, s, r.distance), "sssp");
  });
}

void add_pr(Case& c, const GraphKey& key, int workers) {
  add_rows<G>(c, key, workers, {Impl::weft, Impl::openmp, Impl::tbb}, [](Impl impl, const G& g, Row<G>& row, Measurement& m) {
    const wg::PageRankResult r = timed_trial(m, [&] {
      return impl == Impl::weft ? wg::pagerank(g, kPr) : impl == Impl::openmp ? omp_pagerank(g, kPr) : tbb_pagerank(g, kPr);
    });
    m.extra.push_back({"iterations", "", static_cast<double>(r.iterations), false});
    if (row.first()) check(wg::verify_pagerank(g, r.scores, kPr), "pagerank");
  });
}

void add_cc(Case& c, const GraphKey& key, int workers, bool afforest) {
  add_rows<G>(c, key, workers, {Impl::weft, Impl::openmp}, [afforest](Impl impl, const G& g, Row<G>& row, Measurement& m) {
    const wg::CcResult r = timed_trial(m, [&] {
      if (impl == Impl::weft) return afforest ? wg::connected_components(g) : wg::connected_components_sv(g);
      return afforest ? omp_afforest(g) : omp_shiloach_vishkin(g);
    });
    if (row.first()) check(wg::verify_cc(g, r.component), afforest ? "cc" : "cc_sv");
  });
}

void add_bc(Case& c, const GraphKey& key, int workers) {
  add_rows<G>(c, key, workers, {Impl::weft, Impl::openmp}, [](Impl impl, const G& g, Row<G>& row, Measurement& m) {
    std::vector<wg::NodeId> sources;
    for (int i = 0; i < kBcSources; ++i) sources.push_back(row.next_source(g));
    const wg::BcResult r =
        timed_trial(m, [&] { return impl == Impl::weft ? wg::betweenness_centrality(g, sources) : omp_bc(g, sources); });
    if (row.first()) check(wg::verify_bc(g, sources, r.scores), "bc");
  });
}

void add_tc(Case& c, const GraphKey& key, int workers) {
  // The serial count is slow at scale 20: the first row's count is
  // verified, every other row's compared with it.
  auto answer = std::make_shared<std::optional<std::uint64_t>>();
  add_rows<G>(c, key, workers, {Impl::weft, Impl::openmp, Impl::tbb}, [answer](Impl impl, const G& g, Row<G>& row, Measurement& m) {
    const wg::TcResult r = timed_trial(m, [&] {
      return impl == Impl::weft ? wg::triangle_count(g) : impl == Impl::openmp ? omp_tc(g) : tbb_tc(g);
    });
    if (!row.first()) return;
    if (!*answer) {
      check(wg::verify_tc(g, r.triangles), "tc");
      *answer = r.triangles;
    } else if (**answer != r.triangles) {
      throw std::runtime_error("tc counted " + std::to_string(r.triangles) + " triangles, the verified count is " +
                               std::to_string(**answer));
    }
  });
}

std::string graph_what(const GraphKey& key, bool weighted) {
  return key.name() + (weighted ? " weighted [1,255]" : "") + " (GAPBS -" +
         (key.kind == wg::GraphKind::kronecker ? "g " : "u ") + std::to_string(key.scale) + " -k 16)";
}

std::vector<Case> graph_cases(const Options& options) {
  const int scale = bench_scale(options);
  std::vector<Case> cases;
  const std::vector<int> workers = worker_counts();
  // Per kernel: its name, what it runs, whether it needs weights, its rows.
  struct Kernel {
    const char* name;
    std::string what;
    bool weighted;
    void (*add)(Case&, const GraphKey&, int);
  };
  const Kernel kernels[] = {
      {"bfs", "direction-optimizing BFS", false, add_bfs},
      {"sssp", "delta-stepping, delta " + std::to_string(kDelta), true, add_sssp},
      {"pr", "pull PageRank to L1 change < 1e-4 (at most 20 iterations)", false, add_pr},
      {"cc", "Afforest", false, [](Case& c, const GraphKey& k, int w) { add_cc(c, k, w, true); }},
      {"cc_sv", "Shiloach-Vishkin", false, [](Case& c, const GraphKey& k, int w) { add_cc(c, k, w, false); }},
      {"bc", "Brandes BC from " + std::to_string(kBcSources) + " sources", false, add_bc},
      {"tc", "ordered triangle count (degree relabelling when it pays)", false, add_tc},
  };
  for (const wg::GraphKind kind : {wg::GraphKind::kronecker, wg::GraphKind::uniform}) {
    const GraphKey key{kind, scale};
    for (const int w : workers) {
      const std::string at = "/" + key.name() + "/" + workers_label(w);
      const std::string on = ", " + workers_label(w) + ", weft placement: default (first allowed CPUs), libgomp: unbound";
      for (const Kernel& k : kernels) {
        cases.emplace_back("graph/" + std::string(k.name) + at, k.what + ", " + graph_what(key, k.weighted) + on, "s/trial");
        k.add(cases.back(), key, w);
      }
    }
  }
  return cases;
}

// weft / OpenMP per case, with the target (<= 1.0).
std::vector<SummaryTable> graph_summary(const std::vector<RowResult>& rows, const Options&) {
  SummaryTable t;
  t.name = "graph/summary";
  t.what = "milliseconds per trial (medians): weft beside its OpenMP baseline; target weft/openmp <= 1.00";
  t.columns = {"case", "weft ms", "openmp ms", "weft/openmp", "target"};
  std::map<std::string, std::pair<double, double>> by_case;
  std::vector<std::string> order;
  for (const RowResult& r : rows) {
    if (!r.ok) continue;
    if (!by_case.count(r.case_name)) {
      order.push_back(r.case_name);
      by_case[r.case_name] = {NAN, NAN};
    }
    if (r.impl == kReference) by_case[r.case_name].first = r.per_op;
    if (r.impl == "openmp") by_case[r.case_name].second = r.per_op;
  }
  for (const std::string& name : order) {
    const auto [w, o] = by_case[name];
    const double ratio = w / o;
    t.rows.push_back({{name, NAN}, {"", w * 1e3}, {"", o * 1e3}, {"", ratio},
                      {std::isfinite(ratio) ? (ratio <= 1.0 ? "met" : "missed") : "—", NAN}});
  }
  return {t};
}

}  // namespace
}  // namespace weft::bench::graph

WEFT_BENCH_SUITE_WITH_SUMMARY("graph",
                              "the GAP kernels (BFS, SSSP, PR, CC, BC, TC) beside OpenMP (and oneTBB) versions of the same "
                              "algorithms on the same graph",
                              weft::bench::graph::graph_cases, weft::bench::graph::graph_summary);
