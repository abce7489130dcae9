// The environment the parallel layer reads: OMP_NUM_THREADS, OMP_WAIT_POLICY,
// OMP_SCHEDULE and their WEFT_* twins. The parsers are called directly with
// bad values (an error naming the variable and the accepted forms);
// default_runtime_config() and schedule_runtime() are checked with setenv
// (neither starts a runtime, so a bad value is an exception, not a death).

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "parallel_test_support.hpp"
#include "weft/sched/cpuset.hpp"
#include "weft/sched/omp_places.hpp"

namespace {

// Sets variables for the scope of one test and restores them after.
class ScopedEnv {
 public:
  ScopedEnv() {
    for (const char* v : kVars) {
      const char* old = std::getenv(v);
      saved_.push_back(old ? std::optional<std::string>(old) : std::nullopt);
      unsetenv(v);
    }
  }
  ~ScopedEnv() {
    for (std::size_t i = 0; i < saved_.size(); ++i) {
      if (saved_[i]) setenv(kVars[i], saved_[i]->c_str(), 1);
      else unsetenv(kVars[i]);
    }
  }
  void set(const char* name, const char* value) { setenv(name, value, 1); }

 private:
  static constexpr const char* kVars[] = {"OMP_NUM_THREADS", "WEFT_WORKERS",     "OMP_WAIT_POLICY",
                                          "WEFT_WAIT_POLICY", "WEFT_IDLE_SPIN_US", "OMP_SCHEDULE",
                                          "WEFT_SCHEDULE",   "WEFT_PIN",          "OMP_PLACES",
                                          "OMP_PROC_BIND",   "WEFT_PLACEMENT",    "WEFT_CPUS"};
  std::vector<std::optional<std::string>> saved_;
};

// The call throws an OmpEnvError naming `variable`, with `expected` in its message.
template <class F>
::testing::AssertionResult fails_naming(F&& call, const std::string& variable, const std::string& expected) {
  try {
    call();
    return ::testing::AssertionFailure() << "no exception";
  } catch (const weft::sched::OmpEnvError& e) {
    const std::string what = e.what();
    if (e.variable() != variable || what.find(variable) == std::string::npos)
      return ::testing::AssertionFailure() << "names " << e.variable() << ": " << what;
    if (what.find(expected) == std::string::npos)
      return ::testing::AssertionFailure() << "does not say '" << expected << "': " << what;
    return ::testing::AssertionSuccess();
  }
}

TEST(Environment, NumThreadsAcceptsACountOrAListPerLevel) {
  EXPECT_EQ(weft::parse_num_threads("4"), 4);
  EXPECT_EQ(weft::parse_num_threads(" 12 "), 12);
  EXPECT_EQ(weft::parse_num_threads("8,4,2"), 8);
  EXPECT_EQ(weft::parse_num_threads("3 , 1"), 3);
  for (const char* bad : {"", "0", "-2", "four", "4,", ",4", "4,x", "5000", "1.5", "99999999999999999999"})
    EXPECT_TRUE(fails_naming([&] { weft::parse_num_threads(bad); }, "OMP_NUM_THREADS", "thread count"))
        << "'" << bad << "'";
  EXPECT_TRUE(fails_naming([] { weft::parse_num_threads("x", "MY_THREADS"); }, "MY_THREADS", "1 to 4096"));
}

TEST(Environment, WaitPolicyIsActiveOrPassive) {
  EXPECT_EQ(weft::parse_wait_policy("ACTIVE"), weft::WaitPolicy::active);
  EXPECT_EQ(weft::parse_wait_policy("passive"), weft::WaitPolicy::passive);
  EXPECT_EQ(weft::parse_wait_policy(" Passive "), weft::WaitPolicy::passive);
  for (const char* bad : {"", "busy", "activ", "1"})
    EXPECT_TRUE(fails_naming([&] { weft::parse_wait_policy(bad); }, "OMP_WAIT_POLICY", "ACTIVE or PASSIVE"))
        << "'" << bad << "'";
  EXPECT_GT(weft::idle_spin_us_for(weft::WaitPolicy::active), weft::Config{}.idle_spin_us);
  EXPECT_EQ(weft::idle_spin_us_for(weft::WaitPolicy::passive), 0);
}

TEST(Environment, ScheduleHasOpenMPsSyntax) {
  using K = weft::Schedule::Kind;
  auto is = [](const char* text, K kind, std::uint64_t chunk) {
    const weft::Schedule s = weft::parse_schedule(text);
    return s.kind == kind && s.chunk == chunk;
  };
  EXPECT_TRUE(is("static", K::static_, 0));
  EXPECT_TRUE(is("static,4", K::static_, 4));
  EXPECT_TRUE(is("STATIC, 0", K::static_, 0));
  EXPECT_TRUE(is("dynamic", K::dynamic, 1));
  EXPECT_TRUE(is("dynamic,64", K::dynamic, 64));
  EXPECT_TRUE(is("dynamic,0", K::dynamic, 1));  // libgomp: 0 means the default
  EXPECT_TRUE(is(" guided , 8 ", K::guided, 8));
  EXPECT_TRUE(is("auto", K::adaptive, 0));
  EXPECT_TRUE(is("monotonic:dynamic,16", K::dynamic, 16));
  EXPECT_TRUE(is("nonmonotonic : guided", K::guided, 1));
  EXPECT_TRUE(is("Monotonic:static", K::static_, 0));
  EXPECT_EQ(weft::parse_schedule("guided,8"), weft::schedule_guided(8));
  for (const char* bad : {"", "fast", "dynamic,", "dynamic,x", "dynamic,-4", "auto,4", "sorted:dynamic",
                          "dynamic;4", "static,4,2", ":static"})
    EXPECT_TRUE(fails_naming([&] { weft::parse_schedule(bad); }, "OMP_SCHEDULE", "static|dynamic|guided|auto"))
        << "'" << bad << "'";
  EXPECT_TRUE(fails_naming([] { weft::parse_schedule("x", "WEFT_SCHEDULE"); }, "WEFT_SCHEDULE", "dynamic,64"));
  for (const auto& [name, s] : weft::test::all_schedules()) EXPECT_EQ(weft::parse_schedule(weft::to_string(s)), s);
}

TEST(Environment, DefaultRuntimeConfigReadsTheOpenMPVariablesAndTheirTwins) {
  ScopedEnv env;
  EXPECT_EQ(weft::default_runtime_config().idle_spin_us, weft::Config{}.idle_spin_us);

  env.set("OMP_NUM_THREADS", "1,1");
  EXPECT_EQ(weft::default_runtime_config().workers, 1);
  const int allowed = static_cast<int>(weft::sched::allowed_cpus().size());
  env.set("OMP_NUM_THREADS", std::to_string(allowed + 3).c_str());
  weft::Config over = weft::default_runtime_config();
  EXPECT_EQ(over.workers, allowed + 3);
  EXPECT_FALSE(over.pin_workers) << "more threads than CPUs oversubscribes, unpinned";
  env.set("WEFT_WORKERS", "1");
  EXPECT_EQ(weft::default_runtime_config().workers, 1) << "WEFT_WORKERS wins over OMP_NUM_THREADS";

  env.set("OMP_WAIT_POLICY", "passive");
  EXPECT_EQ(weft::default_runtime_config().idle_spin_us, 0);
  env.set("WEFT_WAIT_POLICY", "active");
  EXPECT_EQ(weft::default_runtime_config().idle_spin_us, weft::idle_spin_us_for(weft::WaitPolicy::active));
  env.set("WEFT_IDLE_SPIN_US", "7");
  EXPECT_EQ(weft::default_runtime_config().idle_spin_us, 7) << "an explicit spin wins over the policy";
}

TEST(Environment, DefaultRuntimeConfigRejectsBadValuesNamingTheVariable) {
  {
    ScopedEnv env;
    env.set("OMP_NUM_THREADS", "many");
    EXPECT_TRUE(fails_naming([] { weft::default_runtime_config(); }, "OMP_NUM_THREADS", "thread count"));
  }
  {
    ScopedEnv env;
    env.set("OMP_WAIT_POLICY", "spin");
    EXPECT_TRUE(fails_naming([] { weft::default_runtime_config(); }, "OMP_WAIT_POLICY", "ACTIVE or PASSIVE"));
  }
  {
    ScopedEnv env;
    env.set("OMP_WAIT_POLICY", "passive");
    env.set("WEFT_WAIT_POLICY", "lazy");  // the twin is read first, and named
    EXPECT_TRUE(fails_naming([] { weft::default_runtime_config(); }, "WEFT_WAIT_POLICY", "ACTIVE or PASSIVE"));
  }
}

// The only test of this binary that calls schedule_runtime(), which reads the
// environment once.
TEST(Environment, ScheduleRuntimeReadsWeftScheduleThenOmpScheduleOnce) {
  ScopedEnv env;
  env.set("OMP_SCHEDULE", "guided,3");
  env.set("WEFT_SCHEDULE", "dynamic,x");
  EXPECT_TRUE(fails_naming([] { weft::schedule_runtime(); }, "WEFT_SCHEDULE", "static|dynamic|guided|auto"))
      << "a bad value is reported at every call until fixed";
  EXPECT_TRUE(fails_naming([] { weft::schedule_runtime(); }, "WEFT_SCHEDULE", "static|dynamic|guided|auto"));
  unsetenv("WEFT_SCHEDULE");
  EXPECT_EQ(weft::schedule_runtime(), weft::schedule_guided(3));
  env.set("OMP_SCHEDULE", "static");
  EXPECT_EQ(weft::schedule_runtime(), weft::schedule_guided(3)) << "read once, like OpenMP's run-sched-var";
  // A loop under it runs every index once.
  weft::test::HitCounter hits(1000);
  weft::parallel_for(0, 1000, [&](int i) { hits.hit(static_cast<std::uint64_t>(i)); }, weft::schedule_runtime());
  EXPECT_TRUE(hits.every_once());
}

}  // namespace
