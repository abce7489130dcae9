// The runtime's placement hook (Config::from_env, runtime/src/config.cpp):
// precedence Config::placement > WEFT_PLACEMENT > OMP_PLACES / OMP_PROC_BIND
// > default, and a Runtime whose workers the OpenMP variables pin.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <weft/runtime.hpp>

#include "weft/sched/cpuset.hpp"
#include "weft/sched/omp_places.hpp"

namespace {

using weft::Config;

struct EnvVar {
  std::string name;
  EnvVar(std::string n, const std::string& value) : name(std::move(n)) { setenv(name.c_str(), value.c_str(), 1); }
  ~EnvVar() { unsetenv(name.c_str()); }
};

class OmpConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : {"OMP_PLACES", "OMP_PROC_BIND", "WEFT_PLACEMENT", "WEFT_PIN", "WEFT_CPUS", "WEFT_WORKERS"})
      unsetenv(v);
    allowed = weft::sched::allowed_cpus();
  }
  std::vector<int> allowed;
};

TEST_F(OmpConfig, OmpPlacesPinTheWorkers) {
  const int a = allowed.front();
  std::string value = "{";
  value += std::to_string(a);
  value += '}';
  EnvVar places("OMP_PLACES", value);
  Config base;
  base.workers = std::min<int>(2, static_cast<int>(allowed.size()));
  Config c = Config::from_env(base);
  // OMP_PROC_BIND unset with OMP_PLACES set = true = close; 2 workers, 1 place: both on it.
  EXPECT_EQ(c.cpus, std::vector<int>(static_cast<size_t>(base.workers), a));
  EXPECT_EQ(c.workers, base.workers);
  EXPECT_TRUE(c.pin_workers);
  EXPECT_TRUE(c.placement.empty());
}

TEST_F(OmpConfig, MorePinnedWorkersThanCpusIsStillRefused) {
  EnvVar bind("OMP_PROC_BIND", "close");
  Config base;
  base.workers = static_cast<int>(allowed.size()) + 1;
  EXPECT_TRUE(Config::from_env(base).cpus.empty());  // left to the runtime's check
  try {
    weft::Runtime rt(base);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CPUs are allowed"), std::string::npos) << e.what();
  }
  base.pin_workers = false;  // unpinned: the OpenMP CPUs are nominal homes
  EXPECT_EQ(Config::from_env(base).cpus.size(), allowed.size() + 1);
}

TEST_F(OmpConfig, SpreadOverThreads) {
  EnvVar bind("OMP_PROC_BIND", "spread");
  Config base;
  base.workers = 1;
  EXPECT_EQ(Config::from_env(base).cpus, std::vector<int>{allowed.front()});  // the first place
}

TEST_F(OmpConfig, Precedence) {
  EnvVar places("OMP_PLACES", "threads");
  EnvVar bind("OMP_PROC_BIND", "close");
  Config explicit_placement;
  explicit_placement.placement = "RR_CORE";
  Config c;
  {
    EnvVar w("WEFT_PLACEMENT", "CON_HWC");
    // WEFT_PLACEMENT beats Config::placement (every WEFT_* variable is
    // applied on top of the Config), which beats the OMP variables.
    c = Config::from_env(explicit_placement);
    EXPECT_EQ(c.placement, "CON_HWC");
    EXPECT_TRUE(c.cpus.empty());
    c = Config::from_env(Config{});
    EXPECT_EQ(c.placement, "CON_HWC");
    EXPECT_TRUE(c.cpus.empty());
  }
  c = Config::from_env(explicit_placement);
  EXPECT_EQ(c.placement, "RR_CORE");
  EXPECT_TRUE(c.cpus.empty());
  // Explicit CPUs leave nothing to place.
  Config cpus;
  cpus.cpus = {allowed.front()};
  EXPECT_EQ(Config::from_env(cpus).cpus, std::vector<int>{allowed.front()});
  EnvVar weft_cpus("WEFT_CPUS", std::to_string(allowed.back()));
  EXPECT_EQ(Config::from_env(Config{}).cpus, std::vector<int>{allowed.back()});
}

TEST_F(OmpConfig, BindFalseAndNoneUnpin) {
  {
    EnvVar bind("OMP_PROC_BIND", "false");
    EXPECT_FALSE(Config::from_env(Config{}).pin_workers);
    EXPECT_TRUE(Config::from_env(Config{}).cpus.empty());
    EnvVar pin("WEFT_PIN", "1");  // an explicit WEFT_PIN wins
    EXPECT_TRUE(Config::from_env(Config{}).pin_workers);
  }
  {
    EnvVar none("WEFT_PLACEMENT", "none");
    EXPECT_FALSE(Config::from_env(Config{}).pin_workers);
  }
  Config c;
  c.placement = "NONE";
  EXPECT_FALSE(Config::from_env(c).pin_workers);
  c.placement = "NO_SUCH_POLICY";  // reported when the runtime places its workers
  EXPECT_TRUE(Config::from_env(c).pin_workers);
}

TEST_F(OmpConfig, MalformedValuesAreErrorsNamingTheVariable) {
  for (auto [name, value, part] : {std::tuple{"OMP_PLACES", "{0:4},{4:x}", "'x}'"},
                                   std::tuple{"OMP_PLACES", "corez(2)", "corez"},
                                   std::tuple{"OMP_PROC_BIND", "nearest", "'nearest'"},
                                   std::tuple{"OMP_PROC_BIND", "true,spread", "'spread'"}}) {
    EnvVar v(name, value);
    try {
      Config::from_env(Config{});
      ADD_FAILURE() << name << "=" << value << " accepted";
    } catch (const weft::sched::OmpEnvError& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(name), std::string::npos) << what;
      EXPECT_NE(what.find(part), std::string::npos) << what;
    }
    try {
      weft::Runtime rt;
      ADD_FAILURE() << name << "=" << value << " accepted by the runtime";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  EnvVar empty("WEFT_PLACEMENT", "");
  EXPECT_THROW(Config::from_env(Config{}), std::invalid_argument);
}

TEST_F(OmpConfig, RuntimeWorkersArePinnedWhereOmpPlacesSays) {
  const int cpu = allowed.back();
  EnvVar places("OMP_PLACES", std::to_string(cpu));  // a one-CPU place without braces (5.1)
  Config base;
  base.workers = 1;
  weft::Runtime rt(base);
  EXPECT_EQ(rt.worker_cpus(), std::vector<int>{cpu});
  std::vector<int> seen = rt.run([] {
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof(set), &set);
    std::vector<int> out;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) out.push_back(c);
    return out;
  });
  EXPECT_EQ(seen, std::vector<int>{cpu});
}

}  // namespace
