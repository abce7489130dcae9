// The steal orders on their own (runtime/src/steal_order.hpp): on a machine
// model (a saved topology, as WEFT_TOPOLOGY gives it) each worker tries the
// nearest workers first, ties in round-robin order from the next index; with
// an unpinned worker, or one worker, the order is plain round-robin.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "steal_order.hpp"
#include "weft/sched/topology.hpp"
#include "weft/sched/topology_io.hpp"

namespace weft::detail {
namespace {

using Orders = std::vector<std::vector<int>>;

// A topology saved to a file of its own, removed at the end of the test
// (the runtime loads each file once per process).
class SavedTopology {
 public:
  SavedTopology(const sched::Topology& t, const std::string& name)
      : path_(::testing::TempDir() + "weft_steal_order_" + name + "_" + std::to_string(getpid()) + ".topo") {
    sched::save_topology(t, path_);
  }
  ~SavedTopology() { std::remove(path_.c_str()); }
  Config config() const {
    Config c;
    c.topology_file = path_;
    return c;
  }

 private:
  std::string path_;
};

TEST(StealOrder, RoundRobinTriesTheNextWorkersWrapping) {
  EXPECT_EQ(round_robin_orders(1), (Orders{{}}));
  EXPECT_EQ(round_robin_orders(2), (Orders{{1}, {0}}));
  EXPECT_EQ(round_robin_orders(4), (Orders{{1, 2, 3}, {2, 3, 0}, {3, 0, 1}, {0, 1, 2}}));
}

TEST(StealOrder, TheTopologyIsConsultedOnlyWhenEveryWorkerIsPinnedAndThereAreTwoOrMore) {
  EXPECT_FALSE(steal_order_uses_topology({}));
  EXPECT_FALSE(steal_order_uses_topology({3}));
  EXPECT_FALSE(steal_order_uses_topology({0, -1}));
  EXPECT_FALSE(steal_order_uses_topology({-1, -1, -1}));
  EXPECT_TRUE(steal_order_uses_topology({0, 1}));
  EXPECT_TRUE(steal_order_uses_topology({5, 2, 7}));
}

// 2 sockets x 2 cores x 2 SMT contexts, OS cpus 0..7: cpu 2k and 2k+1 share
// a core, cpus 0-3 and 4-7 a socket.
TEST(StealOrder, NearestFirstOnASyntheticMachineTiesInRoundRobinOrder) {
  SavedTopology topo(sched::Topology::from_hwloc_synthetic("pack:2 core:2 pu:2"), "synthetic");
  Orders orders = steal_orders(topo.config(), {0, 1, 2, 3, 4, 5, 6, 7});
  ASSERT_EQ(orders.size(), 8u);
  EXPECT_EQ(orders[0], (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));  // SMT sibling, socket, other socket
  EXPECT_EQ(orders[3], (std::vector<int>{2, 0, 1, 4, 5, 6, 7}));  // sibling, socket (round-robin from 4 wraps to 0), other socket
  EXPECT_EQ(orders[5], (std::vector<int>{4, 6, 7, 0, 1, 2, 3}));
  EXPECT_EQ(orders[6], (std::vector<int>{7, 4, 5, 0, 1, 2, 3}));
}

TEST(StealOrder, WorkersOnSomeCpusInAnyOrderAreRankedByTheirCpusDistance) {
  SavedTopology topo(sched::Topology::from_hwloc_synthetic("pack:2 core:2 pu:2"), "subset");
  // worker -> cpu: 0 -> 6, 1 -> 0, 2 -> 1, 3 -> 7.
  EXPECT_EQ(steal_orders(topo.config(), {6, 0, 1, 7}), (Orders{{3, 1, 2}, {2, 3, 0}, {1, 3, 0}, {0, 1, 2}}));
}

// Four sockets of one core each, at graded distances (a ring: 0-1 and 2-3
// close, 1-2 and 3-0 farther, across the ring farthest).
TEST(StealOrder, NearestFirstFollowsGradedSocketDistances) {
  std::vector<sched::ContextInfo> ctx;
  for (int s = 0; s < 4; ++s) ctx.push_back({s, s, s, s});
  const double d[4][4] = {{0, 100, 300, 200}, {100, 0, 200, 300}, {300, 200, 0, 100}, {200, 300, 100, 0}};
  std::vector<double> lat;
  for (const auto& row : d) lat.insert(lat.end(), row, row + 4);
  SavedTopology topo(sched::Topology::from_parts(ctx, lat, sched::LatencySource::Measured, "ring"), "ring");
  EXPECT_EQ(steal_orders(topo.config(), {0, 1, 2, 3}), (Orders{{1, 3, 2}, {0, 2, 3}, {3, 1, 0}, {2, 0, 1}}));
}

TEST(StealOrder, AnUnpinnedWorkerMeansRoundRobinForEveryone) {
  SavedTopology topo(sched::Topology::from_hwloc_synthetic("pack:2 core:2 pu:2"), "unpinned");
  EXPECT_EQ(steal_orders(topo.config(), {0, -1, 4}), round_robin_orders(3));
  EXPECT_EQ(steal_orders(topo.config(), {-1, -1}), round_robin_orders(2));
  EXPECT_EQ(steal_orders(topo.config(), {5}), round_robin_orders(1));
}

TEST(StealOrder, AnUnreadableTopologyFileIsAnErrorNamingTheSetting) {
  Config c;
  c.topology_file = ::testing::TempDir() + "weft_steal_order_no_such_file.topo";
  try {
    steal_orders(c, {0, 1});
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("WEFT_TOPOLOGY"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no_such_file"), std::string::npos) << e.what();
  }
}

// A worker on a CPU the model does not describe (cpu 42 on an 8-CPU
// machine) has no known distance: the others try it last, and it tries the
// others in round-robin order.
TEST(StealOrder, AWorkerOnACpuTheTopologyLacksIsTriedLast) {
  SavedTopology topo(sched::Topology::from_hwloc_synthetic("pack:2 core:2 pu:2"), "unknown_cpu");
  Orders orders = steal_orders(topo.config(), {42, 0, 4, 1});
  EXPECT_EQ(orders[0], (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(orders[1], (std::vector<int>{3, 2, 0}));  // cpu 1 (same core), cpu 4 (other socket), cpu 42
  EXPECT_EQ(orders[2], (std::vector<int>{3, 1, 0}));
}

// The distance class the statistics count steals by: the victim's rank among
// the distinct latencies from the thief (SMT sibling 0, same socket 1, other
// socket 2); without a topology every victim is class 0.
TEST(StealOrder, DistanceClassesRankTheVictimsLatencies) {
  SavedTopology topo(sched::Topology::from_hwloc_synthetic("pack:2 core:2 pu:2"), "classes");
  StealOrders s = steal_orders_with_distances(topo.config(), {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(s.victims, steal_orders(topo.config(), {0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(s.distance_class[0], (std::vector<std::uint8_t>{0, 1, 1, 2, 2, 2, 2}));
  EXPECT_EQ(s.distance_class[5], (std::vector<std::uint8_t>{0, 1, 1, 2, 2, 2, 2}));
  StealOrders unknown = steal_orders_with_distances(topo.config(), {42, 0, 4, 1});
  EXPECT_EQ(unknown.distance_class[1], (std::vector<std::uint8_t>{0, 1, 2}));  // cpu 42: infinitely far
  StealOrders rr = round_robin_orders_with_distances(3);
  EXPECT_EQ(rr.victims, round_robin_orders(3));
  EXPECT_EQ(rr.distance_class, (std::vector<std::vector<std::uint8_t>>{{0, 0}, {0, 0}, {0, 0}}));
}

}  // namespace
}  // namespace weft::detail
