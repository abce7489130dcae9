#include "weft/sched/topology_io.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace weft::sched;

namespace {
std::string saved(const Topology& t) {
  std::ostringstream o;
  save_topology(t, o);
  return o.str();
}
Topology load(const std::string& text) {
  std::istringstream in(text);
  return load_topology(in, "test.topo");
}
// Expects a TopologyFormatError at `line` whose message contains `what`.
void expect_error(const std::string& text, int line, const std::string& what) {
  try {
    load(text);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const TopologyFormatError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find("test.topo:" + std::to_string(line) + ": "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}
const char* kGood =
    "# a two-context machine\n"
    "weft-topology 1\n"
    "description tiny box\n"
    "source measured\n"
    "contexts 2\n"
    "ctx 0 0 0 0 0\n"
    "ctx 1 1 1 0 0\n"
    "latency 0 0 118\n"
    "latency 1 118 0\n"
    "memory 0 85.5 12 6\n"
    "end\n";
}  // namespace

TEST(TopologyIo, RoundTripSynthetic) {
  Topology t = Topology::from_hwloc_synthetic("pack:2 [numa] core:3 pu:2").with_memory(1, {92.25, 21.5, 7.125});
  Topology u = load(saved(t));
  EXPECT_EQ(u.num_contexts(), t.num_contexts());
  EXPECT_EQ(u.num_cores(), t.num_cores());
  EXPECT_EQ(u.num_sockets(), t.num_sockets());
  EXPECT_EQ(u.num_nodes(), t.num_nodes());
  EXPECT_EQ(u.latency_table(), t.latency_table());
  EXPECT_EQ(u.description(), t.description());
  EXPECT_EQ(u.latency_source(), t.latency_source());
  for (int i = 0; i < t.num_contexts(); ++i) {
    EXPECT_EQ(u.os_cpu(i), t.os_cpu(i));
    EXPECT_EQ(u.core_of(i), t.core_of(i));
    EXPECT_EQ(u.socket_of(i), t.socket_of(i));
    EXPECT_EQ(u.node_of(i), t.node_of(i));
  }
  EXPECT_EQ(u.memory(1).latency_ns, 92.25);
  EXPECT_EQ(u.memory(1).bandwidth_single_gbs, 7.125);
  EXPECT_FALSE(u.memory(0).measured());
  EXPECT_EQ(saved(u), saved(t));
}

TEST(TopologyIo, RoundTripFile) {
  Topology t = Topology::from_hwloc_synthetic("pack:1 core:2 pu:1");
  std::string path = ::testing::TempDir() + "weft_io_test.topo";
  save_topology(t, path);
  Topology u = load_topology(path);
  EXPECT_EQ(u.latency_table(), t.latency_table());
  EXPECT_THROW(load_topology(std::string("/nonexistent/x.topo")), std::runtime_error);
}

TEST(TopologyIo, GoodHandWrittenFile) {
  Topology t = load(kGood);
  EXPECT_EQ(t.num_contexts(), 2);
  EXPECT_EQ(t.num_cores(), 2);
  EXPECT_EQ(t.latency(0, 1), 118);
  EXPECT_EQ(t.description(), "tiny box");
  EXPECT_EQ(t.memory(0).latency_ns, 85.5);
}

TEST(TopologyIo, MalformedFilesNameTheLineAndTheExpectation) {
  std::string g = kGood;
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = g;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  expect_error("", 1, "header 'weft-topology 1', got end of file");
  expect_error(replace("weft-topology 1", "weft-topology 2"), 2, "format version 1");
  expect_error(replace("source measured", "source guessed"), 4, "'source estimated' or 'source measured'");
  expect_error(replace("contexts 2", "contexts two"), 5, "'contexts <N>'");
  expect_error(replace("ctx 1 1 1 0 0", "ctx 1 1 1 0"), 7, "'ctx 1 <os_cpu> <core> <socket> <node>'");
  expect_error(replace("ctx 1 1 1 0 0", "ctx 3 1 1 0 0"), 7, "context 1 of 2");
  expect_error(replace("latency 1 118 0", "latency 1 118"), 9, "followed by 2 non-negative numbers");
  expect_error(replace("latency 0 0 118", "latency 0 0 fast"), 8, "row 0 of the latency table");
  expect_error(replace("latency 0 0 118", "latency 0 0 -5"), 8, "non-negative");
  expect_error(replace("memory 0 85.5 12 6", "memory 0 85.5"), 10, "'memory <node>");
  expect_error(replace("memory 0 85.5 12 6", "memory 4 85.5 12 6"), 10, "node 4, which no context belongs to");
  expect_error(replace("end\n", ""), 11, "or 'end', got end of file");
  expect_error(replace("end\n", "bogus\n"), 11, "or 'end', got 'bogus'");
  // Structurally inconsistent: asymmetric table.
  expect_error(replace("latency 1 118 0", "latency 1 119 0"), 11, "not symmetric at (0,1)");
}
