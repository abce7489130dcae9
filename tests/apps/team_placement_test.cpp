// Where a team's members run (detail/team_placement.hpp), on synthetic
// machines: the policy's cores, the caller as member 0, CPUs without a
// worker, more members than contexts, and a placement that changes between
// regions of one program (thesis §7.7.4, MCTOP_MP).

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "weft/apps/detail/team_placement.hpp"
#include "weft/sched/placement.hpp"
#include "weft/sched/topology.hpp"

namespace {

using weft::detail::place_team;
using weft::sched::Policy;
using weft::sched::Topology;
using V = std::vector<int>;

// Two sockets of four cores with two contexts each (16 CPUs).
const Topology& two_sockets() {
  static Topology t = Topology::from_hwloc_synthetic("pack:2 core:4 pu:2");
  return t;
}

// One worker per CPU of the machine, worker i on the i-th context.
V all_cpus(const Topology& t) {
  V cpus;
  for (int c = 0; c < t.num_contexts(); ++c) cpus.push_back(t.os_cpu(c));
  return cpus;
}

// The sockets the members' workers sit on.
V sockets_of(const Topology& t, const V& cpus, const V& team) {
  V s;
  for (int w : team) s.push_back(t.socket_of(t.context_of_os_cpu(cpus[static_cast<std::size_t>(w)])));
  return s;
}

int worker_on_context(const Topology& t, const V& cpus, int ctx) {
  return static_cast<int>(std::find(cpus.begin(), cpus.end(), t.os_cpu(ctx)) - cpus.begin());
}

TEST(TeamPlacement, NoPolicyRotatesFromTheCallersWorker) {
  const V cpus = all_cpus(two_sockets());
  EXPECT_EQ(place_team(two_sockets(), cpus, Policy::None, 4, 14), (V{14, 15, 0, 1}));
  EXPECT_EQ(place_team(two_sockets(), V{-1, -1, -1}, Policy::None, 5, 1), (V{1, 2, 0, 1, 2}));
}

TEST(TeamPlacement, MembersRunOnThePolicysContextsWithTheCallerFirst) {
  const Topology& t = two_sockets();
  const V cpus = all_cpus(t);
  for (Policy p : {Policy::ConCore, Policy::RrCore, Policy::BalanceHwc, Policy::Sequential, Policy::ConHwc}) {
    const auto placed = weft::sched::place(t, p, 6);
    V expected;
    for (int ctx : placed.contexts) expected.push_back(worker_on_context(t, cpus, ctx));
    // The caller on the policy's first choice: the team is the policy's order.
    EXPECT_EQ(place_team(t, cpus, p, 6, expected[0]), expected) << weft::sched::to_string(p);
    // The caller on its third choice: member 0 takes that one, the rest keep their order.
    V moved = expected;
    std::rotate(moved.begin(), moved.begin() + 2, moved.begin() + 3);
    EXPECT_EQ(place_team(t, cpus, p, 6, expected[2]), moved) << weft::sched::to_string(p);
  }
}

TEST(TeamPlacement, ACallerOutsideThePlacementReplacesItsLastChoice) {
  const Topology& t = two_sockets();
  const V cpus = all_cpus(t);
  const auto placed = weft::sched::place(t, Policy::ConCore, 4);  // four cores of socket 0
  const int outside = worker_on_context(t, cpus, t.socket_contexts(1).front());
  const V team = place_team(t, cpus, Policy::ConCore, 4, outside);
  V expected{outside};
  for (int i = 0; i < 3; ++i) expected.push_back(worker_on_context(t, cpus, placed.contexts[static_cast<std::size_t>(i)]));
  EXPECT_EQ(team, expected);
}

TEST(TeamPlacement, ThePlacementChangesBetweenRegions) {
  // Thesis §7.7.4: one program, two regions, two policies. CON_CORE keeps a
  // team of four on one socket (shared LLC); RR_CORE spreads it over both
  // (both sockets' bandwidth).
  const Topology& t = two_sockets();
  const V cpus = all_cpus(t);
  const int caller = 0;
  const V compact = place_team(t, cpus, Policy::ConCore, 4, caller);
  const V spread = place_team(t, cpus, Policy::RrCore, 4, caller);
  EXPECT_EQ(sockets_of(t, cpus, compact), (V{0, 0, 0, 0}));
  EXPECT_EQ(sockets_of(t, cpus, spread), (V{0, 1, 0, 1}));
  // Distinct cores in both.
  for (const V& team : {compact, spread}) {
    std::set<int> cores;
    for (int w : team) cores.insert(t.core_of(t.context_of_os_cpu(cpus[static_cast<std::size_t>(w)])));
    EXPECT_EQ(cores.size(), 4u);
  }
}

TEST(TeamPlacement, ACpuWithoutAWorkerGoesToTheNearestLeastUsedWorker) {
  const Topology& t = two_sockets();
  // Workers only on socket 0's first context of each core.
  V cpus;
  for (int core : t.socket_cores(0)) cpus.push_back(t.os_cpu(t.core_contexts(core).front()));
  // RR_CORE wants socket 1 for members 1 and 3: they land on socket 0's
  // workers, spread over the ones with fewest members.
  const V team = place_team(t, cpus, Policy::RrCore, 4, 0);
  ASSERT_EQ(team.size(), 4u);
  for (int w : team) {
    EXPECT_GE(w, 0);
    EXPECT_LT(w, static_cast<int>(cpus.size()));
  }
  EXPECT_EQ(std::set<int>(team.begin(), team.end()).size(), 4u) << "four workers, four members: none shared";
}

TEST(TeamPlacement, MoreMembersThanContextsWrapRoundTheChoices) {
  const Topology& t = two_sockets();
  const V cpus = all_cpus(t);
  const V team = place_team(t, cpus, Policy::RrCore, 40, 0);
  ASSERT_EQ(team.size(), 40u);
  const V first16 = place_team(t, cpus, Policy::RrCore, 16, 0);
  for (int k = 0; k < 16; ++k) EXPECT_EQ(team[static_cast<std::size_t>(k)], first16[static_cast<std::size_t>(k)]);
  std::vector<int> per_worker(16, 0);
  for (int w : team) per_worker[static_cast<std::size_t>(w)]++;
  for (int n : per_worker) EXPECT_TRUE(n == 2 || n == 3);
}

TEST(TeamPlacement, APolicyNeedsPinnedWorkers) {
  try {
    place_team(two_sockets(), V{-1, -1}, Policy::RrCore, 2, 0);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("RR_CORE"), std::string::npos) << e.what();
  }
  EXPECT_THROW(place_team(two_sockets(), all_cpus(two_sockets()), Policy::RrScale, 2, 0), std::invalid_argument)
      << "RR_SCALE needs bandwidth figures the synthetic machine does not have";
  EXPECT_THROW(place_team(two_sockets(), all_cpus(two_sockets()), Policy::ConCore, 0, 0), std::invalid_argument);
  EXPECT_THROW(place_team(two_sockets(), all_cpus(two_sockets()), Policy::ConCore, 2, 16), std::invalid_argument);
}

}  // namespace
