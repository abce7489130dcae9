#pragma once
// Helpers shared by the graph tests: runtimes of 1 and 2 workers with a
// random placement policy, small hand-made graphs, generated graphs sized
// down under the sanitizers, and a scratch directory for files.

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "weft/graph.hpp"
#include "weft/sched/placement.hpp"
#include "weft/weft.hpp"

namespace weft::graph::test {

#if defined(WEFT_TSAN) || defined(WEFT_ASAN)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// The scales the generated-graph tests run (smaller under a sanitizer).
inline std::vector<int> test_scales() { return kSanitized ? std::vector<int>{8, 10, 12} : std::vector<int>{8, 10, 12, 14}; }
inline int large_scale() { return kSanitized ? 12 : 14; }

inline int allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

// A runtime of `workers` workers placed by a policy drawn at random from
// `rng` (workers pinned, where the process may use that many CPUs; else
// unpinned and unplaced). `placement` receives the policy's name.
inline Config placed_config(int workers, std::mt19937& rng, std::string& placement) {
  Config c;
  c.workers = workers;
  if (allowed_cpus() < workers) {
    c.pin_workers = false;
    placement = "none (fewer CPUs than workers)";
    return c;
  }
  // RR_SCALE needs measured memory bandwidth; every other policy places on any machine.
  std::vector<std::string> names;
  for (const sched::Policy p : sched::all_policies())
    if (p != sched::Policy::RrScale && p != sched::Policy::None) names.emplace_back(sched::to_string(p));
  placement = names[rng() % names.size()];
  c.placement = placement;
  return c;
}

// Tests run on runtimes of 1 and 2 workers.
class WorkersTest : public ::testing::TestWithParam<int> {
 protected:
  int workers() const { return GetParam(); }
  // Runs f on a ULT of a fresh runtime (random placement, seeded by the
  // test's name so a failure can be repeated).
  template <class F>
  auto on_runtime(F&& f) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string name = info->name();
    std::seed_seq seq(name.begin(), name.end());
    std::mt19937 rng(seq);
    std::string placement;
    Runtime rt(placed_config(workers(), rng, placement));
    SCOPED_TRACE("placement " + placement + ", " + std::to_string(workers()) + " workers");
    return rt.run(std::forward<F>(f));
  }
};

inline std::string workers_name(const ::testing::TestParamInfo<int>& info) {
  return std::to_string(info.param) + (info.param == 1 ? "worker" : "workers");
}

// ------------------------------------------------------------ hand-made graphs

template <class E>
BasicEdgeList<E> make_edge_list(const std::vector<E>& edges, NodeId num_nodes, bool symmetric) {
  BasicEdgeList<E> el;
  el.edges = Array<E>(edges.size());
  std::copy(edges.begin(), edges.end(), el.edges.begin());
  el.num_nodes = num_nodes;
  el.symmetric = symmetric;
  return el;
}
inline EdgeList edge_list(const std::vector<Edge>& edges, NodeId num_nodes = -1, bool symmetric = false) {
  return make_edge_list(edges, num_nodes, symmetric);
}
inline WEdgeList wedge_list(const std::vector<WEdge>& edges, NodeId num_nodes = -1, bool symmetric = false) {
  return make_edge_list(edges, num_nodes, symmetric);
}
inline CSRGraph undirected(std::vector<Edge> edges, NodeId num_nodes = -1) {
  return build_graph(edge_list(std::move(edges), num_nodes), {.symmetrize = true});
}
inline CSRGraph directed(std::vector<Edge> edges, NodeId num_nodes = -1) {
  return build_graph(edge_list(std::move(edges), num_nodes));
}
inline CSRGraph path(NodeId n) {
  std::vector<Edge> e;
  for (NodeId i = 0; i + 1 < n; ++i) e.push_back({i, i + 1});
  return undirected(e, n);
}
inline CSRGraph star(NodeId leaves) {
  std::vector<Edge> e;
  for (NodeId i = 1; i <= leaves; ++i) e.push_back({0, i});
  return undirected(e);
}
inline CSRGraph clique(NodeId k) {
  std::vector<Edge> e;
  for (NodeId i = 0; i < k; ++i)
    for (NodeId j = i + 1; j < k; ++j) e.push_back({i, j});
  return undirected(e);
}

// ------------------------------------------------------------ generated graphs

struct GeneratedCase {
  GraphKind kind;
  int scale;
  std::string name() const { return std::string(kind == GraphKind::kronecker ? "kron" : "uniform") + "-" + std::to_string(scale); }
};
inline std::vector<GeneratedCase> generated_cases() {
  std::vector<GeneratedCase> c;
  for (int s : test_scales())
    for (GraphKind k : {GraphKind::kronecker, GraphKind::uniform}) c.push_back({k, s});
  return c;
}
inline CSRGraph generated(const GeneratedCase& c, int degree = 16) {
  return build_graph(generate_edges({.kind = c.kind, .scale = c.scale, .degree = degree}));
}
inline WeightedCSRGraph generated_weighted(const GeneratedCase& c, int degree = 16) {
  return build_graph(generate_weighted_edges({.kind = c.kind, .scale = c.scale, .degree = degree}));
}
// A directed graph: the uniform generator's edges taken one way only.
inline CSRGraph generated_directed(int scale, int degree = 8) {
  EdgeList el = generate_edges({.kind = GraphKind::uniform, .scale = scale, .degree = degree});
  el.symmetric = false;
  return build_graph(std::move(el));
}

// ------------------------------------------------------------ files

// A fresh directory for the test's files, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "weft-graph-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& content) const {
    const std::string p = path(name);
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

 private:
  std::filesystem::path dir_;
};

template <class T>
std::vector<T> to_vector(std::span<const T> s) {
  return {s.begin(), s.end()};
}

}  // namespace weft::graph::test
