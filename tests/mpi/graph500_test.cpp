// The Graph500 BFS across ranks (weft::mpi::graph500) under mpirun
// (tests/mpi/CMakeLists.txt runs it on 2, 3 and 4 ranks): the edges are
// weft::graph::generate_edges's whatever the rank count, the local CSRs are
// the single-machine graph's rows, searches in every direction mode and the
// MPI+OpenMP baseline pass the five checks and reach exactly the root's
// component (compared with weft::graph::bfs on the whole graph), each check
// catches a parent array broken its way, and bad arguments are refused on
// every rank. Every rank runs every test in the same order.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <weft/apps/graph/bfs.hpp>
#include <weft/apps/graph/builder.hpp>
#include <weft/apps/graph/generator.hpp>
#include <weft/mpi.hpp>
#include <weft/mpi/graph500/bfs.hpp>
#include <weft/mpi/graph500/validation.hpp>
#include <weft/runtime.hpp>

#include "bfs_mpi_omp.hpp"

namespace {

using namespace weft;
namespace g500 = weft::mpi::graph500;
using g500::NodeId;

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int kLargestScale = 10;
#else
constexpr int kLargestScale = 12;
#endif

Config workers(int n) {
  Config c;
  c.workers = n;
  c.pin_workers = false;  // several ranks share the CPUs
  return c;
}

// Every rank's elements of `mine`, in rank order, on every rank.
template <class T>
std::vector<T> gather_all(const std::vector<T>& mine) {
  const int p = mpi::size();
  std::vector<int> counts(static_cast<std::size_t>(p));
  const int n = static_cast<int>(mine.size());
  mpi::iallgather(std::span<const int>(&n, 1), std::span<int>(counts)).wait();
  std::vector<int> displs(counts.size());
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) displs[r] = std::exchange(total, total + counts[r]);
  // An allgatherv through ialltoallv: the same block to every rank.
  std::vector<T> send;
  std::vector<int> send_counts(counts.size(), n), send_displs(counts.size());
  for (int r = 0; r < p; ++r) {
    send_displs[static_cast<std::size_t>(r)] = static_cast<int>(send.size());
    send.insert(send.end(), mine.begin(), mine.end());
  }
  std::vector<T> all(static_cast<std::size_t>(total));
  mpi::ialltoallv(std::span<const T>(send), std::span<const int>(send_counts), std::span<const int>(send_displs),
                  std::span<T>(all), std::span<const int>(counts), std::span<const int>(displs))
      .wait();
  return all;
}

// The whole graph on one machine: its input edge list and its CSR.
struct Reference {
  graph::EdgeList input;
  graph::CSRGraph g;
  explicit Reference(const g500::GraphOptions& o)
      : input(graph::generate_edges({.scale = o.scale, .degree = o.edgefactor, .seed = o.seed})),
        g(graph::build_graph(graph::generate_edges({.scale = o.scale, .degree = o.edgefactor, .seed = o.seed}))) {}
};

TEST(Graph500Graph, EdgesAreTheSingleMachineGeneratorsWhateverTheRankCount) {
  Runtime rt(workers(2));
  rt.run([&] {
    for (const g500::GraphOptions o : {g500::GraphOptions{.scale = 10, .edgefactor = 16},
                                       g500::GraphOptions{.scale = 9, .edgefactor = 3, .seed = 5}}) {
      const graph::EdgeList expected = graph::generate_edges({.scale = o.scale, .degree = o.edgefactor, .seed = o.seed});
      const graph::Array<graph::Edge> share = g500::generate_edge_share(o, mpi::rank(), mpi::size());
      const std::vector<graph::Edge> all = gather_all(std::vector<graph::Edge>(share.begin(), share.end()));
      ASSERT_EQ(all.size(), expected.edges.size());
      EXPECT_TRUE(std::equal(all.begin(), all.end(), expected.edges.begin())) << "scale " << o.scale;
    }
  });
}

TEST(Graph500Graph, LocalRowsAreTheSingleMachineGraphsRows) {
  Runtime rt(workers(2));
  rt.run([&] {
    const g500::GraphOptions o{.scale = 11, .edgefactor = 8};
    const g500::DistributedGraph g = g500::build_kronecker_graph(o);
    const Reference ref(o);
    EXPECT_EQ(g.global_directed_edges, ref.g.num_edges_directed());
    const g500::Partition& part = g.partition;
    for (std::int64_t l = 0; l < part.local_count(); ++l) {
      const auto row = ref.g.out_neigh(part.to_global(l));
      const std::vector<NodeId> expected(row.begin(), row.end());
      const std::vector<NodeId> got(g.neighbours.begin() + g.offsets[l], g.neighbours.begin() + g.offsets[l + 1]);
      ASSERT_EQ(got, expected) << "vertex " << part.to_global(l);
    }
  });
}

