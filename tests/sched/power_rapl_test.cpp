// RAPL through powercap, on fake sysfs trees (this box and CI have no RAPL),
// and the model built from the five measured phases.
#include "weft/sched/power.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "weft/sched/cpuset.hpp"
#include "weft/sched/topology.hpp"

using namespace weft::sched;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "weft-rapl-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

// A powercap tree as Linux lays it out: every zone is a top-level entry.
void zone(const fs::path& root, const std::string& entry, const std::string& name, double energy, double range = 262143328850) {
  write(root / entry / "name", name);
  write(root / entry / "energy_uj", std::to_string(static_cast<long long>(energy)));
  write(root / entry / "max_energy_range_uj", std::to_string(static_cast<long long>(range)));
}

std::string contains(const std::string& s, const std::string& part) {
  return s.find(part) == std::string::npos ? "'" + part + "' not in: " + s : "";
}

}  // namespace

TEST(Rapl, MissingPowercapSaysWhy) {
  RaplStatus st = rapl_status("/nonexistent/powercap");
  EXPECT_FALSE(st.available);
  EXPECT_EQ(contains(st.reason, "/nonexistent/powercap cannot be opened"), "");
  EXPECT_EQ(contains(st.reason, "no Linux powercap interface, so no RAPL"), "");
  EXPECT_EQ(contains(st.describe(), "RAPL: unavailable: "), "");
  TempDir empty;
  write(empty.path / "dtpm" / "name", "dtpm");  // some other powercap control type
  st = rapl_status(empty.path.string());
  EXPECT_FALSE(st.available);
  EXPECT_EQ(contains(st.reason, "has no RAPL package domain"), "");
}

TEST(Rapl, FindsPackagesAndDram) {
  TempDir d;
  zone(d.path, "intel-rapl:1", "package-1", 5);
  zone(d.path, "intel-rapl:0", "package-0", 1);
  zone(d.path, "intel-rapl:0:0", "core", 2);  // not used
  zone(d.path, "intel-rapl:0:1", "dram", 3);
  zone(d.path, "intel-rapl:1:0", "dram", 6);
  zone(d.path, "intel-rapl:2", "psys", 9);  // platform domain: not a package
  RaplStatus st = rapl_status(d.path.string());
  ASSERT_TRUE(st.available) << st.reason;
  ASSERT_EQ(st.packages.size(), 2u);
  EXPECT_EQ(st.packages[0].package, 0);
  EXPECT_EQ(st.packages[1].package, 1);
  EXPECT_EQ(st.packages[1].name, "package-1");
  ASSERT_EQ(st.dram.size(), 2u);
  EXPECT_EQ(st.dram[0].package, 0);
  EXPECT_EQ(st.dram[1].path, (d.path / "intel-rapl:1:0").string());
  RaplSample s = rapl_sample(st);
  EXPECT_EQ(s.package_uj, (std::vector<double>{1, 5}));
  EXPECT_EQ(s.dram_uj, (std::vector<double>{3, 6}));
}

TEST(Rapl, UnreadableCountersSayRootOnly) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads mode-000 files";
  TempDir d;
  zone(d.path, "intel-rapl:0", "package-0", 1);
  chmod((d.path / "intel-rapl:0" / "energy_uj").c_str(), 0);
  RaplStatus st = rapl_status(d.path.string());
  EXPECT_FALSE(st.available);
  EXPECT_EQ(contains(st.reason, "energy_uj (Permission denied)"), "");
  EXPECT_EQ(contains(st.reason, "readable by root only"), "");
}

TEST(Rapl, WattsFromTwoSamplesWithWrapAround) {
  RaplStatus st;
  st.available = true;
  st.packages = {{"p0", "package-0", 0, 1000e6}, {"p1", "package-1", 1, 1000e6}};
  st.dram = {{"d0", "dram", 0, 1000e6}};
  RaplSample a, b;
  a.when = std::chrono::steady_clock::time_point(std::chrono::seconds(10));
  b.when = a.when + std::chrono::seconds(2);
  a.package_uj = {100e6, 999e6};
  b.package_uj = {160e6, 9e6};  // 60 J in 2 s = 30 W; the second wrapped: 1 + 9 = 10 J = 5 W
  a.dram_uj = {0};
  b.dram_uj = {8e6};  // 4 W
  RaplPower w = rapl_power(st, a, b);
  EXPECT_DOUBLE_EQ(w.package_w[0], 30);
  EXPECT_DOUBLE_EQ(w.package_w[1], 5);
  EXPECT_DOUBLE_EQ(w.dram_w[0], 4);
  EXPECT_THROW(rapl_power(st, b, a), std::invalid_argument);
  b.dram_uj.clear();
  EXPECT_THROW(rapl_power(st, a, b), std::invalid_argument);
}

