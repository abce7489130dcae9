#pragma once
// Reads a trace back with check_trace.py (Python's json module; the path is
// the compile definition WEFT_TRACE_CHECKER): its verdict and the key=value
// counts it prints (slices and scopes by name, scope arguments summed per
// name, flows, dropped events). Shared by the trace tests of every layer,
// with the runtime they trace and the file they write.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>

#include "weft/runtime/config.hpp"

namespace weft::testing {

// `workers` workers, not pinned (the tests share a 2-core machine).
inline Config unpinned(int workers) {
  Config c;
  c.workers = workers;
  c.pin_workers = false;
  return c;
}

// A trace file in the test's temporary folder, one per name and process.
inline std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "weft_trace_" + name + "_" + std::to_string(getpid()) + ".json";
}

struct TraceCounts {
  int status = -1;     // the checker's exit status: 0 = a valid trace
  std::string output;  // what it printed (for failure messages)
  std::map<std::string, long> counts;
  long operator[](const std::string& key) const {
    auto it = counts.find(key);
    return it == counts.end() ? 0 : it->second;
  }
};

inline TraceCounts check_trace(const std::string& path) {
  TraceCounts c;
  std::FILE* p = popen(("python3 " WEFT_TRACE_CHECKER " '" + path + "' 2>&1").c_str(), "r");
  if (!p) return c;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) c.output += buf;
  c.status = pclose(p);
  std::istringstream lines(c.output);
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos && line.rfind("PROBLEM", 0) != 0) c.counts[line.substr(0, eq)] = std::stol(line.substr(eq + 1));
  }
  return c;
}

}  // namespace weft::testing
