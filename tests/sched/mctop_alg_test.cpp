#include "weft/sched/mctop_alg.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <set>

#include "weft/sched/cpuset.hpp"
#include "weft/sched/latency_probe.hpp"

using namespace weft::sched;
using V = std::vector<int>;

namespace {

// A machine described by, for each context: core, socket; latency by relation.
struct Spec {
  int n;
  std::function<int(int)> core, socket, die;
  double smt, die_lat, socket_lat;
  std::function<double(int, int)> cross;  // socket-to-socket
};

LatencyTable make_table(const Spec& s, double noise, unsigned seed, bool one_triangle = false) {
  LatencyTable t;
  for (int i = 0; i < s.n; ++i) t.os_cpus.push_back(i);
  t.values.assign(static_cast<size_t>(s.n) * s.n, 0);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(1 - noise, 1 + noise);
  for (int a = 0; a < s.n; ++a)
    for (int b = 0; b < s.n; ++b) {
      if (a == b || (one_triangle && b < a)) continue;
      double v = s.core(a) == s.core(b)       ? s.smt
                 : s.socket(a) != s.socket(b) ? s.cross(s.socket(a), s.socket(b))
                 : s.die(a) == s.die(b)       ? s.die_lat
                                              : s.socket_lat;
      t.at(a, b) = v * d(rng);
    }
  return t;
}

// Ivy, Linux numbering: cpu i and i+20 are SMT siblings; cpus 0-9, 20-29 on socket 0.
Spec ivy() {
  return {40, [](int i) { return i % 20; }, [](int i) { return (i % 20) / 10; }, [](int i) { return (i % 20) / 10; },
          28, 112, 112, [](int, int) { return 308.0; }};
}
// Opteron: 4 MCMs x 2 dies x 6 cores, a die is a memory node; dies of one MCM
// 200 apart, other MCMs one hop (300) or two hops (420) away.
Spec opteron() {
  return {48, [](int i) { return i; }, [](int i) { return i / 6; }, [](int i) { return i / 6; }, 0, 120, 120,
          [](int a, int b) { return a / 2 == b / 2 ? 200.0 : ((a / 2) ^ (b / 2)) == 3 ? 420.0 : 300.0; }};
}
// Westmere: 8 sockets x 10 cores x SMT-2 (cpu i and i+80 siblings), twisted
// hypercube: sockets one hop (250) or two hops (350) apart.
Spec westmere() {
  return {160, [](int i) { return i % 80; }, [](int i) { return (i % 80) / 10; }, [](int i) { return (i % 80) / 10; },
          30, 110, 110, [](int a, int b) { return __builtin_popcount(a ^ b) == 1 ? 250.0 : 350.0; }};
}

void expect_structure(const AlgResult& r, const Spec& s, int sockets, int cores) {
  const Topology& t = r.topology;
  ASSERT_EQ(t.num_contexts(), s.n);
  EXPECT_EQ(t.num_sockets(), sockets);
  EXPECT_EQ(t.num_cores(), cores);
  for (int a = 0; a < s.n; ++a)
    for (int b = 0; b < s.n; ++b) {
      EXPECT_EQ(t.core_of(a) == t.core_of(b), s.core(a) == s.core(b)) << a << "," << b;
      EXPECT_EQ(t.socket_of(a) == t.socket_of(b), s.socket(a) == s.socket(b)) << a << "," << b;
    }
}

}  // namespace

TEST(MctopAlg, ClustersAreMinMedianMax) {
  auto c = cluster_latencies({110, 300, 112, 4, 115, 5, 310, 305});
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].min, 4);
  EXPECT_EQ(c[0].max, 5);
  EXPECT_EQ(c[1].median, 112);
  EXPECT_EQ(c[1].count, 3);
  EXPECT_EQ(c[2].min, 300);
  EXPECT_EQ(c[2].max, 310);
}

TEST(MctopAlg, IvyExact) {
  AlgOptions o;
  o.num_nodes = 2;
  o.smt = true;
  AlgResult r = infer_topology(make_table(ivy(), 0, 1), o);
  expect_structure(r, ivy(), 2, 20);
  ASSERT_EQ(r.levels.size(), 3u);
  EXPECT_EQ(r.levels[0].role, LevelRole::Core);
  EXPECT_EQ(r.levels[0].cluster.median, 28);
  EXPECT_EQ(r.levels[1].role, LevelRole::Socket);
  EXPECT_EQ(r.levels[2].role, LevelRole::CrossSocket);
  EXPECT_EQ(r.socket_level, 1);
  EXPECT_EQ(r.topology.core_contexts(r.topology.core_of(3)), (V{3, 23}));
  EXPECT_EQ(r.topology.latency(0, 20), 28);
  EXPECT_EQ(r.topology.latency(0, 10), 308);
  EXPECT_EQ(r.topology.latency_source(), LatencySource::Measured);
}

TEST(MctopAlg, IvyWithNoiseOneTriangleAndSmtGuessed) {
  for (unsigned seed : {1u, 2u, 3u}) {
    AlgOptions o;
    o.num_nodes = 2;
    AlgResult r = infer_topology(make_table(ivy(), 0.05, seed, true), o);
    EXPECT_TRUE(r.smt);
    expect_structure(r, ivy(), 2, 20);
    ASSERT_EQ(r.clusters.size(), 3u);
    EXPECT_NEAR(r.clusters[2].median, 308, 308 * 0.01);
    // Normalized: every entry is its cluster's median.
    EXPECT_EQ(r.topology.latency(0, 10), r.topology.latency(5, 39));
  }
}

