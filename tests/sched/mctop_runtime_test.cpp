// An inference from a saved latency table drives the runtime: the 16-vCPU KVM
// guest's table (data/), inferred offline as `weft-topo infer --table FILE
// --save TOPO` does, saved, and loaded through WEFT_TOPOLOGY.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <weft/runtime.hpp>

#include "weft/sched/cpuset.hpp"
#include "weft/sched/latency_table_io.hpp"
#include "weft/sched/mctop_alg.hpp"
#include "weft/sched/topology_io.hpp"

namespace {

namespace ws = weft::sched;

struct EnvVar {
  std::string name;
  EnvVar(std::string n, const std::string& value) : name(std::move(n)) { setenv(name.c_str(), value.c_str(), 1); }
  ~EnvVar() { unsetenv(name.c_str()); }
};

TEST(MctopRuntime, TopologyInferredFromASavedTableRunsTheRuntime) {
  std::vector<int> allowed = ws::allowed_cpus();
  if (allowed.size() < 2) GTEST_SKIP() << "needs 2 allowed CPUs";
  ws::LatencyTable table = ws::load_latency_table(WEFT_SCHED_TEST_DATA "/latency-16cpu-kvm-xeon.txt").table;
  // The first two rows become this machine's first two allowed CPUs (where
  // the default placement puts two workers); the other 14 lie beyond them.
  for (int i = 0; i < table.size(); ++i) table.os_cpus[i] = i < 2 ? allowed[i] : allowed[1] + i - 1;
  ws::AlgResult r = ws::infer_topology(table, ws::AlgOptions{});
  ASSERT_FALSE(r.uniform());
  const std::string path = ::testing::TempDir() + "weft_kvm16.topo";
  ws::save_topology(r.topology, path);

  for (const char* v : {"WEFT_PLACEMENT", "WEFT_CPUS", "WEFT_WORKERS", "WEFT_PIN", "OMP_PLACES", "OMP_PROC_BIND"})
    unsetenv(v);
  EnvVar topology("WEFT_TOPOLOGY", path);
  weft::Config base;
  base.workers = 2;
  weft::Config c = weft::Config::from_env(base);
  EXPECT_EQ(c.topology_file, path);
  weft::Runtime rt(c);
  EXPECT_EQ(rt.worker_cpus(), (std::vector<int>{allowed[0], allowed[1]}));
  const ws::Topology& t = rt.topology();
  EXPECT_EQ(t.num_contexts(), 16);
  EXPECT_EQ(t.latency_source(), ws::LatencySource::Measured);
  EXPECT_NE(t.description().find("MCTOP-ALG inference"), std::string::npos) << t.description();
  EXPECT_EQ(t.latency(9, 13), t.latency(9, 11));  // the resolved misfit, as saved
  long sum = rt.run([] {
    std::vector<weft::Ult<long>> children;
    for (long i = 1; i <= 100; ++i) children.push_back(weft::spawn([i] { return i; }));
    long s = 0;
    for (auto& u : children) s += u.join();
    return s;
  });
  EXPECT_EQ(sum, 5050);
}

}  // namespace
