// Expected placements below were derived by hand from the policy definitions
// in placement.hpp (thesis Table 7.2) and are written out literally.
#include "weft/sched/placement.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <string>

#include "ivy_machine.hpp"

using namespace weft::sched;
using weft::sched::testing::ivy_linux_numbering;
using V = std::vector<int>;

namespace {
V range(int from, int to, int step = 1) {
  V v;
  for (int i = from; i < to; i += step) v.push_back(i);
  return v;
}
V cat(std::initializer_list<V> parts) {
  V out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
// 2 sockets x 10 cores x 2 SMT, hwloc numbering: core c = contexts {2c, 2c+1},
// socket 0 = contexts 0..19, socket 1 = 20..39.
const Topology& ivy() {
  static Topology t = Topology::from_hwloc_synthetic("pack:2 core:10 pu:2");
  return t;
}
const Topology& quad() {  // 4 sockets x 8 cores, one node each
  static Topology t = Topology::from_hwloc_synthetic("pack:4 [numa] core:8 pu:1");
  return t;
}
const Topology& opteron() {  // 8 sockets of 6 cores in 2 dies of 3
  static Topology t = Topology::from_hwloc_synthetic("pack:8 die:2 core:3 pu:1");
  return t;
}
V ctxs(const Topology& t, Policy p, int n, int sockets = 0) { return place(t, p, n, sockets).contexts; }
}  // namespace

TEST(Placement, ParsePolicyNames) {
  EXPECT_EQ(parse_policy("CON_HWC"), Policy::ConHwc);
  EXPECT_EQ(parse_policy("con-core-hwc"), Policy::ConCoreHwc);
  EXPECT_EQ(parse_policy("MCTOP_PLACE_RR_CORE"), Policy::RrCore);
  EXPECT_EQ(parse_policy("rr"), Policy::RrCore);
  EXPECT_EQ(parse_policy("balance"), Policy::BalanceCore);
  EXPECT_EQ(all_policies().size(), 12u);
  for (Policy p : all_policies()) EXPECT_EQ(parse_policy(to_string(p)), p);
}

TEST(Placement, BadPolicyNameListsTheValidOnes) {
  try {
    parse_policy("CON_SOCKETZ");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("\"CON_SOCKETZ\""), std::string::npos) << m;
    for (Policy p : all_policies()) EXPECT_NE(m.find(std::string(to_string(p))), std::string::npos) << m;
  }
  EXPECT_THROW(parse_policy(""), std::invalid_argument);
}

TEST(Placement, IvyThirtyThreadsEveryPolicy) {
  const Topology& t = ivy();
  EXPECT_EQ(ctxs(t, Policy::Sequential, 30), range(0, 30));
  Placement none = place(t, Policy::None, 30);
  EXPECT_FALSE(none.pinned);
  EXPECT_EQ(none.contexts, range(0, 30));
  EXPECT_EQ(ctxs(t, Policy::ConHwc, 30), range(0, 30));
  EXPECT_EQ(ctxs(t, Policy::Power, 30), range(0, 30));
  EXPECT_EQ(ctxs(t, Policy::ConCoreHwc, 30), cat({range(0, 20, 2), range(1, 20, 2), range(20, 40, 2)}));
  EXPECT_EQ(ctxs(t, Policy::ConCore, 30), cat({range(0, 20, 2), range(20, 40, 2), range(1, 20, 2)}));
  EXPECT_EQ(ctxs(t, Policy::BalanceHwc, 30), cat({range(0, 15), range(20, 35)}));
  EXPECT_EQ(ctxs(t, Policy::BalanceCoreHwc, 30),
            cat({range(0, 20, 2), V{1, 3, 5, 7, 9}, range(20, 40, 2), V{21, 23, 25, 27, 29}}));
  EXPECT_EQ(ctxs(t, Policy::BalanceCore, 30),
            cat({range(0, 20, 2), range(20, 40, 2), V{1, 3, 5, 7, 9}, V{21, 23, 25, 27, 29}}));
  V rr_hwc;
  for (int i = 0; i < 15; ++i) rr_hwc.insert(rr_hwc.end(), {i, 20 + i});
  EXPECT_EQ(ctxs(t, Policy::RrHwc, 30), rr_hwc);
  V rr_core;
  for (int i = 0; i < 20; i += 2) rr_core.insert(rr_core.end(), {i, 20 + i});
  for (int i = 1; i < 10; i += 2) rr_core.insert(rr_core.end(), {i, 20 + i});
  EXPECT_EQ(ctxs(t, Policy::RrCore, 30), rr_core);
}

