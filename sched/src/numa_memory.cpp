// MCTOP enrichment (thesis §7.4 "Enriching MCTOP Topologies"): memory
// latency by a random linked list of line-sized nodes; bandwidth by
// sequential reads, one thread and one thread per local context (max = sum
// of per-thread bandwidths).
#include "weft/sched/numa_memory.hpp"

#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <new>
#include <numeric>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "weft/sched/cpuset.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace weft::sched {

namespace {
bool numa_usable() noexcept {
  static const bool usable = numa_available() >= 0;
  return usable;
}

// LeakSanitizer does not scan anonymous mappings: objects placed in node
// memory (the runtime's workers) would make everything they own look leaked
// in a process that keeps its runtime to the end (the OpenMP library does).
void scan_for_leaks(void* p, std::size_t bytes, bool on) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  if (on) __lsan_register_root_region(p, bytes);
  else __lsan_unregister_root_region(p, bytes);
#else
  (void)p, (void)bytes, (void)on;
#endif
}
}  // namespace

int os_node_of_cpu(int os_cpu) noexcept {
  if (os_cpu < 0 || !numa_usable()) return -1;
  return numa_node_of_cpu(os_cpu);
}

bool prefer_node(void* addr, std::size_t bytes, int os_node) noexcept {
  if (os_node < 0 || !numa_usable()) return true;
  constexpr unsigned long kBits = sizeof(unsigned long) * CHAR_BIT;
  if (os_node >= 64 * static_cast<int>(kBits)) return false;
  unsigned long mask[64] = {};
  mask[static_cast<unsigned>(os_node) / kBits] = 1ul << (static_cast<unsigned>(os_node) % kBits);
  // maxnode counts bits and the kernel reads maxnode - 1 of them.
  return mbind(addr, bytes, MPOL_PREFERRED, mask, static_cast<unsigned long>(os_node) + 2, 0) == 0;
}

void* allocate_node_memory(std::size_t bytes, int os_node) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  prefer_node(p, bytes, os_node);
  scan_for_leaks(p, bytes, true);
  return p;
}

void* allocate_node_memory_huge(std::size_t bytes, int os_node) {
  bytes = huge_page_bytes(bytes);
  // Map one huge page more, then unmap what lies outside the aligned range.
  const std::size_t mapped = bytes + kHugePageBytes;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  char* raw = static_cast<char*>(p);
  char* aligned = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(raw) + kHugePageBytes - 1) &
                                          ~(kHugePageBytes - 1));
  if (aligned > raw) munmap(raw, static_cast<std::size_t>(aligned - raw));
  if (char* end = raw + mapped; aligned + bytes < end) munmap(aligned + bytes, static_cast<std::size_t>(end - aligned - bytes));
#if defined(MADV_HUGEPAGE)
  madvise(aligned, bytes, MADV_HUGEPAGE);  // a hint: refused (THP off) leaves 4 KiB pages
#endif
  prefer_node(aligned, bytes, os_node);
  scan_for_leaks(aligned, bytes, true);
  return aligned;
}

namespace {

// The memory nodes the calling thread may allocate on, in order.
std::vector<int> allowed_memory_nodes() {
  std::vector<int> nodes;
  if (!numa_usable()) return nodes;
  bitmask* allowed = numa_get_mems_allowed();
  if (!allowed) return nodes;
  for (int n = 0; n <= numa_max_node(); ++n)
    if (numa_bitmask_isbitset(allowed, static_cast<unsigned>(n))) nodes.push_back(n);
  numa_bitmask_free(allowed);
  return nodes;
}

}  // namespace

bool interleave_over_nodes(void* addr, std::size_t bytes) noexcept {
  if (!numa_usable()) return true;
  bitmask* allowed = numa_get_mems_allowed();
  if (!allowed) return false;
  const bool ok = mbind(addr, bytes, MPOL_INTERLEAVE, allowed->maskp, allowed->size + 1, 0) == 0;
  numa_bitmask_free(allowed);
  return ok;
}

bool block_over_nodes(void* addr, std::size_t bytes) noexcept {
  std::vector<int> nodes;
  try {
    nodes = allowed_memory_nodes();
  } catch (...) {
    return false;
  }
  if (nodes.size() < 2) return true;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t pages = (bytes + page - 1) / page, parts = nodes.size();
  bool ok = true;
  char* p = static_cast<char*>(addr);
  for (std::size_t k = 0, first = 0; k < parts; ++k) {
    const std::size_t count = pages / parts + (k < pages % parts ? 1 : 0);
    if (count == 0) continue;
    ok = prefer_node(p + first * page, count * page, nodes[k]) && ok;
    first += count;
  }
  return ok;
}

void free_node_memory(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  scan_for_leaks(p, bytes, false);
  munmap(p, bytes);
}

