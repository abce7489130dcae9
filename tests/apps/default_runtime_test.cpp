// Which runtime the parallel layer runs on: the caller's, the most recent live
// one, or the process-wide default started on first use.

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "weft/weft.hpp"

namespace {

TEST(RuntimeCurrent, IsNullOnAPlainThreadWithNoRuntimeAlive) {
  // Runs before any default runtime exists only if it is the first test; in
  // any case a fresh thread with no Runtime of its own sees the registry.
  weft::Runtime* seen = weft::Runtime::current();
  if (seen) GTEST_SKIP() << "the default runtime was started by an earlier test";
  EXPECT_EQ(seen, nullptr);
}

TEST(RuntimeCurrent, IsTheCallersRuntimeInsideAUlt) {
  weft::Config c;
  c.workers = 2;
  weft::Runtime rt(c);
  EXPECT_EQ(rt.run([] { return weft::Runtime::current(); }), &rt);
}

TEST(RuntimeCurrent, IsTheMostRecentLiveRuntimeOnAPlainThread) {
  weft::Config c;
  c.workers = 1;
  weft::Runtime a(c);
  {
    weft::Runtime b(c);
    EXPECT_EQ(weft::Runtime::current(), &b);
  }
  EXPECT_EQ(weft::Runtime::current(), &a);
}

TEST(DefaultRuntime, RunsOnTheUsersRuntimeWhenOneIsAlive) {
  weft::Config c;
  c.workers = 1;
  weft::Runtime rt(c);
  weft::Runtime* where = weft::detail::run_on_ult([] { return weft::Runtime::current(); });
  EXPECT_EQ(where, &rt);
}

TEST(DefaultRuntime, StartsOnFirstUseAndIsReusedFromAnyThread) {
  int v = weft::detail::run_on_ult([] {
    EXPECT_TRUE(weft::this_ult::inside());
    return 42;
  });
  EXPECT_EQ(v, 42);
  weft::Runtime* first = &weft::default_runtime();
  weft::Runtime* from_thread = nullptr;
  std::thread t([&] { from_thread = weft::detail::run_on_ult([] { return weft::Runtime::current(); }); });
  t.join();
  EXPECT_EQ(from_thread, first);
  EXPECT_GE(first->num_workers(), 1);
}

TEST(DefaultRuntime, RethrowsWhatTheUltThrew) {
  EXPECT_THROW(weft::detail::run_on_ult([]() -> int { throw std::runtime_error("boom"); }), std::runtime_error);
}

TEST(RuntimeTopology, DescribesEveryWorkerCpu) {
  weft::Config c;
  c.workers = 1;
  weft::Runtime rt(c);
  const auto& topo = rt.topology();
  for (int cpu : rt.worker_cpus()) EXPECT_GE(topo.context_of_os_cpu(cpu), 0) << "CPU " << cpu;
}

}  // namespace