TEST(MctopAlg, OpteronDiesAreTheSocketsOfEightNodes) {
  for (double noise : {0.0, 0.04}) {
    AlgOptions o;
    o.num_nodes = 8;
    o.smt = false;
    AlgResult r = infer_topology(make_table(opteron(), noise, 7), o);
    expect_structure(r, opteron(), 8, 48);
    EXPECT_EQ(r.levels[r.socket_level].role, LevelRole::Socket);
    // Cross-socket connectivity: 200 (same MCM), 300 (one hop), 420 (two hops).
    int cross = 0;
    for (const auto& l : r.levels) cross += l.role == LevelRole::CrossSocket;
    EXPECT_EQ(cross, 3);
    EXPECT_NEAR(r.topology.socket_latency(0, 1), 200, 10);
    EXPECT_NEAR(r.topology.socket_latency(0, 7), 420, 20);
  }
}

TEST(MctopAlg, OpteronOsNodeMappingIsCorrectedByMemoryLatency) {
  AlgOptions o;
  o.num_nodes = 8;
  o.smt = false;
  // The OS maps the 48 cores to 4 of the 8 nodes ([L2014]).
  for (int i = 0; i < 48; ++i) o.os_node_of_row.push_back((i / 12) * 2);
  AlgResult wrong = infer_topology(make_table(opteron(), 0, 1), o);
  EXPECT_EQ(wrong.topology.node_of(6), 0);  // majority vote keeps the OS's mistake
  o.node_ids = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int s = 0; s < 8; ++s) {
    std::vector<double> row(8, 250);
    row[s] = 90;
    o.socket_node_latency.push_back(row);
  }
  AlgResult right = infer_topology(make_table(opteron(), 0, 1), o);
  for (int i = 0; i < 48; ++i) EXPECT_EQ(right.topology.node_of(i), i / 6);
  EXPECT_EQ(right.topology.num_nodes(), 8);
}

TEST(MctopAlg, WestmereWithNoise) {
  AlgOptions o;
  o.num_nodes = 8;
  AlgResult r = infer_topology(make_table(westmere(), 0.05, 11), o);
  EXPECT_TRUE(r.smt);
  expect_structure(r, westmere(), 8, 80);
  EXPECT_EQ(r.topology.core_contexts(r.topology.core_of(0)), (V{0, 80}));
  EXPECT_EQ(r.topology.socket_contexts(r.topology.socket_of(0)).size(), 20u);
}

TEST(MctopAlg, SpuriousMeasurementMakesReductionFail) {
  LatencyTable t = make_table(ivy(), 0.02, 5);
  t.at(0, 1) = t.at(1, 0) = 308;  // two contexts of one socket look cross-socket
  AlgOptions o;
  o.num_nodes = 2;
  o.smt = true;
  try {
    infer_topology(t, o);
    FAIL() << "no exception";
  } catch (const InferenceError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("reduction failed at level"), std::string::npos) << m;
    EXPECT_NE(m.find("more repetitions"), std::string::npos) << m;
  }
}

TEST(MctopAlg, WrongNodeCountIsReported) {
  AlgOptions o;
  o.num_nodes = 3;
  o.smt = true;
  EXPECT_THROW(infer_topology(make_table(ivy(), 0, 1), o), InferenceError);
}

TEST(MctopAlg, SingleSocketNoSmt) {
  Spec s{4, [](int i) { return i; }, [](int) { return 0; }, [](int) { return 0; }, 0, 100, 100,
         [](int, int) { return 0.0; }};
  AlgResult r = infer_topology(make_table(s, 0.03, 2), AlgOptions{});
  EXPECT_FALSE(r.smt);
  EXPECT_EQ(r.topology.num_sockets(), 1);
  EXPECT_EQ(r.topology.num_cores(), 4);
}

TEST(MctopAlg, PairStatsMedianAndPercentileStdev) {
  PairStats st = pair_stats({100, 100, 100, 100, 100, 100, 100, 100, 100, 5000});
  EXPECT_EQ(st.median, 100);
  EXPECT_EQ(st.stdev_pct, 0);  // the outlier is above the 90th percentile
  PairStats wide = pair_stats({50, 100, 150, 50, 100, 150, 50, 100, 150, 100});
  EXPECT_GT(wide.stdev_pct, 0.07);
}

// Runs the real measurement on two allowed cpus when there are two; checks
// shape, not timing.
TEST(MctopAlg, MeasureThisMachineSmoke) {
  std::vector<int> cpus = weft::sched::allowed_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two cpus";
  cpus.resize(2);
  ProbeOptions po;
  po.repetitions = 200;
  int calls = 0;
  po.progress = [&](int done, int total) {
    ++calls;
    EXPECT_LE(done, total);
  };
  LatencyTable t = measure_latency_table(cpus, po);
  EXPECT_EQ(calls, 1);
  EXPECT_GT(t.at(0, 1), 0);
  EXPECT_EQ(t.at(0, 1), t.at(1, 0));
  EXPECT_EQ(t.at(0, 0), 0);
}
