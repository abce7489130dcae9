#include "weft/sched/topology.hpp"

#include <gtest/gtest.h>
#include <hwloc.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "weft/sched/cpuset.hpp"

using weft::sched::ContextInfo;
using weft::sched::LatencySource;
using weft::sched::LevelRole;
using weft::sched::Topology;

namespace {
std::vector<int> iota_vec(int from, int to) {
  std::vector<int> v(to - from);
  std::iota(v.begin(), v.end(), from);
  return v;
}
}  // namespace

TEST(Topology, IvyLikeSyntheticCounts) {
  Topology t = Topology::from_hwloc_synthetic("pack:2 core:10 pu:2");
  EXPECT_EQ(t.num_contexts(), 40);
  EXPECT_EQ(t.num_cores(), 20);
  EXPECT_EQ(t.num_sockets(), 2);
  EXPECT_EQ(t.num_nodes(), 1);
  EXPECT_EQ(t.max_contexts_per_core(), 2);
  EXPECT_TRUE(t.has_smt());
  EXPECT_EQ(t.os_cpu(7), 7);
  EXPECT_EQ(t.context_of_os_cpu(7), 7);
  EXPECT_EQ(t.context_of_os_cpu(40), -1);
  EXPECT_EQ(t.context_of_os_cpu(-3), -1);
  EXPECT_EQ(t.core_of(0), 0);
  EXPECT_EQ(t.core_of(1), 0);
  EXPECT_EQ(t.core_of(2), 1);
  EXPECT_EQ(t.core_of(39), 19);
  EXPECT_EQ(t.socket_of(19), 0);
  EXPECT_EQ(t.socket_of(20), 1);
  EXPECT_EQ(t.node_of(39), 0);
  EXPECT_EQ(t.socket_cores(1), iota_vec(10, 20));
  EXPECT_EQ(t.socket_contexts(1), iota_vec(20, 40));
  EXPECT_EQ(t.core_contexts(3), (std::vector<int>{6, 7}));
  EXPECT_EQ(t.latency_source(), LatencySource::Estimated);
}

TEST(Topology, IvyLikeSyntheticLatenciesAreTheThesisScale) {
  Topology t = Topology::from_hwloc_synthetic("pack:2 core:10 pu:2");
  EXPECT_EQ(t.latency(0, 0), 0);
  EXPECT_EQ(t.latency(0, 1), 4);     // SMT siblings
  EXPECT_EQ(t.latency(0, 2), 112);   // other core, same socket
  EXPECT_EQ(t.latency(0, 20), 308);  // other socket
  EXPECT_EQ(t.latency(20, 0), 308);
  EXPECT_EQ(t.socket_latency(0, 1), 308);
  EXPECT_EQ(t.socket_latency(1, 1), 0);
  EXPECT_EQ(t.latency_values(), (std::vector<double>{4, 112, 308}));
  std::vector<int> expect = {21, 20};
  for (int i = 22; i < 40; ++i) expect.push_back(i);
  for (int i = 0; i < 20; ++i) expect.push_back(i);
  EXPECT_EQ(t.by_distance(21), expect);
  std::vector<int> a = {0, 1}, b = {0, 1, 5}, c = {3, 25}, one = {4};
  EXPECT_EQ(t.max_latency(a), 4);
  EXPECT_EQ(t.max_latency(b), 112);
  EXPECT_EQ(t.max_latency(c), 308);
  EXPECT_EQ(t.max_latency(one), 0);
  EXPECT_EQ(t.min_latency(b), 4);
}

TEST(Topology, IvyLikeLevelsAndRoles) {
  Topology t = Topology::from_hwloc_synthetic("pack:2 core:10 pu:2");
  const auto& L = t.levels();
  ASSERT_EQ(L.size(), 3u);
  EXPECT_EQ(L[0].latency, 4);
  EXPECT_EQ(L[0].role, LevelRole::Core);
  EXPECT_EQ(L[0].groups.size(), 20u);
  EXPECT_EQ(L[0].groups[5], (std::vector<int>{10, 11}));
  EXPECT_EQ(L[1].latency, 112);
  EXPECT_EQ(L[1].role, LevelRole::Socket);
  ASSERT_EQ(L[1].groups.size(), 2u);
  EXPECT_EQ(L[1].groups[1], iota_vec(20, 40));
  EXPECT_EQ(L[2].role, LevelRole::CrossSocket);
  EXPECT_EQ(L[2].groups.size(), 1u);
}

