// The optional per-socket power model (topology.hpp PowerInfo), its text
// format, the placement power estimate (Fig 7.5 "Max pow") and the POWER
// policy with a model. Expected values are worked out by hand in the comments
// from the model's definition:
//   package = idle + socket + (cores - 1) * core + (contexts - cores) * context
//   DRAM    = dram_idle + dram_active            (a socket in use)
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "ivy_machine.hpp"
#include "weft/sched/placement.hpp"
#include "weft/sched/topology.hpp"
#include "weft/sched/topology_io.hpp"

using namespace weft::sched;
using weft::sched::testing::ivy_linux_numbering;
using V = std::vector<int>;

namespace {

// 2 sockets x 4 cores x 2 SMT: socket 0 = contexts 0..7 (core c = {2c, 2c+1}), socket 1 = 8..15.
Topology small() { return Topology::from_hwloc_synthetic("pack:2 core:4 pu:2"); }

// idle 15, socket 10, core 4, context 1, DRAM 3 + 5 on every socket.
PowerInfo model_a() { return {15, 10, 4, 1, 3, 5}; }

Topology with(const Topology& t, std::vector<PowerInfo> p, PowerSource src = PowerSource::Estimated) {
  return t.with_power(std::move(p), src);
}

std::string expect_invalid(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::invalid_argument";
  return {};
}

}  // namespace

TEST(PowerModel, NoneByDefault) {
  Topology t = small();
  EXPECT_EQ(t.power_source(), PowerSource::None);
  EXPECT_FALSE(t.has_power_info());
  EXPECT_EQ(t.power(1), PowerInfo{});
  EXPECT_FALSE(estimate_power(t, V{0, 1}).has_value());
  EXPECT_FALSE(place(t, Policy::ConHwc, 3).power.has_value());
  EXPECT_NE(place(t, Policy::ConHwc, 3).summary(t).find("Max power        : n/a (no power model"), std::string::npos);
}

TEST(PowerModel, PerLevelFormula) {
  PowerInfo p = model_a();
  EXPECT_DOUBLE_EQ(p.package_w(0, 0), 15);                     // idle
  EXPECT_DOUBLE_EQ(p.package_w(1, 1), 15 + 10);                // first core wakes the socket
  EXPECT_DOUBLE_EQ(p.package_w(1, 2), 15 + 10 + 1);            // its SMT sibling
  EXPECT_DOUBLE_EQ(p.package_w(3, 5), 15 + 10 + 2 * 4 + 2 * 1);
  EXPECT_DOUBLE_EQ(p.dram_w(false), 3);
  EXPECT_DOUBLE_EQ(p.dram_w(true), 8);
}

TEST(PowerModel, WithPowerValidates) {
  Topology t = small();
  Topology m = with(t, {model_a(), model_a()}, PowerSource::Measured);
  EXPECT_EQ(m.power_source(), PowerSource::Measured);
  EXPECT_EQ(m.power(0), model_a());
  EXPECT_EQ(t.power_source(), PowerSource::None);  // a copy; the original is unchanged
  EXPECT_THROW(m.power(2), std::out_of_range);
  std::string e = expect_invalid([&] { with(t, {model_a()}); });
  EXPECT_NE(e.find("1 socket power models given, but the topology has 2 sockets"), std::string::npos) << e;
  PowerInfo neg = model_a();
  neg.core_w = -1;
  e = expect_invalid([&] { with(t, {model_a(), neg}); });
  EXPECT_NE(e.find("socket 1: core_w"), std::string::npos) << e;
  PowerInfo nan = model_a();
  nan.dram_active_w = std::nan("");
  e = expect_invalid([&] { with(t, {nan, model_a()}); });
  EXPECT_NE(e.find("socket 0: dram_active_w"), std::string::npos) << e;
  e = expect_invalid([&] { t.with_power({model_a(), model_a()}, PowerSource::None); });
  EXPECT_NE(e.find("PowerSource::None"), std::string::npos) << e;
  EXPECT_EQ(m.with_power({}, PowerSource::None).power_source(), PowerSource::None);  // dropped again
  EXPECT_NE(m.to_string().find("power model (measured"), std::string::npos);
  EXPECT_NE(m.to_json().find("\"power_source\":\"measured\",\"power\":[{\"socket\":0,\"idle_w\":15"), std::string::npos)
      << m.to_json();
}

