// Building CSR graphs (builder.hpp), the generators (generator.hpp), the
// relabelling by degree and CSRGraph's own checks: known results on
// hand-made edge lists (self-loops, duplicates, isolated and single
// vertices, directed and symmetrized), determinism on 1 and 2 workers,
// generator determinism for a seed, and the errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "graph_test_support.hpp"

namespace weft::graph::test {
namespace {

class GraphBuild : public WorkersTest {};
INSTANTIATE_TEST_SUITE_P(Workers, GraphBuild, ::testing::Values(1, 2), workers_name);

template <class Graph>
std::vector<std::vector<typename Graph::neighbor_type>> out_lists(const Graph& g) {
  std::vector<std::vector<typename Graph::neighbor_type>> lists;
  for (NodeId u = 0; u < g.num_nodes(); ++u) lists.emplace_back(g.out_neigh(u).begin(), g.out_neigh(u).end());
  return lists;
}
std::vector<std::vector<NodeId>> in_lists(const CSRGraph& g) {
  std::vector<std::vector<NodeId>> lists;
  for (NodeId u = 0; u < g.num_nodes(); ++u) lists.emplace_back(g.in_neigh(u).begin(), g.in_neigh(u).end());
  return lists;
}
using Lists = std::vector<std::vector<NodeId>>;

TEST_P(GraphBuild, DropsSelfLoopsAndDuplicatesAndSortsNeighbourhoods) {
  on_runtime([] {
    const CSRGraph g = directed({{2, 0}, {0, 2}, {0, 1}, {0, 2}, {1, 1}, {2, 0}, {3, 0}}, 5);
    EXPECT_TRUE(g.directed());
    EXPECT_EQ(g.num_nodes(), 5);  // 4 is isolated, kept by the declared count
    EXPECT_EQ(g.num_edges(), 4);
    EXPECT_EQ(out_lists(g), (Lists{{1, 2}, {}, {0}, {0}, {}}));
    EXPECT_EQ(in_lists(g), (Lists{{2, 3}, {0}, {0}, {}, {}}));
    EXPECT_EQ(g.out_degree(0), 2);
    EXPECT_EQ(g.in_degree(0), 2);
    EXPECT_NO_THROW(g.validate("test"));
    // Symmetrized: each edge both ways, once.
    const CSRGraph u = undirected({{2, 0}, {0, 2}, {0, 1}, {1, 1}, {3, 0}});
    EXPECT_FALSE(u.directed());
    EXPECT_EQ(u.num_edges(), 3);
    EXPECT_EQ(u.num_edges_directed(), 6);
    EXPECT_EQ(out_lists(u), (Lists{{1, 2, 3}, {0}, {0}, {0}}));
    EXPECT_EQ(in_lists(u), out_lists(u));
    // A single vertex; an edge list marked symmetric is symmetrized.
    EXPECT_EQ(undirected({}, 1).num_nodes(), 1);
    EXPECT_FALSE(build_graph(edge_list({{0, 1}}, -1, true)).directed());
    // Afforest's offset view of a neighbourhood.
    EXPECT_EQ(u.out_neigh(0, 1).size(), 2u);
    EXPECT_EQ(u.out_neigh(0, 1)[0], 2);
    EXPECT_TRUE(u.out_neigh(0, 5).empty());
  });
}

TEST_P(GraphBuild, WeightedDuplicatesKeepTheLightestWeight) {
  on_runtime([] {
    const WeightedCSRGraph g = build_graph(wedge_list({{0, 1, 7}, {1, 0, 3}, {0, 1, 5}, {1, 2, 9}, {2, 2, 1}}), {.symmetrize = true});
    EXPECT_EQ(out_lists(g), (std::vector<std::vector<WNode>>{{{1, 3}}, {{0, 3}, {2, 9}}, {{1, 9}}}));
    EXPECT_EQ(g.min_weight(), 3);
    EXPECT_EQ(g.max_weight(), 9);
    EXPECT_NO_THROW(g.validate("test"));
  });
}

TEST_P(GraphBuild, GeneratedGraphsBuildTheSameOnAnyWorkerCount) {
  const auto build_here = [] {
    const CSRGraph g = generated({GraphKind::kronecker, 12});
    return std::make_pair(to_vector<EdgeOffset>(g.out_offsets()), to_vector<NodeId>(g.out_neighbors()));
  };
  Config one;
  one.workers = 1;
  Runtime rt1(one);
  const auto a = rt1.run(build_here);
  const auto b = on_runtime(build_here);
  EXPECT_EQ(a, b);
}

TEST_P(GraphBuild, GeneratedGraphsAreValid) {
  on_runtime([] {
    for (const GeneratedCase& c : generated_cases()) {
      SCOPED_TRACE(c.name());
      const CSRGraph g = generated(c);
      EXPECT_EQ(g.num_nodes(), 1 << c.scale);
      EXPECT_FALSE(g.directed());
      EXPECT_NO_THROW(g.validate(c.name()));
      // Duplicates and self-loops are gone, so fewer than the generated edges remain.
      EXPECT_LE(g.num_edges(), (EdgeOffset{1} << c.scale) * 16);
      EXPECT_GT(g.num_edges(), (EdgeOffset{1} << c.scale) * 16 / 2);
      const WeightedCSRGraph w = generated_weighted(c);
      EXPECT_NO_THROW(w.validate(c.name()));
      EXPECT_GE(w.min_weight(), 1);
      EXPECT_LE(w.max_weight(), 255);
    }
    const CSRGraph d = generated_directed(10);
    EXPECT_TRUE(d.directed());
    EXPECT_NO_THROW(d.validate("directed"));
  });
}

TEST(GraphBuildErrors, BadIdsAreNamed) {
  try {
    build_graph(edge_list({{0, 1}, {2, -3}}));
    ADD_FAILURE() << "a negative id was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("edge 1 (2 -> -3) has a negative vertex id"), std::string::npos) << e.what();
  }
  try {
    build_graph(edge_list({{0, 1}, {1, 4}}, 4));
    ADD_FAILURE() << "an id past the declared count was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("edge 1 (1 -> 4)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("declared count 4"), std::string::npos) << e.what();
  }
  // Id 2^31 - 1 would need 2^31 vertices.
  EXPECT_THROW(build_graph(edge_list({{0, static_cast<NodeId>(kMaxNodes)}})), std::invalid_argument);
}

TEST(GraphValidate, CatchesBrokenGraphs) {
  auto make = [](std::vector<EdgeOffset> off, std::vector<NodeId> nb) {
    Array<EdgeOffset> o(off.size());
    std::copy(off.begin(), off.end(), o.begin());
    Array<NodeId> n(nb.size());
    std::copy(nb.begin(), nb.end(), n.begin());
    return CSRGraph(static_cast<NodeId>(off.size() - 1), std::move(o), std::move(n));
  };
  auto problem = [](const CSRGraph& g) {
    try {
      g.validate("g");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("valid");
  };
  EXPECT_EQ(problem(make({0, 1, 2}, {1, 0})), "valid");
  EXPECT_EQ(problem(make({0, 1, 1}, {1})), "g: vertex 0: edge to 1 has no reverse entry");
  EXPECT_EQ(problem(make({0, 2, 3, 4}, {2, 1, 0, 0})), "g: vertex 0: out-neighbours not sorted and distinct (2 before 1)");
  EXPECT_EQ(problem(make({0, 1, 1}, {0})), "g: vertex 0: has a self-loop");
  EXPECT_EQ(problem(make({0, 1, 1}, {7})), "g: vertex 0: out-neighbour 7 is not a vertex (there are 2)");
  EXPECT_EQ(problem(make({0, 2, 1, 2}, {1, 2})), "g: vertex 1: out offsets 2, 1 are decreasing or outside the neighbour array");
  // Shape errors at construction.
  EXPECT_THROW(make({0, 1, 3}, {1, 0}), std::invalid_argument);  // ends past the array
  EXPECT_THROW(make({1, 1, 2}, {1, 0}), std::invalid_argument);  // does not start at 0
}

TEST_P(GraphBuild, RelabelByDegreeOrdersVerticesByDecreasingDegree) {
  on_runtime([] {
    Array<NodeId> new_id;
    const CSRGraph r = relabel_by_degree(undirected({{3, 1}, {3, 2}, {3, 0}, {2, 1}}), &new_id);
    // Degrees: 3 -> 3, 1 -> 2, 2 -> 2, 0 -> 1: new ids 3->0, 1->1, 2->2, 0->3.
    EXPECT_EQ(to_vector<NodeId>(new_id), (std::vector<NodeId>{3, 1, 2, 0}));
    EXPECT_EQ(out_lists(r), (Lists{{1, 2, 3}, {0, 2}, {0, 1}, {0}}));
    EXPECT_NO_THROW(r.validate("relabelled"));
    const CSRGraph k = relabel_by_degree(generated({GraphKind::kronecker, 12}));
    for (NodeId u = 1; u < k.num_nodes(); ++u) ASSERT_GE(k.out_degree(u - 1), k.out_degree(u));
    EXPECT_NO_THROW(k.validate("relabelled kron"));
    EXPECT_THROW(relabel_by_degree(directed({{0, 1}})), std::invalid_argument);
  });
}

// ------------------------------------------------------------------ generators

std::vector<Edge> edges_of(const EdgeList& el) { return {el.edges.begin(), el.edges.end()}; }

TEST_P(GraphBuild, GeneratorsAreDeterministicForASeed) {
  const GeneratorOptions kron{.kind = GraphKind::kronecker, .scale = 12, .degree = 8, .seed = 7};
  const GeneratorOptions unif{.kind = GraphKind::uniform, .scale = 12, .degree = 8, .seed = 7};
  Config one;
  one.workers = 1;
  Runtime rt1(one);
  const auto k1 = rt1.run([&] { return edges_of(generate_edges(kron)); });
  const auto u1 = rt1.run([&] { return edges_of(generate_edges(unif)); });
  on_runtime([&] {
    EXPECT_EQ(edges_of(generate_edges(kron)), k1);
    EXPECT_EQ(edges_of(generate_edges(unif)), u1);
    GeneratorOptions other = kron;
    other.seed = 8;
    EXPECT_NE(edges_of(generate_edges(other)), k1);
    // The weighted generator has the same endpoints.
    const WEdgeList w = generate_weighted_edges(kron);
    ASSERT_EQ(w.edges.size(), k1.size());
    for (std::size_t i = 0; i < k1.size(); ++i) ASSERT_TRUE(w.edges[i].u == k1[i].u && w.edges[i].v == k1[i].v) << i;
  });
}

TEST_P(GraphBuild, GeneratorsMakeTheirKindOfGraph) {
  on_runtime([] {
    const int scale = large_scale();
    for (GraphKind kind : {GraphKind::kronecker, GraphKind::uniform}) {
      const EdgeList el = generate_edges({.kind = kind, .scale = scale, .degree = 16});
      EXPECT_EQ(el.edges.size(), (std::size_t{1} << scale) * 16);
      EXPECT_EQ(el.num_nodes, 1 << scale);
      EXPECT_TRUE(el.symmetric);
      for (const Edge& e : el.edges) ASSERT_TRUE(e.u >= 0 && e.u < (1 << scale) && e.v >= 0 && e.v < (1 << scale));
    }
    // R-MAT's skew: a few vertices hold far more than the average degree;
    // a uniform graph's degrees stay near it (Poisson).
    const CSRGraph kron = generated({GraphKind::kronecker, scale});
    const CSRGraph unif = generated({GraphKind::uniform, scale});
    auto max_degree = [](const CSRGraph& g) {
      EdgeOffset m = 0;
      for (NodeId u = 0; u < g.num_nodes(); ++u) m = std::max(m, g.out_degree(u));
      return m;
    };
    const double avg = 32.0;
    EXPECT_GT(static_cast<double>(max_degree(kron)), 10 * avg);
    EXPECT_LT(static_cast<double>(max_degree(unif)), 3 * avg);
    // The ids are permuted (GAPBS's PermuteIDs): without it R-MAT puts most
    // edges on the low ids; with it the halves hold about as many.
    EdgeOffset low = 0, high = 0;
    for (NodeId u = 0; u < kron.num_nodes(); ++u) (u < kron.num_nodes() / 2 ? low : high) += kron.out_degree(u);
    EXPECT_LT(std::abs(static_cast<double>(low - high)) / static_cast<double>(low + high), 0.25);
  });
}

TEST(GraphGenerator, WeightsAreUniformIn1To255) {
  const WEdgeList w = generate_weighted_edges({.kind = GraphKind::uniform, .scale = 12, .degree = 16});
  std::map<Weight, int> seen;
  for (const WEdge& e : w.edges) ++seen[e.w];
  EXPECT_EQ(seen.begin()->first, 1);
  EXPECT_EQ(seen.rbegin()->first, 255);
  EXPECT_EQ(seen.size(), 255u);
  const double expected = static_cast<double>(w.edges.size()) / 255;
  for (const auto& [weight, count] : seen) ASSERT_NEAR(count, expected, expected * 0.3) << weight;
  // add_random_weights on a given list: same endpoints, same weights for the same seed.
  const WEdgeList a = add_random_weights(edge_list({{0, 1}, {1, 2}}), 5);
  const WEdgeList b = add_random_weights(edge_list({{0, 1}, {1, 2}}), 5);
  EXPECT_TRUE(a.edges == b.edges);
  EXPECT_EQ(a.edges[1].u, 1);
}

TEST(GraphGenerator, RejectsBadOptions) {
  EXPECT_THROW(generate_edges({.scale = 0}), std::invalid_argument);
  EXPECT_THROW(generate_edges({.scale = 31}), std::invalid_argument);
  EXPECT_THROW(generate_edges({.scale = 4, .degree = 0}), std::invalid_argument);
}

}  // namespace
}  // namespace weft::graph::test
