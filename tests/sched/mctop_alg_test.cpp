#include "weft/sched/mctop_alg.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "latency_machines.hpp"
#include "pair_samples.hpp"
#include "weft/sched/cpuset.hpp"
#include "weft/sched/latency_probe.hpp"

using namespace weft::sched;
using namespace weft::sched::testing;
using V = std::vector<int>;

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
  EXPECT_TRUE(r.uniform());  // a clean table: the thesis's path, nothing resolved
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
    EXPECT_TRUE(r.uniform());
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
    EXPECT_TRUE(r.uniform());
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
  // The OS maps the 48 cores to 4 of the 8 nodes (thesis §7.1).
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
  EXPECT_TRUE(r.uniform());
  EXPECT_TRUE(r.smt);
  expect_structure(r, westmere(), 8, 80);
  EXPECT_EQ(r.topology.core_contexts(r.topology.core_of(0)), (V{0, 80}));
  EXPECT_EQ(r.topology.socket_contexts(r.topology.socket_of(0)).size(), 20u);
}

// Where §7.3.5 stops ("the reduction cannot be performed"), weft reports the
// level and the pair, and resolves them: the spurious pair is a misfit.
TEST(MctopAlg, SpuriousMeasurementIsReportedAndResolved) {
  LatencyTable t = make_table(ivy(), 0.02, 5);
  set_pair(t, 0, 1, 308);  // two contexts of one socket look cross-socket
  AlgOptions o;
  o.num_nodes = 2;
  o.smt = true;
  AlgResult r = infer_topology(t, o);
  expect_structure(r, ivy(), 2, 20);
  EXPECT_FALSE(r.uniform());
  int resolved_levels = 0, misfits = 0;
  for (const auto& d : r.diagnostics) {
    if (d.kind == InferenceDiagnostic::Kind::LevelResolved) {
      ++resolved_levels;
      EXPECT_NE(d.message.find("§7.3.5 stops here"), std::string::npos) << d.message;
    }
    if (d.kind == InferenceDiagnostic::Kind::Misfit) {
      ++misfits;
      EXPECT_EQ(d.a, 0);
      EXPECT_EQ(d.b, 1);
      EXPECT_EQ(d.measured, 308);
      EXPECT_EQ(d.resolved, r.levels[r.socket_level].cluster.median);
      EXPECT_NE(d.message.find("cpus 0 and 1 measured 308 cycles"), std::string::npos) << d.message;
    }
  }
  EXPECT_GE(resolved_levels, 1);
  EXPECT_EQ(misfits, 1);
  EXPECT_EQ(r.topology.latency(0, 1), r.topology.latency(0, 2));  // resolved to the socket's latency
}

// More memory nodes than the latencies show: the sockets are the last level's
// components, and the diagnostic says so.
TEST(MctopAlg, WrongNodeCountIsReported) {
  AlgOptions o;
  o.num_nodes = 3;
  o.smt = true;
  AlgResult r = infer_topology(make_table(ivy(), 0, 1), o);
  EXPECT_EQ(r.topology.num_sockets(), 2);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, InferenceDiagnostic::Kind::NodeCount);
  EXPECT_NE(r.diagnostics[0].message.find("no latency level has 3 components"), std::string::npos)
      << r.diagnostics[0].message;
}

// Only malformed input is an error, and the message names the problem.
TEST(MctopAlg, MalformedInputIsAnErrorNamingTheProblem) {
  auto expect_error = [](const LatencyTable& t, const AlgOptions& o, const std::string& what) {
    try {
      infer_topology(t, o);
      ADD_FAILURE() << "accepted; expected an error with \"" << what << "\"";
    } catch (const InferenceError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const LatencyTable good = make_table(flat(4, 100), 0, 1);
  LatencyTable t = good;
  t.values.pop_back();
  expect_error(t, {}, "15 values for 4 contexts");
  t = good;
  t.at(1, 2) = -5;
  expect_error(t, {}, "latency of cpu 1 to cpu 2 (row 1, column 2) is -5");
  t = good;
  t.at(3, 0) = std::numeric_limits<double>::quiet_NaN();
  expect_error(t, {}, "is nan");
  t = good;
  t.at(0, 3) = std::numeric_limits<double>::infinity();
  expect_error(t, {}, "is inf");
  t = good;
  set_pair(t, 0, 2, 0);
  expect_error(t, {}, "no latency between cpu 0 to cpu 2");
  t = good;
  t.os_cpus = {0, 2, 2, 3};
  expect_error(t, {}, "ascending order (row 2 is cpu 2)");
  AlgOptions o;
  o.num_nodes = 5;
  expect_error(good, o, "number of memory nodes 5 must be in [1, 4]");
  o = {};
  o.os_node_of_row = {0, 0};
  expect_error(good, o, "os_node_of_row has 2 entries for 4 contexts");
  expect_error(LatencyTable{}, {}, "empty latency table");
  // One triangle is enough (the other 0 = not measured).
  t = good;
  t.at(2, 1) = 0;
  EXPECT_NO_THROW(infer_topology(t, {}));
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

// The probe's sanity floor: a "transfer" cheaper than most local CASes is
// rejected with the numbers, not returned as a latency.
TEST(MctopAlg, ProbeRejectsATransferCheaperThanALocalCas) {
  ProbeCalibration cal;
  cal.os_cpu = 3;
  cal.local_cas = 12;
  cal.local_cas_p10 = 10;
  PairStats st;
  st.median = 9;
  try {
    check_transfer(st, cal, 5);
    FAIL() << "accepted";
  } catch (const ProbeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("cpu 3 took 9 cycles"), std::string::npos) << m;
    EXPECT_NE(m.find("cannot have come from cpu 5"), std::string::npos) << m;
  }
  st.median = 10;
  EXPECT_NO_THROW(check_transfer(st, cal, 5));
}

// Calibration and the ping-pong cross-check on this machine: shape, not timing.
TEST(MctopAlg, CalibrationAndPingPongSmoke) {
  std::vector<int> cpus = weft::sched::allowed_cpus();
  ProbeCalibration cal = calibrate_probe(cpus[0]);
  EXPECT_EQ(cal.os_cpu, cpus[0]);
  EXPECT_GT(cal.timer_overhead, 0);
  EXPECT_LE(cal.local_cas_p10, cal.local_cas);
  EXPECT_GT(cal.tsc_per_ns, 0);
  if (cpus.size() < 2) GTEST_SKIP() << "needs two cpus";
  PingPongOptions pp;
  pp.round_trips = 200;
  pp.runs = 2;
  EXPECT_GT(measure_pingpong(cpus[0], cpus[1], pp), 0);
  EXPECT_THROW(measure_pingpong(cpus[0], cpus[0], pp), std::invalid_argument);
}
