#pragma once
// Made-up machines as MCTOP-ALG latency tables (for the mctop tests): a
// machine is a latency per relation between two contexts, with optional
// multiplicative noise drawn independently for each entry.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "weft/sched/mctop_alg.hpp"

namespace weft::sched::testing {

// A machine described by, for each context: core, socket, die; latency by relation.
struct Spec {
  int n;
  std::function<int(int)> core, socket, die;
  double smt, die_lat, socket_lat;
  std::function<double(int, int)> cross;  // socket-to-socket
};

inline LatencyTable make_table(const Spec& s, double noise, unsigned seed, bool one_triangle = false) {
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
inline Spec ivy() {
  return {40, [](int i) { return i % 20; }, [](int i) { return (i % 20) / 10; }, [](int i) { return (i % 20) / 10; },
          28, 112, 112, [](int, int) { return 308.0; }};
}
// Opteron: 4 MCMs x 2 dies x 6 cores, a die is a memory node; dies of one MCM
// 200 apart, other MCMs one hop (300) or two hops (420) away.
inline Spec opteron() {
  return {48, [](int i) { return i; }, [](int i) { return i / 6; }, [](int i) { return i / 6; }, 0, 120, 120,
          [](int a, int b) { return a / 2 == b / 2 ? 200.0 : ((a / 2) ^ (b / 2)) == 3 ? 420.0 : 300.0; }};
}
// Westmere: 8 sockets x 10 cores x SMT-2 (cpu i and i+80 siblings), twisted
// hypercube: sockets one hop (250) or two hops (350) apart.
inline Spec westmere() {
  return {160, [](int i) { return i % 80; }, [](int i) { return (i % 80) / 10; }, [](int i) { return (i % 80) / 10; },
          30, 110, 110, [](int a, int b) { return __builtin_popcount(a ^ b) == 1 ? 250.0 : 350.0; }};
}
// Two sockets of `cores` cores, no SMT: 110 cycles inside a socket, 300 across.
inline Spec two_sockets(int cores) {
  return {2 * cores, [](int i) { return i; }, [cores](int i) { return i / cores; }, [cores](int i) { return i / cores; },
          0, 110, 110, [](int, int) { return 300.0; }};
}
// n cores at one latency: a perfectly flat machine.
inline Spec flat(int n, double latency) {
  return {n, [](int i) { return i; }, [](int) { return 0; }, [](int) { return 0; }, 0, latency, latency,
          [](int, int) { return 0.0; }};
}

// Every entry (both triangles) multiplied by its own factor in [1-noise, 1+noise].
inline LatencyTable with_noise(LatencyTable t, double noise, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(1 - noise, 1 + noise);
  for (auto& v : t.values) v *= d(rng);
  return t;
}

// The inferred topology has the machine's cores and sockets.
inline void expect_structure(const AlgResult& r, const Spec& s, int sockets, int cores) {
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

inline void set_pair(LatencyTable& t, int a, int b, double v) { t.at(a, b) = t.at(b, a) = v; }

}  // namespace weft::sched::testing
