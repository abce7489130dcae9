// MCTOP-ALG on real, imperfect machines (issue #13 part 4): the 16-vCPU KVM
// guest's table from data/, noisy variants of it, and made-up machines with
// noise, outliers, asymmetric entries and virtual NUMA nodes. Inference must
// give a valid topology with the groups the table justifies, name every pair
// that did not fit, and never throw on a well-formed table.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>

#include "latency_machines.hpp"
#include "weft/sched/latency_probe.hpp"
#include "weft/sched/latency_table_io.hpp"
#include "weft/sched/mctop_alg.hpp"

using namespace weft::sched;
using namespace weft::sched::testing;
using V = std::vector<int>;
using Pair = std::pair<int, int>;

namespace {

LatencyTable kvm16() { return load_latency_table(WEFT_SCHED_TEST_DATA "/latency-16cpu-kvm-xeon.txt").table; }

std::set<Pair> misfits(const AlgResult& r) {
  std::set<Pair> out;
  for (const auto& d : r.diagnostics)
    if (d.kind == InferenceDiagnostic::Kind::Misfit) out.insert({d.a, d.b});
  return out;
}

const InferenceDiagnostic* diagnostic(const AlgResult& r, InferenceDiagnostic::Kind kind, int a = -1, int b = -1) {
  for (const auto& d : r.diagnostics)
    if (d.kind == kind && d.a == a && d.b == b) return &d;
  return nullptr;
}

// A valid inference: every context in exactly one component per level, each
// level's components unions of the level below's, contexts of one component
// no further apart (in the result's table) than its level's latency, and the
// topology's own levels (computed from that table) partitions too.
void expect_valid(const AlgResult& r, int n) {
  const Topology& t = r.topology;
  ASSERT_EQ(t.num_contexts(), n);
  auto expect_partition = [n](const std::vector<std::vector<int>>& groups, double latency) {
    std::vector<int> seen(n, 0);
    for (const auto& g : groups)
      for (int c : g) ++seen.at(c);
    for (int c = 0; c < n; ++c) EXPECT_EQ(seen[c], 1) << "context " << c << " at the " << latency << "-cycle level";
  };
  const std::vector<std::vector<int>>* below = nullptr;
  for (int l = 0; l < static_cast<int>(r.levels.size()); ++l) {
    const AlgLevel& lv = r.levels[l];
    EXPECT_EQ(lv.components.empty(), l > r.socket_level) << "level " << l;
    if (lv.components.empty()) continue;
    expect_partition(lv.components, lv.cluster.median);
    std::vector<int> comp_of(n);
    for (size_t k = 0; k < lv.components.size(); ++k)
      for (int c : lv.components[k]) comp_of[c] = static_cast<int>(k);
    if (below) {
      for (const auto& g : *below)
        for (int c : g) EXPECT_EQ(comp_of[c], comp_of[g[0]]) << "level " << l << " splits a component below it";
    }
    for (const auto& g : lv.components)
      for (int a : g)
        for (int b : g) EXPECT_LE(t.latency(a, b), lv.cluster.median) << a << "," << b;
    below = &lv.components;
  }
  if (r.socket_level >= 0) {
    EXPECT_EQ(static_cast<int>(r.levels[r.socket_level].components.size()), t.num_sockets());
  }
  for (const auto& tl : t.levels()) expect_partition(tl.groups, tl.latency);
}

bool has_group(const AlgLevel& lv, const V& group) {
  return std::find(lv.components.begin(), lv.components.end(), group) != lv.components.end();
}

// The real table's shape: {9,11,13} at the first level, every other cpu on its
// own there, one flat socket level holding all 16.
void expect_kvm16_shape(const AlgResult& r) {
  expect_valid(r, 16);
  ASSERT_GE(r.levels.size(), 2u);
  EXPECT_EQ(r.levels[0].components.size(), 14u);
  EXPECT_TRUE(has_group(r.levels[0], V{9, 11, 13}));
  EXPECT_NEAR(r.levels[0].cluster.median, 76.5, 4);
  EXPECT_EQ(r.socket_level, 1);
  EXPECT_EQ(r.levels[1].role, LevelRole::Socket);
  EXPECT_EQ(r.levels[1].components.size(), 1u);
  EXPECT_EQ(r.topology.num_sockets(), 1);
  EXPECT_EQ(r.topology.num_cores(), 16);
  EXPECT_FALSE(r.smt);
  EXPECT_TRUE(misfits(r).count({9, 13}));
  EXPECT_FALSE(misfits(r).count({9, 11}));
  EXPECT_FALSE(misfits(r).count({11, 13}));
  // The runtime's view: 9, 11 and 13 are each other's nearest.
  EXPECT_EQ(r.topology.levels()[0].groups.size(), 14u);
  EXPECT_LT(r.topology.latency(9, 13), r.topology.latency(9, 10));
}

}  // namespace

