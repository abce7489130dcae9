// The six GAP kernels (weft/apps/graph): known answers on hand-made graphs
// (paths, stars, cliques, disconnected pieces, self-loops, duplicate edges,
// isolated and single vertices), every kernel verified by its serial
// verifier on Kronecker and uniform graphs of scales 8-14 (8-10 under the
// sanitizers), on 1 and 2 workers with a random placement policy, and the
// properties the papers claim for each algorithm.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "graph_test_support.hpp"

namespace weft::graph::test {
namespace {

class GraphKernels : public WorkersTest {};
INSTANTIATE_TEST_SUITE_P(Workers, GraphKernels, ::testing::Values(1, 2), workers_name);

std::vector<NodeId> parents(const CSRGraph& g, NodeId source, BfsOptions o = {}) {
  BfsResult r = bfs(g, source, o);
  EXPECT_TRUE(verify_bfs(g, source, r.parent)) << verify_bfs(g, source, r.parent).problem;
  return {r.parent.begin(), r.parent.end()};
}

// ------------------------------------------------------------------ BFS

TEST_P(GraphKernels, BfsKnownAnswers) {
  on_runtime([] {
    EXPECT_EQ(parents(path(5), 0), (std::vector<NodeId>{0, 0, 1, 2, 3}));
    EXPECT_EQ(parents(path(5), 2), (std::vector<NodeId>{1, 2, 2, 2, 3}));
    EXPECT_EQ(parents(star(4), 3), (std::vector<NodeId>{3, 0, 0, 3, 0}));
    // Two pieces and an isolated vertex (6): the other piece is unreached.
    const CSRGraph pieces = undirected({{0, 1}, {1, 2}, {3, 4}, {4, 5}, {5, 3}}, 7);
    EXPECT_EQ(parents(pieces, 4), (std::vector<NodeId>{-1, -1, -1, 4, 4, 4, -1}));
    EXPECT_EQ(parents(pieces, 6), (std::vector<NodeId>{-1, -1, -1, -1, -1, -1, 6}));
    // Directed: edges only one way; self-loops and duplicates make no difference.
    const CSRGraph d = directed({{0, 1}, {1, 2}, {1, 2}, {2, 2}, {3, 0}});
    EXPECT_EQ(parents(d, 1), (std::vector<NodeId>{-1, 1, 1, -1}));
    EXPECT_EQ(parents(d, 3), (std::vector<NodeId>{3, 0, 1, 3}));
    // A single vertex.
    EXPECT_EQ(parents(undirected({}, 1), 0), (std::vector<NodeId>{0}));
    // Every direction mode on a clique.
    for (BfsDirection dir : {BfsDirection::optimizing, BfsDirection::top_down_only, BfsDirection::bottom_up_only})
      EXPECT_EQ(parents(clique(5), 2, {.direction = dir}), (std::vector<NodeId>{2, 2, 2, 2, 2}));
  });
}

TEST_P(GraphKernels, BfsVerifiedOnGeneratedGraphs) {
  on_runtime([] {
    for (const GeneratedCase& c : generated_cases()) {
      SCOPED_TRACE(c.name());
      const CSRGraph g = generated(c);
      SourcePicker pick(g);
      for (int trial = 0; trial < 3; ++trial) parents(g, pick.next());
    }
    const CSRGraph d = generated_directed(large_scale());
    SourcePicker pick(d);
    for (int trial = 0; trial < 3; ++trial) parents(d, pick.next());
  });
}

// Beamer et al.: on a low-diameter skewed graph the hybrid goes bottom-up for
// the big middle levels and comes back top-down for the tail; each direction
// alone gives a valid tree with the same depths.
TEST_P(GraphKernels, BfsSwitchesDirectionOnAKroneckerGraph) {
  on_runtime([] {
    const CSRGraph g = generated({GraphKind::kronecker, large_scale()});
    const NodeId source = SourcePicker(g).next();
    const BfsResult r = bfs(g, source);
    EXPECT_GT(r.bottom_up_steps, 0);
    EXPECT_GT(r.top_down_steps, 0);
    const BfsResult td = bfs(g, source, {.direction = BfsDirection::top_down_only});
    const BfsResult bu = bfs(g, source, {.direction = BfsDirection::bottom_up_only});
    EXPECT_EQ(td.bottom_up_steps, 0);
    EXPECT_EQ(bu.top_down_steps, 0);
    EXPECT_TRUE(verify_bfs(g, source, td.parent));
    EXPECT_TRUE(verify_bfs(g, source, bu.parent));
    // Same reached set (depths are checked by the verifier).
    for (NodeId u = 0; u < g.num_nodes(); ++u) ASSERT_EQ(r.parent[u] >= 0, td.parent[u] >= 0) << u;
    // A uniform graph of the same size, degree 2: long tail, mostly top-down.
    const CSRGraph sparse = generated({GraphKind::uniform, large_scale()}, 2);
    const BfsResult s = bfs(sparse, SourcePicker(sparse).next());
    EXPECT_GT(s.top_down_steps, s.bottom_up_steps);
  });
}

TEST_P(GraphKernels, BfsRejectsBadArguments) {
  on_runtime([] {
    const CSRGraph g = path(3);
    EXPECT_THROW(bfs(g, 3), std::invalid_argument);
    EXPECT_THROW(bfs(g, -1), std::invalid_argument);
    EXPECT_THROW(bfs(g, 0, {.alpha = 0}), std::invalid_argument);
    // The verifier catches a wrong tree.
    std::vector<NodeId> wrong = {0, 0, 0};  // 2's parent 0 is not adjacent
    EXPECT_FALSE(verify_bfs(g, 0, wrong));
    wrong = {0, 0, -1};  // 2 is reachable
    EXPECT_FALSE(verify_bfs(g, 0, wrong));
  });
}

TEST(GraphBfs, EdgesTraversedCountsTheReachedComponent) {
  const CSRGraph g = undirected({{0, 1}, {1, 2}, {3, 4}}, 6);
  const BfsResult r = bfs(g, 0);
  EXPECT_EQ(bfs_edges_traversed(g, r.parent), 2);
}

// ------------------------------------------------------------------ SSSP

std::vector<Weight> distances(const WeightedCSRGraph& g, NodeId source, Weight delta) {
  SsspResult r = sssp(g, source, {.delta = delta});
  EXPECT_TRUE(verify_sssp(g, source, r.distance)) << verify_sssp(g, source, r.distance).problem;
  return {r.distance.begin(), r.distance.end()};
}

TEST_P(GraphKernels, SsspKnownAnswers) {
  on_runtime([] {
    const Weight inf = kInfiniteDistance;
    // The direct edge 0 -> 2 (10) loses to 0 -> 1 -> 2 (3 + 3); 4 unreachable.
    const WeightedCSRGraph g = build_graph(wedge_list({{0, 2, 10}, {0, 1, 3}, {1, 2, 3}, {2, 3, 1}, {3, 3, 5}}, 5));
    for (Weight delta : {1, 2, 3, 7, 1000}) {
      SCOPED_TRACE(delta);
      EXPECT_EQ(distances(g, 0, delta), (std::vector<Weight>{0, 3, 6, 7, inf}));
      EXPECT_EQ(distances(g, 2, delta), (std::vector<Weight>{inf, inf, 0, 1, inf}));
    }
    // Duplicate edges keep the lightest; zero weights are allowed.
    const WeightedCSRGraph dup = build_graph(wedge_list({{0, 1, 9}, {0, 1, 4}, {1, 2, 0}}, 3, true));
    EXPECT_EQ(distances(dup, 2, 2), (std::vector<Weight>{4, 0, 0}));
    // A single vertex.
    EXPECT_EQ(distances(build_graph(wedge_list({}, 1)), 0, 1), (std::vector<Weight>{0}));
  });
}

TEST_P(GraphKernels, SsspVerifiedOnGeneratedGraphs) {
  on_runtime([] {
    for (const GeneratedCase& c : generated_cases()) {
      SCOPED_TRACE(c.name());
      const WeightedCSRGraph g = generated_weighted(c);
      SourcePicker pick(g);
      for (Weight delta : {1, 4, 32}) distances(g, pick.next(), delta);
    }
  });
}

// Meyer and Sanders: with delta <= every weight each bucket is emptied in one
// phase (label-setting, Dijkstra's order); with delta past every distance
// there is one bucket (label-correcting, Bellman-Ford's rounds); the
// distances do not depend on delta.
TEST_P(GraphKernels, SsspDeltaSpansDijkstraToBellmanFord) {
  on_runtime([] {
    const WeightedCSRGraph g = generated_weighted({GraphKind::kronecker, large_scale()});
    const NodeId source = SourcePicker(g).next();
    const SsspResult dijkstra_like = sssp(g, source, {.delta = 1});
    EXPECT_EQ(dijkstra_like.phases, dijkstra_like.buckets);
    EXPECT_GT(dijkstra_like.buckets, 1);
    const SsspResult bellman_ford_like = sssp(g, source, {.delta = 1 << 28});
    EXPECT_EQ(bellman_ford_like.buckets, 1);
    EXPECT_GT(bellman_ford_like.phases, 1);
    const SsspResult middle = sssp(g, source, {.delta = 64});
    EXPECT_GE(middle.phases, middle.buckets);
    EXPECT_TRUE(dijkstra_like.distance == bellman_ford_like.distance);
    EXPECT_TRUE(dijkstra_like.distance == middle.distance);
    EXPECT_TRUE(verify_sssp(g, source, middle.distance));
  });
}

TEST_P(GraphKernels, SsspRejectsBadArguments) {
  on_runtime([] {
    const WeightedCSRGraph g = build_graph(wedge_list({{0, 1, 2}}));
    EXPECT_THROW(sssp(g, 2), std::invalid_argument);
    EXPECT_THROW(sssp(g, 0, {.delta = 0}), std::invalid_argument);
    const WeightedCSRGraph negative = build_graph(wedge_list({{0, 1, -2}}));
    try {
      sssp(negative, 0);
      ADD_FAILURE() << "a negative weight was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("negative"), std::string::npos) << e.what();
    }
    // A path longer than the distances hold.
    const WeightedCSRGraph heavy = build_graph(wedge_list({{0, 1, 1 << 30}, {1, 2, 1 << 30}}));
    EXPECT_THROW(sssp(heavy, 0), std::overflow_error);
    std::vector<Weight> wrong = {0, 3};
    EXPECT_FALSE(verify_sssp(g, 0, wrong));
  });
}

// ------------------------------------------------------------------ PageRank

TEST_P(GraphKernels, PageRankKnownAnswers) {
  on_runtime([] {
    // A directed ring: every score stays 1/n.
    const CSRGraph ring = directed({{0, 1}, {1, 2}, {2, 3}, {3, 0}});
    const PageRankResult r = pagerank(ring);
    for (NodeId u = 0; u < 4; ++u) EXPECT_FLOAT_EQ(r.scores[u], 0.25f);
    EXPECT_EQ(r.iterations, 1);
    // A star: the centre ranks highest, the leaves alike; scores sum to 1.
    const CSRGraph s = star(5);
    const PageRankResult sr = pagerank(s, {.max_iterations = 300, .tolerance = 1e-6});
    EXPECT_TRUE(verify_pagerank(s, sr.scores, {.max_iterations = 300, .tolerance = 1e-6}));
    for (NodeId u = 2; u <= 5; ++u) EXPECT_FLOAT_EQ(sr.scores[u], sr.scores[1]);
    EXPECT_GT(sr.scores[0], 3 * sr.scores[1]);
    EXPECT_NEAR(std::accumulate(sr.scores.begin(), sr.scores.end(), 0.0), 1.0, 1e-5);
    // Closed form for the star with k leaves: c = (1-d)/n + d*k*l, l = (1-d)/n + d*c/k.
    const double n = 6, d = kDamping, k = 5;
    const double c = ((1 - d) / n + d * k * (1 - d) / n) / (1 - d * d);
    EXPECT_NEAR(sr.scores[0], c, 1e-5);
    // A single vertex (no edges): only the teleport term.
    EXPECT_FLOAT_EQ(pagerank(undirected({}, 1)).scores[0], 0.15f);
  });
}

TEST_P(GraphKernels, PageRankVerifiedOnGeneratedGraphs) {
  on_runtime([] {
    for (const GeneratedCase& c : generated_cases()) {
      SCOPED_TRACE(c.name());
      const CSRGraph g = generated(c);
      const PageRankResult r = pagerank(g);
      EXPECT_TRUE(verify_pagerank(g, r.scores)) << verify_pagerank(g, r.scores).problem;
    }
    const CSRGraph d = generated_directed(large_scale());
    const PageRankResult r = pagerank(d, {.max_iterations = 50});
    EXPECT_TRUE(verify_pagerank(d, r.scores, {.max_iterations = 50})) << verify_pagerank(d, r.scores).problem;
  });
}

// Pulling from the previous iteration only (Jacobi): the same bits on any
// number of workers.
TEST(GraphPageRank, ScoresAreTheSameOnOneAndTwoWorkers) {
  const CSRGraph g = generated({GraphKind::kronecker, large_scale()});
  auto run = [&](int workers) {
    Config c;
    c.workers = workers;
    c.pin_workers = false;
    Runtime rt(c);
    return rt.run([&] { return pagerank(g); });
  };
  const PageRankResult one = run(1), two = run(2);
  EXPECT_EQ(one.iterations, two.iterations);
  EXPECT_TRUE(one.scores == two.scores);
  EXPECT_LT(one.change, 1e-4);
}

TEST(GraphPageRank, RejectsBadOptionsAndWrongScores) {
  const CSRGraph g = path(4);
  EXPECT_THROW(pagerank(g, {.max_iterations = 0}), std::invalid_argument);
  EXPECT_THROW(pagerank(g, {.tolerance = -1}), std::invalid_argument);
  std::vector<float> wrong(4, 0.25f);
  EXPECT_FALSE(verify_pagerank(g, wrong));
}

// ------------------------------------------------------------------ CC

TEST_P(GraphKernels, ConnectedComponentsKnownAnswers) {
  on_runtime([] {
    // Pieces {0,1,2,5}, {3,4}, {6}; duplicates and a self-loop.
    const CSRGraph g = undirected({{5, 1}, {1, 2}, {2, 0}, {4, 3}, {3, 4}, {6, 6}}, 7);
    const std::vector<NodeId> want = {0, 0, 0, 3, 3, 0, 6};
    const CcResult a = connected_components(g), sv = connected_components_sv(g);
    EXPECT_EQ(to_vector<NodeId>(a.component), want);
    EXPECT_EQ(to_vector<NodeId>(sv.component), want);
    EXPECT_EQ(count_components(a.component), 3);
    // Directed edges connect weakly.
    const CSRGraph d = directed({{2, 1}, {3, 1}, {5, 4}}, 6);
    EXPECT_EQ(to_vector<NodeId>(connected_components(d).component), (std::vector<NodeId>{0, 1, 1, 1, 4, 4}));
    EXPECT_EQ(to_vector<NodeId>(connected_components_sv(d).component), (std::vector<NodeId>{0, 1, 1, 1, 4, 4}));
    EXPECT_EQ(to_vector<NodeId>(connected_components(undirected({}, 1)).component), (std::vector<NodeId>{0}));
    EXPECT_EQ(to_vector<NodeId>(connected_components(path(6)).component), std::vector<NodeId>(6, 0));
  });
}

// Sutton et al.: sampling and skipping change only the work, never the
// labels; Afforest and Shiloach-Vishkin agree with union-find.
TEST_P(GraphKernels, ConnectedComponentsVerifiedAndIndependentOfSampling) {
  on_runtime([] {
    std::vector<CSRGraph> graphs;
    for (const GeneratedCase& c : generated_cases()) graphs.push_back(generated(c, 2));  // sparse: many components
    graphs.push_back(generated_directed(large_scale(), 2));
    for (const CSRGraph& g : graphs) {
      const CcResult sv = connected_components_sv(g);
      ASSERT_TRUE(verify_cc(g, sv.component)) << verify_cc(g, sv.component).problem;
      for (int rounds : {0, 1, 2, 3})
        for (bool skip : {true, false}) {
          const CcResult a = connected_components(g, {.neighbor_rounds = rounds, .skip_largest_component = skip});
          ASSERT_TRUE(verify_cc(g, a.component)) << verify_cc(g, a.component).problem;
          ASSERT_TRUE(a.component == sv.component) << rounds << " " << skip;
        }
    }
  });
}

TEST(GraphCc, VerifierCatchesWrongLabels) {
  const CSRGraph g = undirected({{0, 1}, {2, 3}});
  EXPECT_FALSE(verify_cc(g, std::vector<NodeId>{0, 0, 0, 2}));  // merged pieces
  EXPECT_FALSE(verify_cc(g, std::vector<NodeId>{0, 1, 2, 2}));  // split piece
  EXPECT_FALSE(verify_cc(g, std::vector<NodeId>{1, 1, 2, 2}));  // not the smallest id
  EXPECT_THROW(connected_components(g, {.neighbor_rounds = -1}), std::invalid_argument);
}

// ------------------------------------------------------------------ BC

std::vector<float> raw_bc(const CSRGraph& g, std::vector<NodeId> sources) {
  const BcResult r = betweenness_centrality(g, sources, {.normalize = false});
  EXPECT_TRUE(verify_bc(g, sources, r.scores, {.normalize = false}));
  return {r.scores.begin(), r.scores.end()};
}

TEST_P(GraphKernels, BetweennessKnownAnswers) {
  on_runtime([] {
    // A path of 5 from every source: ordered pairs through each vertex.
    EXPECT_EQ(raw_bc(path(5), {0, 1, 2, 3, 4}), (std::vector<float>{0, 6, 8, 6, 0}));
    // A star with 4 leaves: every leaf pair goes through the centre.
    EXPECT_EQ(raw_bc(star(4), {0, 1, 2, 3, 4}), (std::vector<float>{12, 0, 0, 0, 0}));
    // A 4-cycle: two shortest paths between opposite corners, half each.
    const CSRGraph cycle = undirected({{0, 1}, {1, 2}, {2, 3}, {3, 0}});
    EXPECT_EQ(raw_bc(cycle, {0, 1, 2, 3}), (std::vector<float>{1, 1, 1, 1}));
    // A clique: no vertex lies between two others.
    EXPECT_EQ(raw_bc(clique(5), {0, 1, 2}), std::vector<float>(5, 0));
    // One source on the path: dependencies of that source only.
    EXPECT_EQ(raw_bc(path(5), {0}), (std::vector<float>{0, 3, 2, 1, 0}));
    // Normalized: the largest score is 1.
    const BcResult n = betweenness_centrality(path(5), std::vector<NodeId>{0, 1, 2, 3, 4});
    EXPECT_EQ(to_vector<float>(n.scores), (std::vector<float>{0, 0.75f, 1, 0.75f, 0}));
  });
}

TEST_P(GraphKernels, BetweennessVerifiedOnGeneratedGraphs) {
  on_runtime([] {
    for (const GeneratedCase& c : generated_cases()) {
      SCOPED_TRACE(c.name());
      const CSRGraph g = generated(c);
      SourcePicker pick(g);
      const std::vector<NodeId> sources = {pick.next(), pick.next(), pick.next(), pick.next()};
      const BcResult r = betweenness_centrality(g, sources);
      EXPECT_TRUE(verify_bc(g, sources, r.scores)) << verify_bc(g, sources, r.scores).problem;
      EXPECT_FLOAT_EQ(*std::max_element(r.scores.begin(), r.scores.end()), 1.0f);
    }
    const CSRGraph d = generated_directed(large_scale());
    const std::vector<NodeId> sources = {SourcePicker(d).next()};
    const BcResult r = betweenness_centrality(d, sources);
    EXPECT_TRUE(verify_bc(d, sources, r.scores)) << verify_bc(d, sources, r.scores).problem;
  });
}

TEST(GraphBc, RejectsBadSourcesAndCatchesWrongScores) {
  const CSRGraph g = path(3);
  EXPECT_THROW(betweenness_centrality(g, std::vector<NodeId>{}), std::invalid_argument);
  EXPECT_THROW(betweenness_centrality(g, std::vector<NodeId>{3}), std::invalid_argument);
  EXPECT_FALSE(verify_bc(g, std::vector<NodeId>{0, 1, 2}, std::vector<float>{0, 0.5f, 0}));
}

// ------------------------------------------------------------------ TC

TEST_P(GraphKernels, TriangleCountKnownAnswers) {
  on_runtime([] {
    EXPECT_EQ(triangle_count(clique(4)).triangles, 4u);
    EXPECT_EQ(triangle_count(clique(6)).triangles, 20u);
    EXPECT_EQ(triangle_count(path(6)).triangles, 0u);
    EXPECT_EQ(triangle_count(star(6)).triangles, 0u);
    // Two triangles sharing the edge 1-2, given with duplicates and self-loops.
    const CSRGraph g = undirected({{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 2}, {2, 1}, {1, 1}, {0, 1}});
    EXPECT_EQ(triangle_count(g).triangles, 2u);
    EXPECT_EQ(triangle_count(undirected({}, 1)).triangles, 0u);
    EXPECT_THROW(triangle_count(directed({{0, 1}, {1, 2}, {2, 0}})), std::invalid_argument);
  });
}

// Relabelling by degree changes the work, not the count; GAPBS's heuristic
// picks it for a skewed graph and not for a uniform one.
TEST_P(GraphKernels, TriangleCountVerifiedWithAndWithoutRelabelling) {
  on_runtime([] {
    for (const GeneratedCase& c : generated_cases()) {
      SCOPED_TRACE(c.name());
      const CSRGraph g = generated(c);
      const TcResult automatic = triangle_count(g);
      EXPECT_TRUE(verify_tc(g, automatic.triangles)) << verify_tc(g, automatic.triangles).problem;
      EXPECT_EQ(triangle_count(g, {.relabel = Relabel::always}).triangles, automatic.triangles);
      EXPECT_EQ(triangle_count(g, {.relabel = Relabel::never}).triangles, automatic.triangles);
    }
    EXPECT_TRUE(worth_relabelling(generated({GraphKind::kronecker, large_scale()})));
    EXPECT_FALSE(worth_relabelling(generated({GraphKind::uniform, large_scale()})));
    EXPECT_FALSE(verify_tc(clique(4), 5));
  });
}

}  // namespace
}  // namespace weft::graph::test