TEST(Placement, IvyTwelveThreadsConVersusBalance) {
  const Topology& t = ivy();
  EXPECT_EQ(ctxs(t, Policy::ConHwc, 12), range(0, 12));
  EXPECT_EQ(ctxs(t, Policy::ConCoreHwc, 12), cat({range(0, 20, 2), V{1, 3}}));
  EXPECT_EQ(ctxs(t, Policy::ConCore, 12), cat({range(0, 20, 2), V{20, 22}}));
  EXPECT_EQ(ctxs(t, Policy::BalanceHwc, 12), range(0, 12));  // fits one socket
  EXPECT_EQ(ctxs(t, Policy::BalanceCoreHwc, 12), cat({range(0, 20, 2), V{1, 3}}));
  EXPECT_EQ(ctxs(t, Policy::BalanceCore, 12), cat({range(0, 12, 2), range(20, 32, 2)}));  // 12 > 10 cores
  EXPECT_EQ(ctxs(t, Policy::RrHwc, 4), (V{0, 20, 1, 21}));
  EXPECT_EQ(ctxs(t, Policy::RrCore, 4), (V{0, 20, 2, 22}));
}

TEST(Placement, IvyFig75SummaryWithLinuxNumbering) {
  Topology t = ivy_linux_numbering();
  Placement p = place(t, Policy::ConHwc, 30);
  V expect;
  for (int i = 0; i < 10; ++i) expect.insert(expect.end(), {i, i + 20});
  for (int i = 10; i < 15; ++i) expect.insert(expect.end(), {i, i + 20});
  EXPECT_EQ(p.contexts, expect);  // "0 20 1 21 2 22 3 ..." as in Fig 7.5
  EXPECT_EQ(p.num_cores(t), 15);
  EXPECT_EQ(p.sockets, (V{0, 1}));
  EXPECT_EQ(p.max_latency, 308);
  std::string s = p.summary(t);
  EXPECT_NE(s.find("CON_HWC"), std::string::npos) << s;
  EXPECT_NE(s.find("# #Cores           : 15"), std::string::npos) << s;
  EXPECT_NE(s.find("HW contexts (30)  : 0 20 1 21 2 22"), std::string::npos) << s;
  EXPECT_NE(s.find("#HW ctx / socket : 20 10"), std::string::npos) << s;
  EXPECT_NE(s.find("#Cores / socket  : 10 5"), std::string::npos) << s;
  EXPECT_NE(s.find("Max latency      : 308 cycles"), std::string::npos) << s;
  // With bandwidth, the summary shows proportions (20 of 20 vs 10 of 20 contexts).
  Topology rich = t.with_memory(0, {80, 30, 6}).with_memory(1, {80, 30, 6});
  std::string r = place(rich, Policy::ConHwc, 30).summary(rich);
  EXPECT_NE(r.find("BW proportions   : 0.667 0.333"), std::string::npos) << r;
  EXPECT_NE(r.find("Min bandwidth    : 30.00 GB/s"), std::string::npos) << r;
}

TEST(Placement, NonSmtMachineHwcCoreHwcAndCoreCoincide) {
  const Topology& t = quad();
  for (Policy p : {Policy::ConHwc, Policy::ConCoreHwc, Policy::ConCore})
    EXPECT_EQ(ctxs(t, p, 12), range(0, 12)) << to_string(p);
  for (Policy p : {Policy::BalanceHwc, Policy::BalanceCoreHwc, Policy::BalanceCore})
    EXPECT_EQ(ctxs(t, p, 12), cat({range(0, 6), range(8, 14)})) << to_string(p);
  for (Policy p : {Policy::RrHwc, Policy::RrCore})
    EXPECT_EQ(ctxs(t, p, 12), (V{0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26})) << to_string(p);
  EXPECT_EQ(ctxs(t, Policy::BalanceCore, 20), cat({range(0, 7), range(8, 15), range(16, 22)}));
  EXPECT_EQ(place(t, Policy::RrCore, 12).sockets, (V{0, 1, 2, 3}));
  EXPECT_EQ(place(t, Policy::ConHwc, 12).sockets, (V{0, 1}));
}

TEST(Placement, BandwidthPicksTheStartSocketAndRrOrder) {
  Topology t = quad().with_memory(0, {90, 20, 5}).with_memory(1, {90, 30, 5}).with_memory(2, {90, 50, 10})
                   .with_memory(3, {90, 10, 4});
  // CON: start at node 2's socket, then the equally distant neighbours by bandwidth: 1, 0, 3.
  EXPECT_EQ(ctxs(t, Policy::ConHwc, 10), cat({range(16, 24), V{8, 9}}));
  EXPECT_EQ(place(t, Policy::ConHwc, 30).sockets, (V{2, 1, 0, 3}));
  // RR: sockets by local bandwidth 2, 1, 0, 3.
  EXPECT_EQ(ctxs(t, Policy::RrCore, 6), (V{16, 8, 0, 24, 17, 9}));
  // RR_SCALE caps each socket at ceil(bw/bw1): s2 5, s1 6, s0 4, s3 3 -> 18 threads.
  Placement s = place(t, Policy::RrScale, 32);
  EXPECT_EQ(s.requested, 32);
  EXPECT_EQ(s.contexts, (V{16, 8, 0, 24, 17, 9, 1, 25, 18, 10, 2, 26, 19, 11, 3, 20, 12, 13}));
  EXPECT_EQ(ctxs(t, Policy::RrScale, 5), (V{16, 8, 0, 24, 17}));
  EXPECT_NE(s.summary(t).find("Requested        : 32 threads, placed 18"), std::string::npos) << s.summary(t);
}