// The table on which `weft-topo infer` stopped ("reduction failed at level 1").
TEST(MctopAlgImperfect, RealKvmGuestTable) {
  AlgResult r = infer_topology(kvm16(), AlgOptions{});
  expect_kvm16_shape(r);
  EXPECT_EQ(misfits(r), (std::set<Pair>{{9, 13}}));
  const InferenceDiagnostic* d = diagnostic(r, InferenceDiagnostic::Kind::Misfit, 9, 13);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->measured, 306);
  EXPECT_EQ(d->resolved, 76.5);
  EXPECT_NE(d->message.find("cpus 9 and 13 measured 306 cycles"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("{9,11,13}"), std::string::npos) << d->message;
  const InferenceDiagnostic* level = diagnostic(r, InferenceDiagnostic::Kind::LevelResolved);
  ASSERT_NE(level, nullptr);
  EXPECT_NE(level->message.find("majority linkage"), std::string::npos) << level->message;
  EXPECT_EQ(r.topology.latency(9, 13), 76.5);
  EXPECT_EQ(r.topology.latency(0, 1), r.levels[1].cluster.median);
  EXPECT_NE(r.topology.description().find("1 misfit pair(s) resolved"), std::string::npos);
}

TEST(MctopAlgImperfect, RealKvmGuestTableWithMultiplicativeNoise) {
  for (double noise : {0.02, 0.05})
    for (unsigned seed = 1; seed <= 6; ++seed) {
      SCOPED_TRACE("noise " + std::to_string(noise) + " seed " + std::to_string(seed));
      AlgResult r = infer_topology(with_noise(kvm16(), noise, seed), AlgOptions{});
      expect_kvm16_shape(r);
    }
}

// High outliers (a pair measured while something else ran): each is named
// and resolved to the flat level; the structure does not change.
TEST(MctopAlgImperfect, RealKvmGuestTableWithOutliers) {
  const std::set<Pair> outliers = {{0, 1}, {2, 14}, {3, 8}, {5, 12}, {7, 15}};
  LatencyTable t = kvm16();
  double factor = 2;
  for (auto [a, b] : outliers) set_pair(t, a, b, t.at(a, b) * (factor += 0.25));
  AlgResult r = infer_topology(t, AlgOptions{});
  expect_kvm16_shape(r);
  std::set<Pair> expected = outliers;
  expected.insert({9, 13});
  EXPECT_EQ(misfits(r), expected);
  for (auto [a, b] : outliers) {
    const InferenceDiagnostic* d = diagnostic(r, InferenceDiagnostic::Kind::Misfit, a, b);
    ASSERT_NE(d, nullptr);
    EXPECT_GT(d->measured, 2 * d->resolved);
    EXPECT_EQ(r.topology.latency(a, b), r.levels[1].cluster.median);
  }
}

// Both triangles measured, a few disagreeing: the lower value is used, and
// each such pair is named.
TEST(MctopAlgImperfect, RealKvmGuestTableWithAsymmetricEntries) {
  LatencyTable t = kvm16();
  t.at(11, 9) = 290;   // the near pair measured far one way
  t.at(0, 4) = 900;    // an outlier one way
  t.at(6, 2) = 250;    // within the clustering gap of 231: averaged, not reported
  AlgResult r = infer_topology(t, AlgOptions{});
  expect_kvm16_shape(r);
  const InferenceDiagnostic* d = diagnostic(r, InferenceDiagnostic::Kind::Asymmetric, 9, 11);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->measured, 76);
  EXPECT_NE(d->message.find("used the lower, 76"), std::string::npos) << d->message;
  ASSERT_NE(diagnostic(r, InferenceDiagnostic::Kind::Asymmetric, 0, 4), nullptr);
  EXPECT_EQ(diagnostic(r, InferenceDiagnostic::Kind::Asymmetric, 2, 6), nullptr);
  EXPECT_EQ(misfits(r), (std::set<Pair>{{9, 13}}));
}

// A perfectly flat machine is a clean table: one level, nothing to report.
TEST(MctopAlgImperfect, FlatMachine) {
  for (double noise : {0.0, 0.05}) {
    AlgResult r = infer_topology(make_table(flat(16, 250), noise, 3), AlgOptions{});
    expect_valid(r, 16);
    EXPECT_TRUE(r.uniform());
    ASSERT_EQ(r.levels.size(), 1u);
    EXPECT_EQ(r.levels[0].role, LevelRole::Socket);
    EXPECT_EQ(r.topology.num_sockets(), 1);
    EXPECT_EQ(r.topology.num_cores(), 16);
  }
}

