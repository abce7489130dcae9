#pragma once
// The arrival half of the team barrier (internal): a software combining tree
// of counters (Yew, Tzeng and Lawrie 1987; Mellor-Crummey and Scott 1991,
// §3.3), fan-in kFanIn, one cache line per node. Member m arrives at leaf
// m / kFanIn; the last to arrive at a node resets it and goes on to its
// parent; the last at the root is the last of the team. The waiting half is
// the team's barrier word (team.hpp), on a line of its own that only the
// last arrival writes, so waiters spinning on it are not disturbed by
// arrivals.
//
// A single counter makes all n members' read-modify-writes queue for one
// line, each taking it from the waiters spinning there too: with 16 members
// on the 16-core Xeon guest, EPCC's barrier took 3.8 us that way (libgomp,
// one counter too: 1.7 us), 1.8 us with the counter on a line apart from the
// waiters, 1.3 us with this tree at fan-in 2 and 1.1 us at fan-in 4
// (bench/results/openmp-16core-barrier-ab.txt). Teams of up to kFanIn
// members keep one counter in the barrier word itself (fewer transfers).
//
// A node is reset by its last arrival before that one goes on, and nobody
// arrives at it again before the barrier completes (which needs that
// arrival), so the tree is clean at every barrier's end. A cancelled region
// may leave arrivals behind: begin_region clears the tree then (reset()).

#include <atomic>
#include <cstdint>

#include "weft/sched/cpu.hpp"

namespace weft::omp {

struct alignas(sched::cache_line_size) ArrivalNode {
  std::atomic<std::uint32_t> arrived{0};
  std::uint32_t expected = 0;  // its children: members (a leaf) or nodes
  int parent = -1;             // -1: the root
};

class ArrivalTree {
 public:
  static constexpr int kFanIn = 4;

  // Nodes of the level above a level of `below` members or nodes.
  static constexpr int parents_of(int below) noexcept { return (below + kFanIn - 1) / kFanIn; }

  // Nodes a tree for up to `members` members needs.
  static int nodes_for(int members) noexcept {
    int total = 0;
    for (int nodes = parents_of(members);; nodes = parents_of(nodes)) {
      total += nodes;
      if (nodes <= 1) return total;
    }
  }

  // Storage: nodes_for(capacity) nodes, kept by the team's block.
  void attach(ArrivalNode* nodes) noexcept { nodes_ = nodes; }

  // Shapes the tree for `members` (>= 1) members, unless it has that shape.
  void shape(int members) noexcept {
    if (members == shaped_for_) return;
    int first = 0;  // the level's first node
    for (int below = members;;) {
      const int nodes = parents_of(below);
      for (int j = 0; j < nodes; ++j) {
        ArrivalNode& node = nodes_[first + j];
        node.arrived.store(0, std::memory_order_relaxed);
        node.expected = static_cast<std::uint32_t>(below - j * kFanIn < kFanIn ? below - j * kFanIn : kFanIn);
        node.parent = nodes > 1 ? first + nodes + j / kFanIn : -1;
      }
      if (nodes <= 1) break;
      first += nodes;
      below = nodes;
    }
    shaped_for_ = members;
    node_count_ = first + 1;
  }

  // Clears arrivals a cancelled barrier left behind.
  void reset() noexcept {
    for (int i = 0; i < node_count_; ++i) nodes_[i].arrived.store(0, std::memory_order_relaxed);
  }

  // Member `member` arrives; true when it was the last of all (then every
  // other member's arrival, and what it wrote before, happened before).
  bool arrive(int member) noexcept {
    int i = member / kFanIn;
    for (;;) {
      ArrivalNode& node = nodes_[i];
      if (node.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 != node.expected) return false;
      node.arrived.store(0, std::memory_order_relaxed);
      if (node.parent < 0) return true;
      i = node.parent;
    }
  }

 private:
  ArrivalNode* nodes_ = nullptr;
  int shaped_for_ = -1;
  int node_count_ = 0;
};

}  // namespace weft::omp