TEST(Placement, RrScaleWithoutBandwidthIsRefused) {
  try {
    place(quad(), Policy::RrScale, 4);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bandwidth"), std::string::npos) << e.what();
  }
}

TEST(Placement, OpteronEightSocketsOfTwoDies) {
  const Topology& t = opteron();
  for (Policy p : {Policy::ConHwc, Policy::ConCoreHwc, Policy::ConCore, Policy::Power, Policy::Sequential})
    EXPECT_EQ(ctxs(t, p, 8), range(0, 8)) << to_string(p);
  for (Policy p : {Policy::BalanceHwc, Policy::BalanceCoreHwc, Policy::BalanceCore})
    EXPECT_EQ(ctxs(t, p, 8), (V{0, 1, 2, 3, 6, 7, 8, 9})) << to_string(p);
  EXPECT_EQ(ctxs(t, Policy::BalanceCore, 20), cat({range(0, 5), range(6, 11), range(12, 17), range(18, 23)}));
  EXPECT_EQ(ctxs(t, Policy::RrHwc, 8), (V{0, 6, 12, 18, 24, 30, 36, 42}));
  EXPECT_EQ(ctxs(t, Policy::RrCore, 10), (V{0, 6, 12, 18, 24, 30, 36, 42, 1, 7}));
  EXPECT_EQ(place(t, Policy::ConHwc, 3).max_latency, 42);  // one die
  EXPECT_EQ(place(t, Policy::ConHwc, 6).max_latency, 112);
  EXPECT_EQ(place(t, Policy::ConHwc, 7).max_latency, 308);
  EXPECT_EQ(ctxs(t, Policy::ConHwc, 48), range(0, 48));
}

TEST(Placement, SocketLimit) {
  EXPECT_EQ(ctxs(quad(), Policy::RrCore, 4, 2), (V{0, 8, 1, 9}));
  EXPECT_EQ(ctxs(ivy(), Policy::ConCore, 12, 1), cat({range(0, 20, 2), V{1, 3}}));
  EXPECT_THROW(place(quad(), Policy::ConHwc, 9, 1), std::invalid_argument);
  EXPECT_THROW(place(quad(), Policy::ConHwc, 4, 5), std::invalid_argument);
}

TEST(Placement, TooManyThreadsIsRefusedWithTheNumbers) {
  for (Policy p : all_policies()) {
    if (p == Policy::RrScale) continue;
    try {
      place(ivy(), p, 41);
      FAIL() << to_string(p);
    } catch (const std::invalid_argument& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("41 threads requested"), std::string::npos) << m;
      EXPECT_NE(m.find("only 40 hardware contexts"), std::string::npos) << m;
    }
    EXPECT_EQ(place(ivy(), p, 40).size(), 40) << to_string(p);
  }
  EXPECT_THROW(place(ivy(), Policy::ConHwc, 0), std::invalid_argument);
}

TEST(Placement, EveryPolicyPlacesDistinctContexts) {
  Topology t = opteron().with_memory(0, {100, 12, 3});
  for (Policy p : all_policies())
    for (int n : {1, 5, 17, 48}) {
      Placement pl = place(t, p, n);
      V sorted = pl.contexts;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) << to_string(p) << " " << n;
      if (p != Policy::RrScale) {
        EXPECT_EQ(pl.size(), n);
      }
    }
}

TEST(Placement, BackoffQuantumIsTheMaxLatencyOfTheParticipants) {
  const Topology& t = ivy();
  EXPECT_EQ(backoff_quantum(t, place(t, Policy::ConHwc, 2)), 4);
  EXPECT_EQ(backoff_quantum(t, place(t, Policy::ConHwc, 4)), 112);
  EXPECT_EQ(backoff_quantum(t, place(t, Policy::RrCore, 2)), 308);
  EXPECT_EQ(backoff_quantum(t, place(t, Policy::ConHwc, 30), BackoffMode::Min), 4);
  V one = {5};
  EXPECT_EQ(backoff_quantum(t, one), 4);  // one context: the machine's smallest latency
}

TEST(Placement, JsonHasTheFields) {
  std::string j = place(ivy(), Policy::RrHwc, 2).to_json(ivy());
  EXPECT_NE(j.find("\"policy\":\"RR_HWC\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"contexts\":[0,20]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"max_latency_cycles\":308"), std::string::npos) << j;
}