// Two sockets with noise, a cross-socket pair measured at the intra-socket
// latency (it must not chain the sockets together), an intra-socket pair
// measured cross-socket, and an asymmetric pair whose lower value is wrong.
TEST(MctopAlgImperfect, TwoSocketsWithNoiseAndOutliers) {
  const Spec s = two_sockets(8);
  AlgOptions o;
  o.num_nodes = 2;
  for (unsigned seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    LatencyTable t = make_table(s, 0.04, seed);
    AlgResult clean = infer_topology(t, o);
    EXPECT_TRUE(clean.uniform());
    expect_structure(clean, s, 2, 16);
    set_pair(t, 0, 8, 110);
    set_pair(t, 1, 2, 300);
    t.at(3, 12) = 300;
    t.at(12, 3) = 110;
    AlgResult r = infer_topology(t, o);
    expect_valid(r, 16);
    expect_structure(r, s, 2, 16);
    EXPECT_EQ(misfits(r), (std::set<Pair>{{0, 8}, {1, 2}, {3, 12}}));
    EXPECT_NE(diagnostic(r, InferenceDiagnostic::Kind::Asymmetric, 3, 12), nullptr);
    const InferenceDiagnostic* d = diagnostic(r, InferenceDiagnostic::Kind::Misfit, 0, 8);
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("most pairs between their sockets"), std::string::npos) << d->message;
    EXPECT_NEAR(r.topology.latency(0, 8), 300, 15);
    EXPECT_NEAR(r.topology.latency(1, 2), 110, 6);
  }
}

// SMT (guessed from the latencies, §7.3.4) with noise and outliers.
TEST(MctopAlgImperfect, SmtMachineWithNoiseAndOutliers) {
  AlgOptions o;
  o.num_nodes = 2;
  for (unsigned seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    LatencyTable t = make_table(ivy(), 0.05, seed);
    set_pair(t, 0, 1, 308);    // other core, same socket, measured cross-socket
    set_pair(t, 2, 12, 112);   // cross-socket measured as same socket
    set_pair(t, 4, 30, 1000);  // far above every level
    AlgResult r = infer_topology(t, o);
    expect_valid(r, 40);
    EXPECT_TRUE(r.smt);
    expect_structure(r, ivy(), 2, 20);
    EXPECT_EQ(r.levels[0].role, LevelRole::Core);
    EXPECT_EQ(misfits(r), (std::set<Pair>{{0, 1}, {2, 12}, {4, 30}}));
    // The 1000-cycle cluster matches no level: no cross-socket level for it.
    for (const auto& lv : r.levels) EXPECT_LT(lv.cluster.median, 500);
  }
}

// A VM with two virtual NUMA nodes over uniform vCPUs: no latency level
// separates the nodes, so the sockets follow the OS's node of each cpu.
TEST(MctopAlgImperfect, VirtualNumaNodesOverAFlatMachine) {
  AlgOptions o;
  o.num_nodes = 2;
  for (int i = 0; i < 16; ++i) o.os_node_of_row.push_back(i < 8 ? 0 : 1);
  AlgResult r = infer_topology(with_noise(kvm16(), 0.02, 9), o);
  expect_valid(r, 16);
  EXPECT_EQ(r.topology.num_sockets(), 2);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(r.topology.node_of(i), i < 8 ? 0 : 1);
    EXPECT_EQ(r.topology.socket_of(i), i < 8 ? 0 : 1);
  }
  const InferenceDiagnostic* d = diagnostic(r, InferenceDiagnostic::Kind::NodeCount);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("split by the OS node"), std::string::npos) << d->message;
  // {9,11,13} spans no node boundary and is kept.
  EXPECT_TRUE(has_group(r.levels[0], V{9, 11, 13}));
}

// SMT needs a structure: every cpu close to a sibling. A lone close pair (a
// VM host running two vCPUs on one core during that pair's measurement, seen
// on a 16-vCPU KVM guest: cpus 4 and 8 at 26 cycles, the rest 152-286) is not
// one, and neither is the KVM table's close trio among 16.
TEST(MctopAlgImperfect, SmtNeedsEveryCpuToHaveACloseSibling) {
  LatencyTable lone = make_table(flat(16, 222), 0.0, 1);
  lone.at(4, 8) = lone.at(8, 4) = 26;
  const std::string why = smt_implausible_reason(lone);
  EXPECT_NE(why.find("cpus 4 and 8 measured 26 cycles"), std::string::npos) << why;
  EXPECT_NE(why.find("14 of 16 cpus"), std::string::npos) << why;

  EXPECT_FALSE(smt_implausible_reason(kvm16()).empty());

  for (unsigned seed = 1; seed <= 5; ++seed)
    EXPECT_EQ(smt_implausible_reason(make_table(ivy(), 0.05, seed)), "") << "seed " << seed;
  // A necessary condition only: on a flat table every cpu is as close to all
  // others, and the spin test decides.
  EXPECT_EQ(smt_implausible_reason(make_table(flat(8, 100), 0.05, 1)), "");
}
