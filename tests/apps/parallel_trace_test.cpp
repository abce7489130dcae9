// The parallel layer in a trace (weft/runtime/trace.hpp): each member's part
// of a region is a "parallel region" scope, each loop chunk a "loop chunk"
// scope, on the track of the worker that ran it (read back with
// tests/runtime/check_trace.py, a real JSON parser).

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>

#include <weft/weft.hpp>

namespace weft {
namespace {

std::map<std::string, long> checked_counts(const std::string& path, std::string& output) {
  std::FILE* p = popen(("python3 " WEFT_TRACE_CHECKER " '" + path + "' 2>&1").c_str(), "r");
  char buf[4096];
  while (p && std::fgets(buf, sizeof buf, p)) output += buf;
  const int status = p ? pclose(p) : -1;
  std::map<std::string, long> counts;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos && line.rfind("PROBLEM", 0) != 0) counts[line.substr(0, eq)] = std::stol(line.substr(eq + 1));
  }
  counts["status"] = status;
  return counts;
}

TEST(ParallelTrace, RegionsAndLoopChunksAreScopes) {
  Config c;
  c.workers = 2;
  c.pin_workers = false;
  Runtime rt(c);
  const std::string path = ::testing::TempDir() + "weft_parallel_trace_" + std::to_string(getpid()) + ".json";
  trace::start(path);
  std::atomic<long> sum{0};
  rt.run([&] {
    ParallelOptions two;
    two.num_threads = 2;
    parallel(two, [&](Team& team) {
      team.for_each(0, 64, [&](int i) { sum += i; }, schedule_static(8));  // 8 chunks of 8
    });
  });
  ASSERT_TRUE(trace::stop().written);
  EXPECT_EQ(sum.load(), 64 * 63 / 2);
  std::string output;
  auto counts = checked_counts(path, output);
  ASSERT_EQ(counts["status"], 0) << output;
  EXPECT_EQ(counts["scopes_parallel region"], 2) << output;
  EXPECT_EQ(counts["scopes_loop chunk"], 8) << output;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace weft