TEST(Topology, FourSocketsWithNumaNodes) {
  Topology t = Topology::from_hwloc_synthetic("pack:4 [numa] core:8 pu:1");
  EXPECT_EQ(t.num_contexts(), 32);
  EXPECT_EQ(t.num_cores(), 32);
  EXPECT_EQ(t.num_sockets(), 4);
  EXPECT_EQ(t.num_nodes(), 4);
  EXPECT_FALSE(t.has_smt());
  EXPECT_EQ(t.node_of(0), 0);
  EXPECT_EQ(t.node_of(8), 1);
  EXPECT_EQ(t.node_of(31), 3);
  EXPECT_EQ(t.socket_node(2), 2);
  EXPECT_EQ(t.node_ids(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(t.latency(0, 7), 112);
  EXPECT_EQ(t.latency(0, 8), 308);
  ASSERT_EQ(t.levels().size(), 2u);
  EXPECT_EQ(t.levels()[0].role, LevelRole::Socket);
}

TEST(Topology, DiesInsideSocketsAreAGroupLevel) {
  Topology t = Topology::from_hwloc_synthetic("pack:8 die:2 core:3 pu:1");
  EXPECT_EQ(t.num_contexts(), 48);
  EXPECT_EQ(t.num_sockets(), 8);
  EXPECT_EQ(t.num_cores(), 48);
  EXPECT_EQ(t.latency(0, 2), 42);   // same die
  EXPECT_EQ(t.latency(0, 3), 112);  // other die, same package
  EXPECT_EQ(t.latency(0, 6), 308);  // other package
  const auto& L = t.levels();
  ASSERT_EQ(L.size(), 3u);
  EXPECT_EQ(L[0].role, LevelRole::Group);
  EXPECT_EQ(L[0].groups.size(), 16u);
  EXPECT_EQ(L[1].role, LevelRole::Socket);
  EXPECT_EQ(L[1].groups.size(), 8u);
  EXPECT_EQ(L[2].role, LevelRole::CrossSocket);
}

TEST(Topology, NumaPerDieMakesDiesRemote) {
  // Opteron-like: 4 packages x 2 dies, one memory node per die.
  Topology t = Topology::from_hwloc_synthetic("pack:4 die:2 [numa] core:6 pu:1");
  EXPECT_EQ(t.num_nodes(), 8);
  EXPECT_EQ(t.num_sockets(), 4);
  EXPECT_EQ(t.node_of(6), 1);
  EXPECT_EQ(t.latency(0, 5), 42);
  EXPECT_EQ(t.latency(0, 6), 308);  // other node
}

TEST(Topology, SharedL2ClusterIsCheaperThanSocket) {
  Topology t = Topology::from_hwloc_synthetic("pack:1 l3:1 l2:2 core:2 pu:1");
  EXPECT_EQ(t.latency(0, 1), 42);   // share an L2
  EXPECT_EQ(t.latency(0, 2), 112);  // share only the package-wide L3
}

TEST(Topology, BadSyntheticStringNamesIt) {
  try {
    Topology::from_hwloc_synthetic("pack:two");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pack:two"), std::string::npos) << e.what();
  }
}

TEST(Topology, XmlRoundTripThroughHwloc) {
  hwloc_topology_t h;
  ASSERT_EQ(hwloc_topology_init(&h), 0);
  ASSERT_EQ(hwloc_topology_set_synthetic(h, "pack:2 [numa] core:3 pu:2"), 0);
  ASSERT_EQ(hwloc_topology_load(h), 0);
  std::string path = ::testing::TempDir() + "weft_topo_" + std::to_string(getpid()) + ".xml";
  ASSERT_EQ(hwloc_topology_export_xml(h, path.c_str(), 0), 0);
  hwloc_topology_destroy(h);
  Topology t = Topology::from_hwloc_xml(path);
  std::remove(path.c_str());
  EXPECT_EQ(t.num_contexts(), 12);
  EXPECT_EQ(t.num_sockets(), 2);
  EXPECT_EQ(t.num_nodes(), 2);
  EXPECT_EQ(t.latency(0, 1), 4);
  EXPECT_EQ(t.latency(0, 6), 308);
  EXPECT_THROW(Topology::from_hwloc_xml("/nonexistent/weft.xml"), std::runtime_error);
}

TEST(Topology, DiscoverMatchesAffinityMask) {
  Topology t = Topology::discover();
  std::vector<int> allowed = weft::sched::allowed_cpus();
  ASSERT_EQ(t.num_contexts(), static_cast<int>(allowed.size()));
  for (int i = 0; i < t.num_contexts(); ++i) {
    EXPECT_EQ(t.os_cpu(i), allowed[i]);
    EXPECT_EQ(t.context_of_os_cpu(allowed[i]), i);
    EXPECT_GE(t.node_of(i), 0);
  }
  EXPECT_GE(t.num_cores(), 1);
  EXPECT_GE(t.num_sockets(), 1);
  EXPECT_GE(t.num_nodes(), 1);
  for (int a = 0; a < t.num_contexts(); ++a)
    for (int b = 0; b < t.num_contexts(); ++b) EXPECT_EQ(t.latency(a, b), a == b ? 0 : t.latency(b, a));
}

TEST(Topology, CopiesShareAndWithMemoryDoesNotMutate) {
  Topology t = Topology::from_hwloc_synthetic("pack:2 [numa] core:2 pu:1");
  Topology copy = t;
  EXPECT_FALSE(t.has_memory_info());
  Topology rich = t.with_memory(1, {90.0, 20.0, 8.0});
  EXPECT_FALSE(t.has_memory_info());
  EXPECT_FALSE(copy.has_memory_info());
  EXPECT_TRUE(rich.has_memory_info());
  EXPECT_EQ(rich.memory(1).bandwidth_gbs, 20.0);
  EXPECT_EQ(rich.memory(0).bandwidth_gbs, 0.0);
  EXPECT_THROW(t.with_memory(7, {}), std::invalid_argument);
}

TEST(Topology, FromPartsValidates) {
  std::vector<ContextInfo> ctx = {{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 1, 0, 0}};
  std::vector<double> lat = {0, 4, 112, 4, 0, 112, 112, 112, 0};
  Topology t = Topology::from_parts(ctx, lat, LatencySource::Measured);
  EXPECT_EQ(t.num_cores(), 2);
  EXPECT_EQ(t.latency_source(), LatencySource::Measured);
  auto asym = lat;
  asym[1] = 5;
  try {
    Topology::from_parts(ctx, asym, LatencySource::Measured);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not symmetric at (0,1)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Topology::from_parts(ctx, {0, 1}, LatencySource::Measured), std::invalid_argument);
  auto unsorted = ctx;
  std::swap(unsorted[0].os_cpu, unsorted[1].os_cpu);
  EXPECT_THROW(Topology::from_parts(unsorted, lat, LatencySource::Measured), std::invalid_argument);
  auto split_core = ctx;
  split_core[1].socket = 1;
  EXPECT_THROW(Topology::from_parts(split_core, lat, LatencySource::Measured), std::invalid_argument);
  EXPECT_THROW(t.latency(0, 3), std::out_of_range);
}

TEST(Topology, ToStringAndJsonMentionTheStructure) {
  Topology t = Topology::from_hwloc_synthetic("pack:2 core:2 pu:2");
  std::string s = t.to_string();
  EXPECT_NE(s.find("8 contexts, 4 cores, 2 sockets"), std::string::npos) << s;
  EXPECT_NE(s.find("cross-socket"), std::string::npos) << s;
  std::string j = t.to_json();
  EXPECT_EQ(j.front(), '{');
  EXPECT_EQ(j.back(), '}');
  EXPECT_NE(j.find("\"latency_unit\":\"cycles\""), std::string::npos);
}
