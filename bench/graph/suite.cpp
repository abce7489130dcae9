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
#include <malloc.h>
#include <omp.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
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

double status_bytes(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  while (std::getline(status, line))
    if (line.rfind(prefix, 0) == 0) return std::stod(line.substr(prefix.size())) * 1024.0;
  return -1;
}

bool reset_peak_rss() {
  std::ofstream refs("/proc/self/clear_refs");
  refs << "5";
  refs.flush();
  return static_cast<bool>(refs);
}

// Times kernel() (one trial), with the peak memory it added.
template <class Kernel>
auto timed_trial(Measurement& m, Kernel&& kernel) {
  malloc_trim(0);
  const bool peak_ok = reset_peak_rss();
  const double rss_before = status_bytes("VmRSS");
  const double t0 = now_ns();
  auto result = kernel();
  const double t1 = now_ns();
  const double peak = status_bytes("VmHWM");
  m.total_ns = t1 - t0;
  m.ops = 1e9;  // per_op = seconds per trial
  const double extra = peak_ok && peak >= 0 && rss_before >= 0 ? std::max(0.0, peak - rss_before) : NAN;
  m.extra.push_back({"peak MiB", "MiB", extra / (1 << 20), false});
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

// Per row: whether its first run was verified.
using Once = std::shared_ptr<bool>;

// ---------------------------------------------------------------- cases

constexpr wg::Weight kDelta = 2;
constexpr int kBcSources = 4;
const wg::PageRankOptions kPr{};

std::string workers_label(int w) { return std::to_string(w) + (w == 1 ? "-worker" : "-workers"); }

void add_bfs(Case& c, const GraphKey& key, int workers) {
  for (Impl impl : {Impl::weft, Impl::openmp}) {
    auto pick = std::make_shared<std::optional<wg::SourcePicker<wg::CSRGraph>>>();
    Once verified = std::make_shared<bool>(false);
    c.add(impl == Impl::weft ? kReference : "openmp", [=] {
      const wg::CSRGraph& g = cached_graph<wg::CSRGraph>(key);  // built outside any runtime
      return in_context(impl, workers, [&] {
        if (!*pick) pick->emplace(g);
        const wg::NodeId source = (*pick)->next();
        Measurement m;
        const wg::BfsResult r = timed_trial(m, [&] { return impl == Impl::weft ? wg::bfs(g, source) : omp_bfs(g, source); });
        m.extra.insert(m.extra.begin(), {"GTEPS", "GTEPS",
                                         static_cast<double>(wg::bfs_edges_traversed(g, r.parent)) / m.total_ns, true});
        if (!std::exchange(*verified, true)) check(wg::verify_bfs(g, source, r.parent), "bfs");
        return m;
      });
    });
  }
}

void add_sssp(Case& c, const GraphKey& key, int workers) {
  for (Impl impl : {Impl::weft, Impl::openmp}) {
    auto pick = std::make_shared<std::optional<wg::SourcePicker<wg::WeightedCSRGraph>>>();
    Once verified = std::make_shared<bool>(false);
    c.add(impl == Impl::weft ? kReference : "openmp", [=] {
      const wg::WeightedCSRGraph& g = cached_graph<wg::WeightedCSRGraph>(key);  // built outside any runtime
      return in_context(impl, workers, [&] {
        if (!*pick) pick->emplace(g);
        const wg::NodeId source = (*pick)->next();
        Measurement m;
        const wg::SsspResult r = timed_trial(m, [&] {
          return impl == Impl::weft ? wg::sssp(g, source, {.delta = kDelta}) : omp_sssp(g, source, kDelta);
        });
        if (!std::exchange(*verified, true)) check(wg::verify_sssp(g, source, r.distance), "sssp");
        return m;
      });
    });
  }
}

void add_pr(Case& c, const GraphKey& key, int workers) {
  for (Impl impl : {Impl::weft, Impl::openmp, Impl::tbb}) {
    Once verified = std::make_shared<bool>(false);
    const char* name = impl == Impl::weft ? kReference : impl == Impl::openmp ? "openmp" : "tbb";
    c.add(name, [=] {
      const wg::CSRGraph& g = cached_graph<wg::CSRGraph>(key);  // built outside any runtime
      return in_context(impl, workers, [&] {
        Measurement m;
        const wg::PageRankResult r = timed_trial(m, [&] {
          return impl == Impl::weft ? wg::pagerank(g, kPr) : impl == Impl::openmp ? omp_pagerank(g, kPr) : tbb_pagerank(g, kPr);
        });
        m.extra.push_back({"iterations", "", static_cast<double>(r.iterations), false});
        if (!std::exchange(*verified, true)) check(wg::verify_pagerank(g, r.scores, kPr), "pagerank");
        return m;
      });
    });
  }
}

void add_cc(Case& c, const GraphKey& key, int workers, bool afforest) {
  for (Impl impl : {Impl::weft, Impl::openmp}) {
    Once verified = std::make_shared<bool>(false);
    c.add(impl == Impl::weft ? kReference : "openmp", [=] {
      const wg::CSRGraph& g = cached_graph<wg::CSRGraph>(key);  // built outside any runtime
      return in_context(impl, workers, [&] {
        Measurement m;
        const wg::CcResult r = timed_trial(m, [&] {
          if (impl == Impl::weft) return afforest ? wg::connected_components(g) : wg::connected_components_sv(g);
          return afforest ? omp_afforest(g) : omp_shiloach_vishkin(g);
        });
        if (!std::exchange(*verified, true)) check(wg::verify_cc(g, r.component), afforest ? "cc" : "cc_sv");
        return m;
      });
    });
  }
}

void add_bc(Case& c, const GraphKey& key, int workers) {
  for (Impl impl : {Impl::weft, Impl::openmp}) {
    auto pick = std::make_shared<std::optional<wg::SourcePicker<wg::CSRGraph>>>();
    Once verified = std::make_shared<bool>(false);
    c.add(impl == Impl::weft ? kReference : "openmp", [=] {
      const wg::CSRGraph& g = cached_graph<wg::CSRGraph>(key);  // built outside any runtime
      return in_context(impl, workers, [&] {
        if (!*pick) pick->emplace(g);
        std::vector<wg::NodeId> sources;
        for (int i = 0; i < kBcSources; ++i) sources.push_back((*pick)->next());
        Measurement m;
        const wg::BcResult r = timed_trial(m, [&] {
          return impl == Impl::weft ? wg::betweenness_centrality(g, sources) : omp_bc(g, sources);
        });
        if (!std::exchange(*verified, true)) check(wg::verify_bc(g, sources, r.scores), "bc");
        return m;
      });
    });
  }
}

void add_tc(Case& c, const GraphKey& key, int workers) {
  // The serial verifier is slow at scale 20: the first row's count is
  // verified, every other row is compared with it.
  auto answer = std::make_shared<std::optional<std::uint64_t>>();
  for (Impl impl : {Impl::weft, Impl::openmp, Impl::tbb}) {
    Once verified = std::make_shared<bool>(false);
    const char* name = impl == Impl::weft ? kReference : impl == Impl::openmp ? "openmp" : "tbb";
    c.add(name, [=] {
      const wg::CSRGraph& g = cached_graph<wg::CSRGraph>(key);  // built outside any runtime
      return in_context(impl, workers, [&] {
        Measurement m;
        const wg::TcResult r = timed_trial(m, [&] {
          return impl == Impl::weft ? wg::triangle_count(g) : impl == Impl::openmp ? omp_tc(g) : tbb_tc(g);
        });
        if (!std::exchange(*verified, true)) {
          if (!*answer) {
            check(wg::verify_tc(g, r.triangles), "tc");
            *answer = r.triangles;
          } else if (**answer != r.triangles) {
            throw std::runtime_error("tc counted " + std::to_string(r.triangles) + " triangles, the verified count is " +
                                     std::to_string(**answer));
          }
        }
        return m;
      });
    });
  }
}

std::string graph_what(const GraphKey& key, bool weighted) {
  return key.name() + (weighted ? " weighted [1,255]" : "") + " (GAPBS -" +
         (key.kind == wg::GraphKind::kronecker ? "g " : "u ") + std::to_string(key.scale) + " -k 16)";
}

std::vector<Case> graph_cases(const Options& options) {
  const int scale = bench_scale(options);
  std::vector<Case> cases;
  const std::vector<int> workers = worker_counts();
  for (const wg::GraphKind kind : {wg::GraphKind::kronecker, wg::GraphKind::uniform}) {
    const GraphKey key{kind, scale};
    for (const int w : workers) {
      const std::string at = "/" + key.name() + "/" + workers_label(w);
      const std::string on = ", " + workers_label(w) + ", weft placement: default (first allowed CPUs), libgomp: unbound";
      cases.emplace_back("graph/bfs" + at, "direction-optimizing BFS, " + graph_what(key, false) + on, "s/trial");
      add_bfs(cases.back(), key, w);
      cases.emplace_back("graph/sssp" + at, "delta-stepping, delta " + std::to_string(kDelta) + ", " + graph_what(key, true) + on,
                         "s/trial");
      add_sssp(cases.back(), key, w);
      cases.emplace_back("graph/pr" + at, "pull PageRank to L1 change < 1e-4 (at most 20 iterations), " + graph_what(key, false) + on,
                         "s/trial");
      add_pr(cases.back(), key, w);
      cases.emplace_back("graph/cc" + at, "Afforest, " + graph_what(key, false) + on, "s/trial");
      add_cc(cases.back(), key, w, true);
      cases.emplace_back("graph/cc_sv" + at, "Shiloach-Vishkin, " + graph_what(key, false) + on, "s/trial");
      add_cc(cases.back(), key, w, false);
      cases.emplace_back("graph/bc" + at, "Brandes BC from " + std::to_string(kBcSources) + " sources, " + graph_what(key, false) + on,
                         "s/trial");
      add_bc(cases.back(), key, w);
      cases.emplace_back("graph/tc" + at, "ordered triangle count (degree relabelling when it pays), " + graph_what(key, false) + on,
                         "s/trial");
      add_tc(cases.back(), key, w);
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
