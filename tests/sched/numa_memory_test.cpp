#include "weft/sched/numa_memory.hpp"

#include <gtest/gtest.h>
#include <numa.h>
#include <numaif.h>

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

// The OpenMP allocators' partitions: the policy the kernel reports for the
// pages, and memory that stays usable.
TEST(NodeMemory, InterleavedAndBlockedMemoryIsPlacedAndUsable) {
  const std::size_t bytes = 4u << 20;
  void* p = allocate_node_memory(bytes, -1);
  ASSERT_TRUE(interleave_over_nodes(p, bytes));
  if (numa_available() >= 0) {
    int mode = -1;
    ASSERT_EQ(get_mempolicy(&mode, nullptr, 0, p, MPOL_F_ADDR), 0);
    EXPECT_EQ(mode, MPOL_INTERLEAVE);
  }
  std::memset(p, 0x5a, bytes);
  EXPECT_EQ(static_cast<unsigned char*>(p)[bytes - 1], 0x5a);
  free_node_memory(p, bytes);

  void* q = allocate_node_memory(bytes, -1);
  ASSERT_TRUE(block_over_nodes(q, bytes));
  if (numa_available() >= 0 && numa_num_configured_nodes() >= 2) {
    // The first part prefers the first node, the last part the last one.
    int first = -1, last = -1;
    unsigned long mask[16] = {};
    ASSERT_EQ(get_mempolicy(&first, mask, 16 * 64, q, MPOL_F_ADDR), 0);
    EXPECT_EQ(first, MPOL_PREFERRED);
    ASSERT_EQ(get_mempolicy(&last, mask, 16 * 64, static_cast<char*>(q) + bytes - 1, MPOL_F_ADDR), 0);
    EXPECT_EQ(last, MPOL_PREFERRED);
  }
  std::memset(q, 0x33, bytes);
  EXPECT_EQ(static_cast<unsigned char*>(q)[bytes / 2], 0x33);
  free_node_memory(q, bytes);
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