// Every rank's BFS reaches exactly the vertices weft::graph::bfs reaches,
// the five checks pass, and the traversed-edge count is the input edges
// (u, v), u != v, with u reached.
void expect_valid_search(const g500::DistributedGraph& g, const Reference& ref, NodeId root,
                         const g500::BfsResult& r, const std::string& what) {
  const g500::Validation v = g500::validate_bfs(g, root, r.parent);
  EXPECT_TRUE(v) << what << ": " << v.problem;
  const graph::BfsResult single = graph::bfs(ref.g, root);
  const g500::Partition& part = g.partition;
  for (std::int64_t l = 0; l < part.local_count(); ++l) {
    ASSERT_EQ(r.parent[l] != -1, single.parent[part.to_global(l)] != -1) << what << ": vertex " << part.to_global(l);
  }
  std::int64_t in_component = 0;
  for (const graph::Edge& e : ref.input.edges) in_component += e.u != e.v && single.parent[e.u] != -1 ? 1 : 0;
  EXPECT_EQ(v.edges_traversed, in_component) << what;
}

TEST(Graph500Bfs, EveryDirectionModeAndTheBaselinePassTheFiveChecks) {
  Runtime rt(workers(2));
  // Scale 8 (256 vertices) cannot be split over 3 ranks in 64-vertex blocks.
  for (int scale = mpi::size() == 3 ? 9 : 8; scale <= kLargestScale; scale += 2) {
    const g500::GraphOptions o{.scale = scale, .edgefactor = 16, .seed = static_cast<std::uint64_t>(scale)};
    g500::DistributedGraph g;
    std::vector<NodeId> keys;
    rt.run([&] {
      g = g500::build_kronecker_graph(o);
      keys = g500::pick_search_keys(g, 2, 99);
    });
    const Reference ref(o);
    for (NodeId root : keys) {
      const std::string at = "scale " + std::to_string(scale) + " root " + std::to_string(root);
      for (auto direction : {graph::BfsDirection::optimizing, graph::BfsDirection::top_down_only,
                             graph::BfsDirection::bottom_up_only}) {
        // Small chunks top-down: many messages in flight per level.
        const g500::BfsOptions options{.direction = direction, .chunk_pairs = direction == graph::BfsDirection::top_down_only ? 64 : 4096};
        rt.run([&] {
          const g500::BfsResult r = g500::bfs(g, root, options);
          expect_valid_search(g, ref, root, r, at + " direction " + std::to_string(static_cast<int>(direction)));
        });
      }
      const g500::BfsResult base = g500::bfs_mpi_omp(g, root, 2);  // from this plain thread
      rt.run([&] { expect_valid_search(g, ref, root, base, at + " mpi-omp baseline"); });
    }
  }
}

TEST(Graph500Bfs, TheOptimizingSearchGoesBottomUpOnLargeFrontiers) {
  Runtime rt(workers(2));
  rt.run([&] {
    const g500::DistributedGraph g = g500::build_kronecker_graph({.scale = kLargestScale, .edgefactor = 16});
    const g500::BfsResult r = g500::bfs(g, g500::pick_search_keys(g, 1, 7)[0]);
    const auto bottom_up = std::count_if(r.levels.begin(), r.levels.end(), [](auto& l) { return l.bottom_up; });
    EXPECT_GT(bottom_up, 0);
    EXPECT_FALSE(r.levels.front().bottom_up);
  });
}

TEST(Graph500Keys, DistinctWithAnEdgeAndTheSameOnEveryRank) {
  Runtime rt(workers(2));
  rt.run([&] {
    const g500::GraphOptions o{.scale = 10, .edgefactor = 16};
    const g500::DistributedGraph g = g500::build_kronecker_graph(o);
    const std::vector<NodeId> keys = g500::pick_search_keys(g, 64, 1234);
    ASSERT_EQ(keys.size(), 64u);
    std::vector<NodeId> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
    const Reference ref(o);
    for (NodeId k : keys) EXPECT_GT(ref.g.out_degree(k), 0) << k;
    // The same keys on every rank (and so for any rank count: the draws do not depend on it).
    const std::vector<NodeId> all = gather_all(keys);
    for (int r = 0; r < mpi::size(); ++r) EXPECT_TRUE(std::equal(keys.begin(), keys.end(), all.begin() + r * 64));
    EXPECT_THROW(g500::pick_search_keys(g, 1 << 11, 1), std::invalid_argument);  // more than the vertices
    EXPECT_THROW(g500::pick_search_keys(g, 0, 1), std::invalid_argument);
  });
}