TEST(PowerModel, EstimateOfAPlacement) {
  Topology t = with(small(), {model_a(), model_a()});
  // Contexts 0,1,2 on socket 0: cores {0,1}: package 15 + 10 + 4 + 1 = 30; DRAM 8.
  // Socket 1 unused: 15 idle package, 3 idle DRAM.
  auto e = estimate_power(t, V{0, 1, 2, 2});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->source, PowerSource::Estimated);
  EXPECT_EQ(e->sockets, V{0});
  EXPECT_EQ(e->package_w, std::vector<double>{30});
  EXPECT_EQ(e->dram_w, std::vector<double>{8});
  EXPECT_DOUBLE_EQ(e->unused_package_w, 15);
  EXPECT_DOUBLE_EQ(e->unused_dram_w, 3);
  EXPECT_DOUBLE_EQ(e->used_package_w(), 30);
  EXPECT_DOUBLE_EQ(e->used_total_w(), 38);
  EXPECT_DOUBLE_EQ(e->machine_total_w(), 56);
  Placement p = place(t, Policy::Sequential, 3);
  ASSERT_TRUE(p.power);
  std::string s = p.summary(t);
  EXPECT_NE(s.find("# Max pow no DRAM  : 30.0 = 30.0 Watt (+ 15.0 idle in 1 unused socket = 45.0)"), std::string::npos) << s;
  EXPECT_NE(s.find("# Max pow with DRAM: 38.0 = 38.0 Watt (+ 18.0 idle in 1 unused socket = 56.0)"), std::string::npos) << s;
  EXPECT_NE(p.to_json(t).find("\"max_power_no_dram_w\":30,\"max_power_with_dram_w\":38,\"machine_total_w\":56"),
            std::string::npos)
      << p.to_json(t);
}

TEST(PowerModel, Fig75NoDramLineFromAFittedModel) {
  // Ivy with Linux numbering (cpu n and n+20 are SMT siblings; cpus 0-9, 20-29
  // on socket 0). A model fitted to Fig 7.5's CON_HWC 30-thread line:
  // socket 0 runs 10 cores / 20 contexts: 15 + 8.1 + 9*3 + 10*1.66 = 66.7;
  // socket 1 runs 5 cores / 10 contexts: 15 + 8.1 + 4*3 + 5*1.66 = 43.4.
  PowerInfo fit{15, 8.1, 3, 1.66, 20, 25.2};
  Topology t = ivy_linux_numbering().with_power({fit, fit}, PowerSource::Measured);
  std::string s = place(t, Policy::ConHwc, 30).summary(t);
  EXPECT_NE(s.find("# Max pow no DRAM  : 66.7 43.4 = 110.1 Watt\n"), std::string::npos) << s;
  EXPECT_NE(s.find("# Max pow with DRAM: 111.9 88.6 = 200.5 Watt\n"), std::string::npos) << s;
  EXPECT_NE(s.find("# Power model      : measured"), std::string::npos) << s;
}