NodeBuffer::NodeBuffer(std::size_t bytes, int os_node) : size_(bytes), node_(os_node) {
  if (bytes == 0) return;
  if (numa_usable() && os_node >= 0 && os_node <= numa_max_node()) {
    data_ = numa_alloc_onnode(bytes, os_node);
    numa_ = data_ != nullptr;
  }
  if (!data_) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = p;
  }
}

NodeBuffer::~NodeBuffer() {
  if (!data_) return;
  if (numa_) numa_free(data_, size_);
  else munmap(data_, size_);
}

NodeBuffer::NodeBuffer(NodeBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), node_(o.node_), numa_(o.numa_) {}

NodeBuffer& NodeBuffer::operator=(NodeBuffer&& o) noexcept {
  if (this != &o) {
    NodeBuffer tmp(std::move(*this));
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    node_ = o.node_;
    numa_ = o.numa_;
  }
  return *this;
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kLine = 64;

double chase_ns(int os_node, const MemoryProbeOptions& o) {
  const std::size_t lines = std::max<std::size_t>(2, o.chase_bytes / kLine);
  NodeBuffer buf(lines * kLine, os_node);
  auto* base = static_cast<char*>(buf.data());
  std::vector<std::size_t> order(lines);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(42));
  for (std::size_t i = 0; i < lines; ++i)  // a single random cycle through all lines
    *reinterpret_cast<void**>(base + order[i] * kLine) = base + order[(i + 1) % lines] * kLine;
  void* p = base;
  for (std::size_t i = 0; i < lines; ++i) p = *static_cast<void**>(p);  // warm the TLB/path
  auto t0 = Clock::now();
  for (std::size_t i = 0; i < o.chase_steps; ++i) p = *static_cast<void**>(p);
  double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  asm volatile("" ::"r"(p));
  return ns / static_cast<double>(o.chase_steps);
}

// GB/s of sequential reads of a node-local buffer (best of o.passes).
double stream_gbs(int os_node, const MemoryProbeOptions& o, std::atomic<int>* start = nullptr) {
  const std::size_t words = std::max<std::size_t>(1, o.stream_bytes / sizeof(std::uint64_t));
  NodeBuffer buf(words * sizeof(std::uint64_t), os_node);
  auto* w = static_cast<std::uint64_t*>(buf.data());
  for (std::size_t i = 0; i < words; ++i) w[i] = i;
  if (start) {
    start->fetch_sub(1);
    while (start->load() > 0) std::this_thread::yield();
  }
  double best = 0;
  for (int pass = 0; pass < std::max(1, o.passes); ++pass) {
    auto t0 = Clock::now();
    std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (std::size_t i = 0; i + 3 < words; i += 4) s0 += w[i], s1 += w[i + 1], s2 += w[i + 2], s3 += w[i + 3];
    double sec = std::chrono::duration<double>(Clock::now() - t0).count();
    std::uint64_t sum = s0 + s1 + s2 + s3;
    asm volatile("" ::"r"(sum));
    best = std::max(best, static_cast<double>(words * sizeof(std::uint64_t)) / sec / 1e9);
  }
  return best;
}

}  // namespace

MemoryInfo measure_node_memory(const Topology& t, int os_node, const MemoryProbeOptions& o) {
  std::vector<int> local;
  for (int s = 0; s < t.num_sockets(); ++s)
    if (t.socket_node(s) == os_node)
      for (int c : t.socket_contexts(s)) local.push_back(c);
  if (local.empty()) local.push_back(0);
  AffinityGuard guard;
  pin_current_thread(t.os_cpu(local[0]));
  MemoryInfo m;
  m.latency_ns = chase_ns(os_node, o);
  m.bandwidth_single_gbs = stream_gbs(os_node, o);
  int k = static_cast<int>(local.size());
  if (o.max_threads > 0) k = std::min(k, o.max_threads);
  std::vector<double> per(k, 0);
  std::atomic<int> start{k};
  std::vector<std::thread> threads;
  for (int i = 0; i < k; ++i)
    threads.emplace_back([&, i] {
      pin_current_thread(t.os_cpu(local[i]));
      per[i] = stream_gbs(os_node, o, &start);
    });
  for (auto& th : threads) th.join();
  m.bandwidth_gbs = std::accumulate(per.begin(), per.end(), 0.0);  // §7.4: sum of per-thread bandwidths
  return m;
}

Topology measure_memory(const Topology& t, const MemoryProbeOptions& o) {
  Topology out = t;
  for (int node : t.node_ids()) {
    if (o.progress) o.progress(node);
    out = out.with_memory(node, measure_node_memory(t, node, o));
  }
  return out;
}

}  // namespace weft::sched
