// The parallel layer and the graph kernels in a trace
// (weft/runtime/trace.hpp): each member's part of a region is a "parallel
// region" scope, each loop chunk a "loop chunk" scope, each BFS level, change
// of direction and PageRank iteration a scope with its arguments (and the
// other kernels' phases), on the
// track of the worker that ran it (read back with tests/runtime/check_trace.py,
// a real JSON parser).

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <string>

#include <weft/graph.hpp>
#include <weft/weft.hpp>

#include "../runtime/trace_checker.hpp"

namespace weft {
namespace {

using testing::temp_path;

TEST(ParallelTrace, RegionsAndLoopChunksAreScopes) {
  Runtime rt(testing::unpinned(2));
  const std::string path = temp_path("parallel");
  trace::start(path);
  std::atomic<long> sum{0};
  rt.run([&] {
    ParallelOptions two;
    two.num_threads = 2;
    parallel(two, [&](Team& team) {
      team.for_each(0, 64, [&](int i) { sum += i; }, schedule_static(8));  // 8 chunks of 8
    });
  });
  ASSERT_TRUE(trace::stop().written);
  EXPECT_EQ(sum.load(), 64 * 63 / 2);
  const testing::TraceCounts t = testing::check_trace(path);
  ASSERT_EQ(t.status, 0) << t.output;
  EXPECT_EQ(t["scopes_parallel region"], 2) << t.output;
  EXPECT_EQ(t["scopes_loop chunk"], 8) << t.output;
  std::remove(path.c_str());
}

// BFS on kron-10 from its highest-degree vertex goes bottom-up and back: one
// scope per level (levels 0, 1, ... in order over both directions), one per
// change of direction each way; PageRank one per iteration.
TEST(GraphTrace, BfsLevelsDirectionChangesAndPageRankIterationsArePhases) {
  const graph::CSRGraph g = graph::build_graph(graph::generate_edges({.kind = graph::GraphKind::kronecker, .scale = 10}));
  graph::NodeId source = 0;
  for (graph::NodeId u = 0; u < g.num_nodes(); ++u)
    if (g.out_degree(u) > g.out_degree(source)) source = u;
  Runtime rt(testing::unpinned(2));
  const std::string path = temp_path("graph");
  trace::start(path);
  graph::BfsResult bfs;
  graph::PageRankResult pr;
  rt.run([&] {
    bfs = graph::bfs(g, source);
    pr = graph::pagerank(g);
  });
  ASSERT_TRUE(trace::stop().written);
  ASSERT_TRUE(graph::verify_bfs(g, source, bfs.parent).ok);
  const testing::TraceCounts t = testing::check_trace(path);
  ASSERT_EQ(t.status, 0) << t.output;
  ASSERT_EQ(t["dropped"], 0) << t.output;
  ASSERT_GT(bfs.bottom_up_steps, 0);  // the test needs a direction change
  EXPECT_EQ(t["scopes_bfs top-down step"], bfs.top_down_steps) << t.output;
  EXPECT_EQ(t["scopes_bfs bottom-up step"], bfs.bottom_up_steps) << t.output;
  const long levels = bfs.top_down_steps + bfs.bottom_up_steps;
  EXPECT_EQ(t["scopes_bfs top-down step.level"] + t["scopes_bfs bottom-up step.level"], levels * (levels - 1) / 2);
  EXPECT_GE(t["scopes_bfs to bottom-up"], 1) << t.output;
  EXPECT_EQ(t["scopes_bfs to top-down"], t["scopes_bfs to bottom-up"]) << t.output;
  EXPECT_EQ(t["scopes_pagerank iteration"], pr.iterations) << t.output;
  EXPECT_EQ(t["scopes_pagerank iteration.iteration"], long{pr.iterations} * (pr.iterations + 1) / 2) << t.output;
  std::remove(path.c_str());
}

// The other kernels' phases: SSSP's search with its bucket and phase counts,
// Afforest's sampling rounds, largest-component sample and final linking,
// Shiloach-Vishkin's iterations, BC's forward and backward pass per source,
// TC's relabelling (when it relabels) and count.
TEST(GraphTrace, SsspCcBcAndTcPhasesAreScopes) {
  const graph::CSRGraph g = graph::build_graph(graph::generate_edges({.kind = graph::GraphKind::kronecker, .scale = 9}));
  const graph::WeightedCSRGraph wg =
      graph::build_graph(graph::generate_weighted_edges({.kind = graph::GraphKind::kronecker, .scale = 9}));
  graph::NodeId source = 0;
  for (graph::NodeId u = 0; u < g.num_nodes(); ++u)
    if (g.out_degree(u) > g.out_degree(source)) source = u;
  const std::vector<graph::NodeId> bc_sources = {source, 1, 2};
  Runtime rt(testing::unpinned(2));
  const std::string path = temp_path("graph_phases");
  trace::start(path);
  graph::SsspResult sssp;
  graph::CcResult afforest, sv;
  graph::TcResult tc_plain, tc_relabelled;
  rt.run([&] {
    sssp = graph::sssp(wg, source);
    afforest = graph::connected_components(g);
    sv = graph::connected_components_sv(g);
    graph::betweenness_centrality(g, bc_sources);
    tc_plain = graph::triangle_count(g, {.relabel = graph::Relabel::never});
    tc_relabelled = graph::triangle_count(g, {.relabel = graph::Relabel::always});
  });
  ASSERT_TRUE(trace::stop().written);
  ASSERT_TRUE(graph::verify_sssp(wg, source, sssp.distance).ok);
  ASSERT_TRUE(graph::verify_cc(g, afforest.component).ok);
  const testing::TraceCounts t = testing::check_trace(path);
  ASSERT_EQ(t.status, 0) << t.output;
  ASSERT_EQ(t["dropped"], 0) << t.output;
  EXPECT_EQ(t["scopes_sssp delta-stepping"], 1) << t.output;
  EXPECT_EQ(t["scopes_sssp delta-stepping.buckets"], sssp.buckets) << t.output;
  EXPECT_EQ(t["scopes_sssp delta-stepping.phases"], sssp.phases) << t.output;
  EXPECT_EQ(t["scopes_sssp delta-stepping.source"], source) << t.output;
  ASSERT_GT(afforest.iterations, 0);
  EXPECT_EQ(t["scopes_cc sampling round"], afforest.iterations) << t.output;
  EXPECT_EQ(t["scopes_cc sampling round.round"], long{afforest.iterations} * (afforest.iterations - 1) / 2);
  EXPECT_EQ(t["scopes_cc largest component"], 1) << t.output;
  EXPECT_EQ(t["scopes_cc link rest"], 1) << t.output;
  EXPECT_EQ(t["scopes_cc sv iteration"], sv.iterations) << t.output;
  EXPECT_EQ(t["scopes_bc forward"], 3) << t.output;
  EXPECT_EQ(t["scopes_bc backward"], 3) << t.output;
  EXPECT_EQ(t["scopes_bc forward.source"], source + 1 + 2) << t.output;
  EXPECT_GT(t["scopes_bc forward.levels"], 3) << t.output;
  EXPECT_FALSE(tc_plain.relabelled);
  EXPECT_TRUE(tc_relabelled.relabelled);
  EXPECT_EQ(tc_plain.triangles, tc_relabelled.triangles);
  EXPECT_EQ(t["scopes_tc count"], 2) << t.output;
  EXPECT_EQ(t["scopes_tc relabel"], 1) << t.output;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace weft