TEST(PowerModel, PowerPolicyWithAModel) {
  Topology base = small();
  Topology a = with(base, {model_a(), model_a()});
  // 3 threads: one socket, compact (context 1 W < core 4 W): {0,1,2} costs
  // 10+5 + 4 + 1 = 20 (marginal over idle); any two-socket split costs >= 31.
  EXPECT_EQ(place(a, Policy::Power, 3).contexts, (V{0, 1, 2}));
  // 9 threads: 8+1, 7+2, 6+3, 5+4 all cost 2*(10+5) + 3*4 + 4*1 = 46 (5 cores,
  // 9 contexts); the tie goes to the later socket taking fewest: 8 + 1.
  Placement p9 = place(a, Policy::Power, 9);
  EXPECT_EQ(p9.contexts, (V{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(p9.sockets, (V{0, 1}));
  // Its estimate: socket 0: 15 + 10 + 3*4 + 4*1 = 41, socket 1: 15 + 10 = 25.
  ASSERT_TRUE(p9.power);
  EXPECT_EQ(p9.power->package_w, (std::vector<double>{41, 25}));
  EXPECT_DOUBLE_EQ(p9.power->used_total_w(), 41 + 25 + 8 + 8);
  // An SMT context dearer than a core (context 3 W > core 2 W): distinct cores
  // first, {0,2,4} = 10+5 + 2*2 = 19 < {0,1,2} = 10+5 + 2 + 3 = 20.
  PowerInfo cores_first{15, 10, 2, 3, 3, 5};
  Topology b = with(base, {cores_first, cores_first});
  EXPECT_EQ(place(b, Policy::Power, 3).contexts, (V{0, 2, 4}));
  EXPECT_EQ(place(b, Policy::Power, 5).contexts, (V{0, 2, 4, 6, 1}));
  // Sockets differ: socket 0 costs 30 W to wake and 4 W a core, socket 1 5 W
  // and 2 W: 2 threads go to socket 1 ({8,9}: 5 + 1 = 6 < 30 + 1).
  PowerInfo dear{15, 30, 4, 1, 0, 0}, cheap{15, 5, 2, 1, 0, 0};
  Topology c = with(base, {dear, cheap});
  Placement pc = place(c, Policy::Power, 2);
  EXPECT_EQ(pc.contexts, (V{8, 9}));
  EXPECT_EQ(pc.sockets, V{1});
  // 10 threads: socket 1 full (8: 5 + 3*2 + 4*1 = 15) + 2 on socket 0
  // (30 + 1 = 31) = 46; the next best split, 7 + 3, costs 14 + 35 = 49. The
  // socket with more threads is listed first.
  EXPECT_EQ(place(c, Policy::Power, 10).contexts, (V{8, 9, 10, 11, 12, 13, 14, 15, 0, 1}));
  // --sockets 1 keeps POWER to socket 0 (index order), even though it is dearer.
  EXPECT_EQ(place(c, Policy::Power, 2, 1).contexts, (V{0, 1}));
  EXPECT_THROW(place(c, Policy::Power, 9, 1), std::invalid_argument);
  // Without a model: the structural rule (compact, index order).
  EXPECT_EQ(place(base, Policy::Power, 3).contexts, (V{0, 1, 2}));
  EXPECT_EQ(place(base, Policy::Power, 9).contexts, (V{0, 1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(PowerModel, PowerPolicyIsMinimalByBruteForce) {
  // Every subset of a 2 x 2 x 2 machine (256 of them): for each n, POWER's
  // estimate (package + DRAM of the used sockets) equals the cheapest subset's.
  Topology base = Topology::from_hwloc_synthetic("pack:2 core:2 pu:2");
  const std::vector<std::vector<PowerInfo>> models = {
      {{10, 7, 3, 1, 2, 4}, {10, 7, 3, 1, 2, 4}},
      {{10, 20, 3, 5, 2, 0}, {12, 2, 6, 1, 1, 9}},
      {{0, 1, 1, 1, 0, 0}, {0, 1, 1, 1, 0, 0}},
  };
  for (const auto& m : models) {
    Topology t = with(base, m);
    for (int n = 1; n <= 8; ++n) {
      double best = 1e18;
      for (int mask = 0; mask < 256; ++mask) {
        V set;
        for (int c = 0; c < 8; ++c)
          if (mask >> c & 1) set.push_back(c);
        if (static_cast<int>(set.size()) != n) continue;
        best = std::min(best, estimate_power(t, set)->machine_total_w());
      }
      Placement p = place(t, Policy::Power, n);
      EXPECT_EQ(p.size(), n);
      EXPECT_NEAR(p.power->machine_total_w(), best, 1e-9) << "n=" << n;
    }
  }
}

TEST(PowerModel, TextFormatRoundTripAndErrors) {
  Topology t = with(small(), {model_a(), {1.5, 2.25, 3, 0.125, 0, 7}}, PowerSource::Measured);
  std::stringstream io;
  save_topology(t, io);
  std::string text = io.str();
  EXPECT_NE(text.find("power-source measured\npower 0 15 10 4 1 3 5\npower 1 1.5 2.25 3 0.125 0 7\nend\n"),
            std::string::npos)
      << text;
  Topology back = load_topology(io, "t.topo");
  EXPECT_EQ(back.power_source(), PowerSource::Measured);
  EXPECT_EQ(back.power(0), t.power(0));
  EXPECT_EQ(back.power(1), t.power(1));

  // No power-source line: the figures count as estimated. No power lines: none.
  auto load_with = [&](const std::string& from, const std::string& to) {
    std::string s = text;
    s.replace(s.find(from), from.size(), to);
    std::istringstream in(s);
    return load_topology(in, "t.topo");
  };
  EXPECT_EQ(load_with("power-source measured\n", "").power_source(), PowerSource::Estimated);
  EXPECT_EQ(load_with("power-source measured\npower 0 15 10 4 1 3 5\npower 1 1.5 2.25 3 0.125 0 7\n", "").power_source(),
            PowerSource::None);
  auto format_error = [&](const std::string& from, const std::string& to) -> std::string {
    try {
      load_with(from, to);
    } catch (const TopologyFormatError& e) {
      return e.what();
    }
    ADD_FAILURE() << "accepted: " << to;
    return {};
  };
  std::string e = format_error("power 1 1.5", "power 5 1.5");
  EXPECT_NE(e.find("power line for socket 5, but the topology has 2 sockets"), std::string::npos) << e;
  e = format_error("power 1 1.5 2.25 3 0.125 0 7\n", "");
  EXPECT_NE(e.find("power lines must cover every socket; socket 1 has none"), std::string::npos) << e;
  e = format_error("power 1 1.5", "power 0 1.5");
  EXPECT_NE(e.find("second power line for socket 0"), std::string::npos) << e;
  e = format_error("power 1 1.5 2.25 3 0.125 0 7", "power 1 1.5 -2 3 0.125 0 7");
  EXPECT_NE(e.find("expected 'power <socket> <idle_w> <socket_w> <core_w> <context_w> <dram_idle_w> <dram_active_w>'"),
            std::string::npos)
      << e;
  e = format_error("power 1 1.5 2.25 3 0.125 0 7", "power 1 1.5 2.25 3");
  EXPECT_NE(e.find("got 'power 1 1.5 2.25 3'"), std::string::npos) << e;
  e = format_error("power-source measured", "power-source guessed");
  EXPECT_NE(e.find("'power-source measured' or 'power-source estimated'"), std::string::npos) << e;
  e = format_error("power 0 15 10 4 1 3 5\npower 1 1.5 2.25 3 0.125 0 7\n", "");
  EXPECT_NE(e.find("'power-source' without any 'power <socket> ...' line"), std::string::npos) << e;
}