// Each of the five checks fails on a parent array broken its way.
TEST(Graph500Validation, EachCheckCatchesItsBreakage) {
  Runtime rt(workers(2));
  rt.run([&] {
    const g500::DistributedGraph g = g500::build_kronecker_graph({.scale = 9, .edgefactor = 16});
    const g500::Partition& part = g.partition;
    const NodeId root = g500::pick_search_keys(g, 1, 3)[0];
    const g500::BfsResult good = g500::bfs(g, root);
    ASSERT_TRUE(g500::validate_bfs(g, root, good.parent));
    // Global views of the good tree (small graph): parents and depths.
    const std::vector<NodeId> parent = gather_all(std::vector<NodeId>(good.parent.begin(), good.parent.end()));
    const auto n = static_cast<NodeId>(parent.size());
    std::vector<int> depth(parent.size(), -1);
    for (NodeId v = 0; v < n; ++v) {
      int d = 0;
      for (NodeId x = v; parent[x] != -1 && x != root; x = parent[x]) ++d;
      if (parent[v] != -1) depth[v] = d;
    }
    const Reference ref({.scale = 9, .edgefactor = 16});
    // The same broken copy on every rank, then each rank validates its part.
    auto expect_failure = [&](std::vector<NodeId> broken, const std::string& check) {
      std::vector<NodeId> mine(broken.begin() + part.first(), broken.begin() + part.first() + part.local_count());
      const g500::Validation v = g500::validate_bfs(g, root, mine);
      EXPECT_NE(v.problem.find(check), std::string::npos) << "expected " << check << ", got: '" << v.problem << "'";
    };
    // A vertex at depth >= 2 and one at depth 1 (found the same way on every rank).
    NodeId deep = -1, shallow = -1;
    for (NodeId v = 0; v < n; ++v) {
      if (deep < 0 && depth[v] >= 2) deep = v;
      if (shallow < 0 && depth[v] == 1) shallow = v;
    }
    ASSERT_GE(deep, 0);
    ASSERT_GE(shallow, 0);
    {  // 1: the root's parent is not the root
      auto b = parent;
      b[root] = shallow;
      expect_failure(b, "check 1");
    }
    {  // 1: a cycle (two vertices each other's parent), cut off from the root
      auto b = parent;
      const NodeId a = deep, c = parent[deep];
      b[a] = c;
      b[c] = a;
      expect_failure(b, "check 1");
    }
    {  // 5: a parent that is no neighbour (the root, when deep is not adjacent to it)
      auto b = parent;
      NodeId v = -1;
      for (NodeId x = 0; x < n && v < 0; ++x) {
        const auto row = ref.g.out_neigh(x);
        if (depth[x] >= 2 && std::find(row.begin(), row.end(), root) == row.end()) v = x;
      }
      ASSERT_GE(v, 0);
      b[v] = root;
      expect_failure(b, "check 5");
    }
    {  // 4: a reached vertex marked unreached (with no children, so the tree stays a tree)
      auto b = parent;
      NodeId leaf = -1;
      for (NodeId x = 0; x < n && leaf < 0; ++x) {
        if (x != root && parent[x] != -1 && std::find(parent.begin(), parent.end(), x) == parent.end()) leaf = x;
      }
      ASSERT_GE(leaf, 0);
      b[leaf] = -1;
      expect_failure(b, "check 4");
    }
    {  // 2 or 3: a vertex hung one level too deep: its parent is a neighbour at its own depth
      auto b = parent;
      NodeId v = -1, p = -1;
      for (NodeId x = 0; x < n && v < 0; ++x) {
        if (x == root || parent[x] == -1 || std::find(parent.begin(), parent.end(), x) != parent.end()) continue;
        for (NodeId y : ref.g.out_neigh(x)) {
          if (depth[y] == depth[x]) {
            v = x;
            p = y;
            break;
          }
        }
      }
      ASSERT_GE(v, 0) << "no leaf with a neighbour on its own level";
      b[v] = p;  // v now at depth[x] + 1, beside neighbours at depth[x] - 1: check 3
      expect_failure(b, "check 3");
    }
  });
}

TEST(Graph500Arguments, RefusedOnEveryRankBeforeAnyAllocation) {
  Runtime rt(workers(1));
  rt.run([&] {
    auto message = [](const g500::GraphOptions& o) -> std::string {
      try {
        g500::check_graph_options(o);
      } catch (const std::invalid_argument& e) {
        return e.what();
      }
      return "";
    };
    EXPECT_NE(message({.scale = 31}).find("outside 1..30"), std::string::npos);
    EXPECT_NE(message({.scale = 0}).find("outside 1..30"), std::string::npos);
    EXPECT_NE(message({.scale = 8, .edgefactor = 0}).find("edgefactor"), std::string::npos);
    EXPECT_NE(message({.scale = 30, .edgefactor = 64}).find("MiB per rank"), std::string::npos);
    // 2^6 vertices in blocks of 64: a second rank would own none.
    const std::string tiny = message({.scale = 6});
    if (mpi::size() > 1) {
      EXPECT_NE(tiny.find("no vertex"), std::string::npos) << tiny;
    }
    EXPECT_THROW(g500::Partition(64, 2, 0), std::invalid_argument);
    const g500::DistributedGraph g = g500::build_kronecker_graph({.scale = 9});
    EXPECT_THROW(g500::bfs(g, -1), std::invalid_argument);
    EXPECT_THROW(g500::bfs(g, 512), std::invalid_argument);
    EXPECT_THROW(g500::bfs(g, 0, {.alpha = 0}), std::invalid_argument);
  });
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  mpi::Environment env(argc, argv);
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any_failed;
}
