#include "weft/sched/numa_memory.hpp"

#include <gtest/gtest.h>

#include <cstring>

using namespace weft::sched;

TEST(NodeBuffer, AllocatesWritableMemoryAndMoves) {
  NodeBuffer b(1 << 20, 0);
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(b.size(), 1u << 20);
  std::memset(b.data(), 0xab, b.size());
  NodeBuffer c = std::move(b);
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(static_cast<unsigned char*>(c.data())[12345], 0xab);
  NodeBuffer empty;
  EXPECT_EQ(empty.data(), nullptr);
}

// Shape only (never timing): small sizes so it stays quick.
TEST(MemoryProbe, MeasuresEveryNodeOfThisMachine) {
  Topology t = Topology::discover();
  MemoryProbeOptions o;
  o.chase_bytes = 4u << 20;
  o.chase_steps = 1u << 16;
  o.stream_bytes = 4u << 20;
  o.passes = 1;
  int calls = 0;
  o.progress = [&](int) { ++calls; };
  Topology m = measure_memory(t, o);
  EXPECT_EQ(calls, t.num_nodes());
  EXPECT_TRUE(m.has_memory_info());
  for (int node : m.node_ids()) {
    EXPECT_GT(m.memory(node).latency_ns, 0);
    EXPECT_GT(m.memory(node).bandwidth_gbs, 0);
    EXPECT_GT(m.memory(node).bandwidth_single_gbs, 0);
  }
}
