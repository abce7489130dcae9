// Traces (weft/runtime/trace.hpp) of known programs, read back with a real
// JSON parser (check_trace.py, Python's json module): every event on a named
// worker track, time never going backwards on a track, slices that never
// overlap, flows that join two events; the ULT slices match what the program
// spawned and parked; a tiny buffer reports exactly the events it dropped;
// bad settings are errors naming them; a failed write leaves the program
// running.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"
#include "trace_checker.hpp"

namespace weft {
namespace {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int kChildren = 8, kParks = 4;
#else
constexpr int kChildren = 32, kParks = 8;
#endif

using testing::temp_path;
using testing::unpinned;

using Checked = testing::TraceCounts;
Checked check(const std::string& path) { return testing::check_trace(path); }

// Root: spawns kChildren "child" ULTs; kParks times, waits until every child
// has parked and unparks them all; then joins them. Each child runs
// kParks + 1 stretches: kParks ending in a park, one in its finish.
void park_rounds() {
  std::atomic<int> parked{0};
  std::vector<UltRef> refs(kChildren);
  std::vector<Ult<void>> children;
  for (int i = 0; i < kChildren; ++i)
    children.push_back(spawn(label("child"), [&, i] {
      refs[static_cast<std::size_t>(i)] = this_ult::ref();
      for (int p = 0; p < kParks; ++p) {
        parked.fetch_add(1);
        park();
      }
    }));
  for (int round = 1; round <= kParks; ++round) {
    while (parked.load() != round * kChildren) this_ult::yield();
    for (UltRef r : refs) unpark(r);
  }
  for (auto& c : children) c.join();
}

TEST(Trace, AKnownProgramOnOneWorkerGivesExactlyItsSlicesAndFlows) {
  const std::string path = temp_path("one_worker");
  Config c = unpinned(1);
  Runtime rt(c);
  trace::start(path);
  EXPECT_TRUE(trace::active());
  rt.run(label("root"), [] { park_rounds(); });
  const trace::Summary summary = trace::stop();
  EXPECT_FALSE(trace::active());
  ASSERT_TRUE(summary.written);
  EXPECT_EQ(summary.dropped_events, 0u);
  const Checked t = check(path);
  ASSERT_EQ(t.status, 0) << t.output;
  EXPECT_EQ(t["tracks"], 1);
  EXPECT_EQ(t["ult_slices_label_child"], kChildren * (kParks + 1)) << t.output;
  EXPECT_EQ(t["ended_park_label_child"], kChildren * kParks) << t.output;
  EXPECT_EQ(t["ended_finish_label_child"], kChildren) << t.output;
  EXPECT_EQ(t["ended_finish_label_root"], 1) << t.output;
  EXPECT_EQ(t["flows_spawn"], kChildren) << "the root came from a plain thread: no spawn event";
  // None for the joins: the root's first join finds the children ready and
  // yields once instead of parking (spin_briefly), and they all finish.
  EXPECT_EQ(t["flows_unpark"], kChildren * kParks) << t.output;
  EXPECT_EQ(t["instant_spawn"], kChildren);
  EXPECT_EQ(t["dropped"], 0);
  std::remove(path.c_str());
}

TEST(Trace, TwoWorkersGiveAValidTraceWithEveryChildsRunsAndStealsAsFlows) {
  const std::string path = temp_path("two_workers");
  Config c = unpinned(2);
  Runtime rt(c);
  trace::start(path);
  for (int rep = 0; rep < 3; ++rep) rt.run(label("root"), [] { park_rounds(); });
  ASSERT_TRUE(trace::stop().written);
  const Checked t = check(path);
  ASSERT_EQ(t.status, 0) << t.output;
  EXPECT_EQ(t["tracks"], 2);
  // A park that finds its unpark already there does not switch: at most kParks + 1 runs.
  EXPECT_GE(t["ult_slices_label_child"], 3 * kChildren);
  EXPECT_LE(t["ult_slices_label_child"], 3 * kChildren * (kParks + 1));
  EXPECT_EQ(t["ended_finish_label_child"], 3 * kChildren) << t.output;
  EXPECT_EQ(t["flows_spawn"], 3 * kChildren) << t.output;
  EXPECT_EQ(t["flows_steal"], t["instant_steal"]) << t.output;
  std::remove(path.c_str());
}

// start()/stop() from a plain thread while both workers keep switching:
// stop() must not read a slot a worker is still writing (TSan checks), and
// each trace must still be well formed, with small rings that wrap.
TEST(Trace, StartAndStopWhileWorkersRecord) {
  Config c = unpinned(2);
  Runtime rt(c);
  std::atomic<bool> done{false};
  std::vector<Ult<void>> busy;
  for (int i = 0; i < 4; ++i)
    busy.push_back(rt.spawn_on(i % 2, label("busy"), [&] {
      while (!done.load()) this_ult::yield();
    }));
  for (int round = 0; round < 3; ++round) {
    const std::string path = temp_path("live_" + std::to_string(round));
    trace::start(path, 64);
    // Until both workers have switched more often than their rings hold
    // (on a loaded machine a worker may not run for milliseconds).
    const Stats before = rt.stats();
    auto switched = [&](int w) { return rt.stats().workers[w].switches - before.workers[w].switches; };
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while ((switched(0) < 200 || switched(1) < 200) && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const trace::Summary s = trace::stop();
    ASSERT_TRUE(s.written);
    const Checked t = check(path);
    ASSERT_EQ(t.status, 0) << t.output;
    EXPECT_EQ(t["tracks"], 2);
    EXPECT_GT(t["ult_slices_label_busy"], 0) << t.output;
    EXPECT_GT(s.dropped_events, 0u) << "the rings wrapped";
    std::remove(path.c_str());
  }
  done.store(true);
  for (auto& b : busy) b.join();
}

// trace::Scope: a named async slice on the worker's track, both ends on one
// track even when the ULT parks and yields inside; nothing on a plain thread.
TEST(Trace, ScopesAreNamedSlicesOnTheirWorkersTrack) {
  const std::string path = temp_path("scopes");
  Config c = unpinned(2);
  Runtime rt(c);
  trace::start(path);
  { trace::Scope outside(label("plain-thread")); }
  rt.run([] {
    for (int i = 0; i < 5; ++i) {
      trace::Scope phase(label("phase"));
      phase.arg(label("round"), static_cast<std::uint64_t>(i));
      this_ult::yield();
      spawn([] { trace::Scope inner(label("inner")); }).join();
      this_ult::sleep_for(std::chrono::microseconds(50));  // parks inside the scope
    }
  });
  ASSERT_TRUE(trace::stop().written);
  { trace::Scope after(label("after-stop")); }
  const Checked t = check(path);
  ASSERT_EQ(t.status, 0) << t.output;
  EXPECT_EQ(t["scopes_phase"], 5) << t.output;
  EXPECT_EQ(t["scopes_inner"], 5) << t.output;
  EXPECT_EQ(t["scopes_phase.round"], 0 + 1 + 2 + 3 + 4) << t.output;  // Scope::arg, summed by the checker
  EXPECT_EQ(t["scopes_phase.by_ult"], 5) << t.output;                  // each names the ULT that opened it
  EXPECT_EQ(t["scopes_inner.by_ult"], 5) << t.output;
  EXPECT_EQ(t["scopes_plain-thread"], 0);
  std::remove(path.c_str());
}

// Every spawn overload takes a label.
TEST(Trace, EverySpawnOverloadNamesItsSlices) {
  const std::string path = temp_path("labels");
  Config c = unpinned(2);
  Runtime rt(c);
  trace::start(path);
  rt.spawn(label("rt.spawn"), [] {}).join();
  rt.spawn_on(1, label("rt.spawn_on"), [] {}).join();
  EXPECT_EQ(rt.async(label("rt.async"), [] { return 2; }).get(), 2);
  EXPECT_EQ(rt.run(label("rt.run"), [] { return 3; }), 3);
  rt.run([] {
    spawn(label("spawn"), [] {}).join();
    spawn_on(0, label("spawn_on"), [] {}).join();
    async(label("async"), [] {}).get();
    TaskGroup g;
    g.run(label("group"), [] {});
    g.run(label("group"), [] {});
    g.wait();
  });
  ASSERT_TRUE(trace::stop().written);
  const Checked t = check(path);
  ASSERT_EQ(t.status, 0) << t.output;
  for (const char* name : {"rt.spawn", "rt.spawn_on", "rt.async", "rt.run", "spawn", "spawn_on", "async"})
    EXPECT_EQ(t[std::string("ended_finish_label_") + name], 1) << name << "\n" << t.output;
  EXPECT_EQ(t["ended_finish_label_group"], 2) << t.output;
  EXPECT_GE(t["ended_finish_label_ult"], 1) << "the unlabelled root";
  std::remove(path.c_str());
}

// Started and stopped inside a ULT on one worker that only ever switches
// between two ULTs: exactly 2 events per round (each switch, recorded where
// it resumes), so a ring of 16 keeps 16 and drops the rest.
TEST(Trace, ATinyBufferReportsExactlyTheEventsItDropped) {
  const std::string path = temp_path("tiny");
  constexpr int kRounds = 100;
  constexpr std::size_t kBuffer = 16;
  Config c = unpinned(1);
  Runtime rt(c);
  trace::Summary summary = rt.run([&] {
    std::atomic<bool> done{false};
    auto other = spawn([&] {
      while (!done.load()) this_ult::yield();
    });
    this_ult::yield();  // `other` has started and waits in the ready queue
    trace::start(path, kBuffer);
    for (int i = 0; i < kRounds; ++i) this_ult::yield();
    trace::Summary s = trace::stop();
    done.store(true);
    other.join();
    return s;
  });
  ASSERT_TRUE(summary.written);
  EXPECT_EQ(summary.events, kBuffer);
  EXPECT_EQ(summary.dropped_events, 2 * kRounds - kBuffer);
  const Checked t = check(path);
  ASSERT_EQ(t.status, 0) << t.output;
  EXPECT_EQ(t["dropped"], static_cast<long>(2 * kRounds - kBuffer));
  EXPECT_EQ(t["dropped_instant"], static_cast<long>(2 * kRounds - kBuffer));
  EXPECT_EQ(t["events"], static_cast<long>(kBuffer));
  EXPECT_EQ(t["ult_slices"], static_cast<long>(kBuffer) + 1) << "16 switches bound 15 runs, plus one at each end";
  std::remove(path.c_str());
}

void expect_invalid(const std::function<void()>& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected std::invalid_argument mentioning '" << fragment << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Trace, BadSettingsAreErrorsNamingThem) {
  expect_invalid([] { trace::start("/nonexistent-weft-dir/trace.json"); }, "/nonexistent-weft-dir/trace.json");
  expect_invalid([] { trace::start(""); }, "empty path");
  expect_invalid([] { trace::start(temp_path("bad"), 1); }, "buffer_events");
  expect_invalid([] { trace::start(temp_path("bad"), trace::kMaxBufferEvents + 1); }, "buffer_events");
  EXPECT_FALSE(trace::active());
  for (const char* bad : {"0", "abc", "-5", "99999999999999"}) {
    ::setenv("WEFT_TRACE_BUFFER", bad, 1);
    expect_invalid([] { Config::from_env(); }, "WEFT_TRACE_BUFFER");
  }
  ::unsetenv("WEFT_TRACE_BUFFER");
  ::setenv("WEFT_TRACE", "", 1);
  expect_invalid([] { Config::from_env(); }, "WEFT_TRACE");
  ::unsetenv("WEFT_TRACE");
  Config c = unpinned(1);
  c.trace_file = "/nonexistent-weft-dir/trace.json";
  expect_invalid([&] { Runtime rt(c); }, "WEFT_TRACE");
  EXPECT_FALSE(trace::active());
  // One trace at a time.
  const std::string path = temp_path("twice");
  trace::start(path);
  try {
    trace::start(path);
    ADD_FAILURE() << "a second trace::start did not throw";
  } catch (const std::invalid_argument& e) {
    ADD_FAILURE() << "a second trace is a state error, not a bad argument: " << e.what();
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("already being recorded"), std::string::npos) << e.what();
  }
  trace::stop();
  std::remove(path.c_str());
  EXPECT_FALSE(trace::stop().written) << "nothing to stop";
}

TEST(Trace, AFailedWriteIsReportedAndTheProgramGoesOn) {
  const std::string dir = ::testing::TempDir() + "weft_trace_dir_" + std::to_string(getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  const std::string path = dir + "/trace.json";
  Config c = unpinned(1);
  Runtime rt(c);
  trace::start(path);
  const int result = rt.run([] { return 42; });
  std::remove(path.c_str());
  ASSERT_EQ(::rmdir(dir.c_str()), 0);  // the file can no longer be created
  ::testing::internal::CaptureStderr();
  const trace::Summary s = trace::stop();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(s.written);
  EXPECT_NE(err.find("could not write the trace"), std::string::npos) << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_EQ(result, 42);
  EXPECT_EQ(rt.run([] { return 7; }), 7);
}

// WEFT_TRACE (Config::trace_file) records from the runtime's start and
// writes the file at exit.
TEST(Trace, ConfigTraceFileIsWrittenAtExit) {
  // The child process runs this test again from the start: the path travels in the environment.
  if (!std::getenv("WEFT_TRACE_TEST_AT_EXIT")) ::setenv("WEFT_TRACE_TEST_AT_EXIT", temp_path("at_exit").c_str(), 1);
  const std::string path = std::getenv("WEFT_TRACE_TEST_AT_EXIT");
  std::remove(path.c_str());
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a forked child would lack the pooled worker threads
  EXPECT_EXIT(
      {
        Config c = unpinned(2);
        c.trace_file = path;
        c.trace_buffer_events = 4096;
        Runtime rt(c);
        rt.run(label("at-exit"), [] { spawn(label("child"), [] {}).join(); });
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  const Checked t = check(path);
  ASSERT_EQ(t.status, 0) << t.output;
  EXPECT_EQ(t["ended_finish_label_at-exit"], 1) << t.output;
  EXPECT_EQ(t["ended_finish_label_child"], 1) << t.output;
  std::remove(path.c_str());
  ::unsetenv("WEFT_TRACE_TEST_AT_EXIT");
}

}  // namespace
}  // namespace weft