TEST(Rapl, ModelFromPhases) {
  Topology t = Topology::from_hwloc_synthetic("pack:2 core:2 pu:2");
  PowerPhases ph;
  ph.idle = {20, 21};
  ph.one_core = {30, 33};      // socket_w: 10, 12
  ph.two_cores = {34, 38};     // core_w: 4, 5
  ph.two_contexts = {31.5, 32};  // context_w: 1.5, and 32 - 33 < 0 (noise) -> 0
  ph.all = {50, 52};
  ph.dram_idle = {5, 6};
  ph.dram_all = {9, 12};       // dram_active_w: 4, 6
  std::vector<PowerInfo> m = power_model_from_phases(ph, t);
  EXPECT_EQ(m[0], (PowerInfo{20, 10, 4, 1.5, 5, 4}));
  EXPECT_EQ(m[1], (PowerInfo{21, 12, 5, 0, 6, 6}));
  ph.dram_idle.clear();
  ph.dram_all.clear();  // no DRAM domain: DRAM figures 0
  EXPECT_EQ(power_model_from_phases(ph, t)[1], (PowerInfo{21, 12, 5, 0, 0, 0}));
  // Without SMT the context increment is 0; with one core per socket, the core increment.
  Topology flat = Topology::from_hwloc_synthetic("pack:2 core:1 pu:1");
  EXPECT_EQ(power_model_from_phases(ph, flat)[0], (PowerInfo{20, 10, 0, 0, 0, 0}));
  ph.all = {50};
  EXPECT_THROW(power_model_from_phases(ph, t), std::invalid_argument);
}

TEST(Rapl, MeasureWithoutRaplThrowsTheReason) {
  PowerProbeOptions o;
  o.powercap_root = "/nonexistent/powercap";
  try {
    measure_power(Topology::discover(), o);
    FAIL() << "no exception";
  } catch (const PowerUnavailable& e) {
    EXPECT_EQ(contains(e.what(), "RAPL power measurement unavailable: /nonexistent/powercap cannot be opened"), "");
  }
}

TEST(Rapl, MeasureRunsThePhasesOnAFakeTree) {
  // Static counters: every phase reads 0 W, so the model is all zeros; this
  // runs the whole pipeline (package lookup, pinned load threads, phases).
  Topology t = Topology::discover();
  TempDir powercap, cpus;
  zone(powercap.path, "intel-rapl:0", "package-0", 1000);
  zone(powercap.path, "intel-rapl:0:0", "dram", 1000);
  for (int c = 0; c < t.num_contexts(); ++c)
    write(cpus.path / ("cpu" + std::to_string(t.os_cpu(c))) / "topology" / "physical_package_id", "0");
  PowerProbeOptions o;
  o.powercap_root = powercap.path.string();
  o.cpu_sysfs_root = cpus.path.string();
  o.interval_s = 0.02;
  o.settle_s = 0.01;
  o.buffer_bytes = 64 << 10;
  std::vector<std::string> phases;
  o.progress = [&](const std::string& p) { phases.push_back(p); };
  Topology m = measure_power(t, o);
  EXPECT_EQ(m.power_source(), PowerSource::Measured);
  EXPECT_EQ(phases.size(), 5u);
  for (int s = 0; s < m.num_sockets(); ++s) EXPECT_EQ(m.power(s), PowerInfo{});
  // A socket whose package has no RAPL domain.
  write(cpus.path / ("cpu" + std::to_string(t.os_cpu(0))) / "topology" / "physical_package_id", "3");
  try {
    measure_power(t, o);
    FAIL() << "no exception";
  } catch (const PowerUnavailable& e) {
    EXPECT_EQ(contains(e.what(), "package 3) has no RAPL package domain"), "");
  }
}
