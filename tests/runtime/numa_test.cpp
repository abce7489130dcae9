// Per-worker memory on the worker's NUMA node: ULT stacks, deque arrays and
// the Worker object are mappings with MPOL_PREFERRED for the node of the
// worker's CPU. Checked through the kernel's own view (get_mempolicy) of
// the pages a ULT's stack uses, on every worker, and of the allocator itself
// (also its huge-page variant, used for task blocks).

#include <gtest/gtest.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <weft/runtime.hpp>
#include <weft/sched/cpuset.hpp>
#include <weft/sched/numa_memory.hpp>


namespace {

constexpr unsigned long kMaxNodes = 1024;
constexpr unsigned long kBits = sizeof(unsigned long) * CHAR_BIT;

struct PagePolicy {
  int mode = -1;
  std::vector<int> nodes;  // the policy's node mask
  int resident_node = -1;  // where the page actually is
};

PagePolicy policy_of(const void* addr) {
  PagePolicy p;
  unsigned long mask[kMaxNodes / kBits] = {};
  void* page = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(addr) &
                                       ~static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE) - 1));
  if (get_mempolicy(&p.mode, mask, kMaxNodes, page, MPOL_F_ADDR) != 0) return p;
  for (unsigned long n = 0; n < kMaxNodes; ++n)
    if (mask[n / kBits] & (1ul << (n % kBits))) p.nodes.push_back(static_cast<int>(n));
  get_mempolicy(&p.resident_node, nullptr, 0, page, MPOL_F_NODE | MPOL_F_ADDR);
  return p;
}

bool numa_supported() { return numa_available() >= 0; }

TEST(NodeMemory, AllocationPrefersTheNode) {
  if (!numa_supported()) GTEST_SKIP() << "libnuma reports no NUMA support on this kernel";
  const int node = numa_node_of_cpu(sched_getcpu());
  const std::size_t bytes = 3 * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* mem = weft::sched::allocate_node_memory(bytes, node);
  static_cast<volatile char*>(mem)[0] = 1;
  PagePolicy p = policy_of(mem);
  EXPECT_EQ(p.mode, MPOL_PREFERRED);
  EXPECT_EQ(p.nodes, std::vector<int>{node});
  EXPECT_EQ(p.resident_node, node);
  weft::sched::free_node_memory(mem, bytes);
}

TEST(NodeMemory, NoNodeMeansTheDefaultPolicy) {
  const std::size_t bytes = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* mem = weft::sched::allocate_node_memory(bytes, -1);
  static_cast<volatile char*>(mem)[0] = 1;
  if (numa_supported()) {
    EXPECT_EQ(policy_of(mem).mode, MPOL_DEFAULT);
  }
  weft::sched::free_node_memory(mem, bytes);
}

// The VmFlags line of the mapping that holds addr (/proc/self/smaps).
std::string vm_flags_of(const void* addr) {
  std::ifstream smaps("/proc/self/smaps");
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = lo <= a && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return {};
}

// Huge-page memory (the runtime's task blocks after the first megabyte):
// whole 2 MiB pages, aligned to one, asked for as transparent huge pages
// where the kernel has them, and preferring the node like the rest.
TEST(NodeMemory, HugePageMemoryIsAlignedWholeAndAdvised) {
  using weft::sched::kHugePageBytes;
  EXPECT_EQ(weft::sched::huge_page_bytes(1), kHugePageBytes);
  EXPECT_EQ(weft::sched::huge_page_bytes(kHugePageBytes), kHugePageBytes);
  EXPECT_EQ(weft::sched::huge_page_bytes(kHugePageBytes + 1), 2 * kHugePageBytes);
  const int node = numa_supported() ? numa_node_of_cpu(sched_getcpu()) : -1;
  const std::size_t bytes = 3 * (kHugePageBytes / 2);  // rounded up to two huge pages
  auto* mem = static_cast<volatile char*>(weft::sched::allocate_node_memory_huge(bytes, node));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(mem) % kHugePageBytes, 0u);
  mem[0] = 1;
  mem[weft::sched::huge_page_bytes(bytes) - 1] = 2;  // the rounded-up end is usable
  if (numa_supported()) {
    EXPECT_EQ(policy_of(const_cast<char*>(mem)).mode, MPOL_PREFERRED);
  }
  // Kernels with transparent huge pages show the advice as "hg" in VmFlags.
  const std::string flags = vm_flags_of(const_cast<char*>(mem));
  if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled") && !flags.empty()) {
    EXPECT_NE(flags.find(" hg"), std::string::npos) << "no MADV_HUGEPAGE flag on the mapping: " << flags;
  }
  weft::sched::free_node_memory(const_cast<char*>(mem), weft::sched::huge_page_bytes(bytes));
}

TEST(NodeMemory, UnknownCpuHasNoNode) { EXPECT_EQ(weft::sched::os_node_of_cpu(-1), -1); }

TEST(NodeMemory, EveryWorkersStackIsOnItsNode) {
  if (!numa_supported()) GTEST_SKIP() << "libnuma reports no NUMA support on this kernel";
  const int workers = static_cast<int>(std::min<std::size_t>(2, weft::sched::allowed_cpus().size()));
  weft::Config c;
  c.workers = workers;
  weft::Runtime rt(c);
  weft::Stats stats = rt.stats();
  for (int w = 0; w < workers; ++w) {
    const int cpu = rt.worker_cpus()[static_cast<std::size_t>(w)];
    const int node = numa_node_of_cpu(cpu);
    EXPECT_EQ(stats.workers[static_cast<std::size_t>(w)].numa_node, node) << "worker " << w;
    // The frame address, not a local array: ASan may move locals to a fake stack.
    PagePolicy p = rt.spawn_on(w, [] { return policy_of(__builtin_frame_address(0)); }).join();
    EXPECT_EQ(p.mode, MPOL_PREFERRED) << "worker " << w;
    EXPECT_EQ(p.nodes, std::vector<int>{node}) << "worker " << w;
    EXPECT_EQ(p.resident_node, node) << "worker " << w;
  }
}

TEST(NodeMemory, UnpinnedWorkersHaveNoNode) {
  weft::Config c;
  c.workers = 2;
  c.pin_workers = false;
  weft::Runtime rt(c);
  for (const auto& w : rt.stats().workers) EXPECT_EQ(w.numa_node, -1);
}

}  // namespace
