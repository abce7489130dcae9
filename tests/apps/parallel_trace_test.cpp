// The parallel layer and the graph kernels in a trace
// (weft/runtime/trace.hpp): each member's part of a region is a "parallel
// region" scope, each loop chunk a "loop chunk" scope, each BFS level, change
// of direction and PageRank iteration a scope with its arguments, on the
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

}  // namespace
}  // namespace weft
