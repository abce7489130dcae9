// The Graph500 validation of a BFS result and its search keys, across ranks
// (validation.hpp).
#include "weft/mpi/graph500/validation.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

#include "graph500_exchange.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/graph/detail/random.hpp"

namespace weft::mpi::graph500 {

namespace {

using weft::graph::Array;

// A tree edge, sent to the parent's owner: `child`'s parent is `parent`.
struct TreeEdge {
  NodeId parent;
  NodeId child;
};

// A vertex reached by the walk down the tree, at `level`.
struct Reached {
  NodeId vertex;
  NodeId level;
};

// An edge (near, far) sent to far's owner with near's level, coded as
// 2 * level + (1 if far is near's parent), or -1 when near is unreached.
struct EdgeCheck {
  NodeId far;
  NodeId near;
  NodeId near_code;
};

// The first problem this rank found for each of the five checks.
struct Problems {
  std::array<std::string, 5> first;
  void add(int check, const std::string& p) {
    if (first[static_cast<std::size_t>(check - 1)].empty()) first[static_cast<std::size_t>(check - 1)] = p;
  }
};

std::string vertex(NodeId v) { return "vertex " + std::to_string(v); }

// Checks 2-4 for the edge (near, far), far local with level `far_level`.
void check_edge(NodeId near, NodeId near_code, NodeId far, NodeId far_level, NodeId far_parent, Problems& problems) {
  const NodeId near_level = near_code < 0 ? -1 : near_code / 2;
  if ((near_level < 0) != (far_level < 0)) {
    problems.add(4, "check 4 (the tree spans the component): edge " + std::to_string(near) + "-" + std::to_string(far) +
                 " joins " + vertex(near_level < 0 ? near : far) + ", outside the tree, to " +
                 vertex(near_level < 0 ? far : near) + " in it");
    return;
  }
  if (near_level < 0) return;
  if (std::abs(near_level - far_level) > 1) {
    problems.add(3, "check 3 (edges join levels at most one apart): edge " + std::to_string(near) + "-" +
                 std::to_string(far) + " joins levels " + std::to_string(near_level) + " and " +
                 std::to_string(far_level));
  }
  const bool far_is_parent = (near_code & 1) != 0, near_is_parent = far_parent == near;
  if ((far_is_parent && near_level != far_level + 1) || (near_is_parent && far_level != near_level + 1)) {
    problems.add(2, "check 2 (tree edges join consecutive levels): tree edge " + std::to_string(near) + "-" +
                 std::to_string(far) + " joins levels " + std::to_string(near_level) + " and " +
                 std::to_string(far_level));
  }
}

// For each failed check, the lowest failing rank's first problem, all on
// every rank, joined with "; ".
std::string agree(const Problems& mine, const Partition& part, MPI_Comm comm) {
  std::array<int, 5> failing;
  for (std::size_t c = 0; c < 5; ++c) failing[c] = mine.first[c].empty() ? part.ranks : part.rank;
  failing = detail::all_reduce(failing, MPI_MIN, comm);
  std::string all;
  for (std::size_t c = 0; c < 5; ++c) {
    if (failing[c] == part.ranks) continue;
    std::array<char, 512> text{};
    std::strncpy(text.data(), mine.first[c].c_str(), text.size() - 1);
    ibcast(std::span<char>(text), failing[c], comm).wait();
    all += (all.empty() ? "" : "; ") + ("rank " + std::to_string(failing[c]) + ": " + text.data());
  }
  return all;
}

}  // namespace

Validation validate_bfs(const DistributedGraph& g, NodeId root, std::span<const NodeId> parent) {
  const Partition& part = g.partition;
  const std::int64_t n = part.local_count(), first = part.first();
  if (static_cast<std::int64_t>(parent.size()) != n)
    throw std::invalid_argument("graph500 validate_bfs: " + std::to_string(parent.size()) + " parents for " +
                                std::to_string(n) + " local vertices");
  return weft::graph::detail::on_runtime([&] {
    Problems problems;
    // Check 1 (root) and check 5 (a tree edge is a graph edge), locally:
    // the graph is symmetric, so v's parent must be in v's own row.
    if (part.is_local(root) && parent[static_cast<std::size_t>(part.to_local(root))] != root)
      problems.add(1, "check 1 (a tree rooted at the root): the root " + std::to_string(root) + "'s parent is " +
                   std::to_string(parent[static_cast<std::size_t>(part.to_local(root))]));
    std::vector<TreeEdge> tree;
    std::int64_t reached = 0, traversed = 0;
    for (std::int64_t l = 0; l < n; ++l) {
      const NodeId p = parent[static_cast<std::size_t>(l)], v = part.to_global(l);
      if (p == -1) continue;
      ++reached;
      traversed += g.input_edges[static_cast<std::size_t>(l)];
      if (p < -1 || p >= part.num_vertices) {
        problems.add(1, "check 1 (a tree): " + vertex(v) + "'s parent " + std::to_string(p) + " is not a vertex");
        continue;
      }
      if (v == root) continue;
      const NodeId* row = g.neighbours.data() + g.offsets[static_cast<std::size_t>(l)];
      const NodeId* row_end = g.neighbours.data() + g.offsets[static_cast<std::size_t>(l) + 1];
      if (!std::binary_search(row, row_end, p))
        problems.add(5, "check 5 (tree edges are graph edges): " + vertex(v) + "'s parent " + std::to_string(p) +
                     " is not its neighbour");
      tree.push_back({p, v});
    }
    // Levels: the children lists at their parents' owners, then a walk down
    // the tree from the root, one exchange per level.
    const std::vector<TreeEdge> children_in =
        detail::exchange_by(tree, part.ranks, [&](const TreeEdge& e) { return part.owner(e.parent); }, g.comm);
    std::vector<TreeEdge>().swap(tree);
    Array<std::int64_t> child_start(static_cast<std::size_t>(n) + 1, 0);
    for (const TreeEdge& e : children_in) ++child_start[static_cast<std::size_t>(e.parent - first) + 1];
    for (std::int64_t l = 0; l < n; ++l) child_start[static_cast<std::size_t>(l) + 1] += child_start[static_cast<std::size_t>(l)];
    std::vector<NodeId> children(children_in.size());
    {
      std::vector<std::int64_t> cursor(child_start.begin(), child_start.end() - 1);
      for (const TreeEdge& e : children_in)
        children[static_cast<std::size_t>(cursor[static_cast<std::size_t>(e.parent - first)]++)] = e.child;
    }
    Array<NodeId> level(static_cast<std::size_t>(n), -1);
    std::vector<NodeId> frontier;  // local ids
    if (part.is_local(root) && parent[static_cast<std::size_t>(part.to_local(root))] == root) {
      level[static_cast<std::size_t>(part.to_local(root))] = 0;
      frontier.push_back(static_cast<NodeId>(part.to_local(root)));
    }
    for (NodeId depth = 1;; ++depth) {
      std::vector<Reached> out;
      for (NodeId l : frontier) {
        for (std::int64_t c = child_start[static_cast<std::size_t>(l)]; c < child_start[static_cast<std::size_t>(l) + 1]; ++c)
          out.push_back({children[static_cast<std::size_t>(c)], depth});
      }
      const std::vector<Reached> in =
          detail::exchange_by(out, part.ranks, [&](const Reached& r) { return part.owner(r.vertex); }, g.comm);
      frontier.clear();
      for (const Reached& r : in) {
        NodeId& lv = level[static_cast<std::size_t>(r.vertex - first)];
        if (lv != -1) {
          problems.add(1, "check 1 (a tree): " + vertex(r.vertex) + " is reached twice walking down the tree");
          continue;
        }
        lv = r.level;
        frontier.push_back(static_cast<NodeId>(r.vertex - first));
      }
      const auto more = detail::all_reduce(std::array<std::int64_t, 1>{static_cast<std::int64_t>(frontier.size())},
                                           MPI_SUM, g.comm);
      if (more[0] == 0) break;
    }
    for (std::int64_t l = 0; l < n; ++l) {
      if (parent[static_cast<std::size_t>(l)] != -1 && level[static_cast<std::size_t>(l)] == -1)
        problems.add(1, "check 1 (a tree): " + vertex(part.to_global(l)) +
                     " has a parent but its chain of parents does not lead to the root (a cycle or a detached chain)");
    }
    // Checks 2-4 over every edge once (from its lower end), remote far ends
    // at their owners.
    std::vector<EdgeCheck> remote;
    for (std::int64_t l = 0; l < n; ++l) {
      const NodeId near = part.to_global(l), lv = level[static_cast<std::size_t>(l)];
      const NodeId near_parent = parent[static_cast<std::size_t>(l)];
      for (std::int64_t e = g.offsets[static_cast<std::size_t>(l)]; e < g.offsets[static_cast<std::size_t>(l) + 1]; ++e) {
        const NodeId far = g.neighbours[static_cast<std::size_t>(e)];
        if (far < near) continue;
        const NodeId code = lv < 0 ? -1 : 2 * lv + (near_parent == far ? 1 : 0);
        if (part.is_local(far)) {
          const auto f = static_cast<std::size_t>(part.to_local(far));
          check_edge(near, code, far, level[f], parent[f], problems);
        } else {
          remote.push_back({far, near, code});
        }
      }
    }
    const std::vector<EdgeCheck> checks =
        detail::exchange_by(remote, part.ranks, [&](const EdgeCheck& c) { return part.owner(c.far); }, g.comm);
    std::vector<EdgeCheck>().swap(remote);
    for (const EdgeCheck& c : checks) {
      const auto f = static_cast<std::size_t>(part.to_local(c.far));
      check_edge(c.near, c.near_code, c.far, level[f], parent[f], problems);
    }
    Validation v;
    const auto totals =
        detail::all_reduce(std::array<std::int64_t, 2>{traversed, reached}, MPI_SUM, g.comm);
    v.edges_traversed = totals[0];
    v.vertices_reached = totals[1];
    v.problem = agree(problems, part, g.comm);
    return v;
  });
}

std::vector<NodeId> pick_search_keys(const DistributedGraph& g, int count, std::uint64_t seed) {
  const Partition& part = g.partition;
  if (count < 1) throw std::invalid_argument("graph500: the number of search keys must be at least 1, got " + std::to_string(count));
  std::int64_t with_edges = 0;
  for (std::int64_t l = 0; l < part.local_count(); ++l) with_edges += g.degree(l) > 0 ? 1 : 0;
  with_edges = detail::all_reduce(std::array<std::int64_t, 1>{with_edges}, MPI_SUM, g.comm)[0];
  if (with_edges < count)
    throw std::invalid_argument("graph500: " + std::to_string(count) + " search keys asked for, but only " +
                                std::to_string(with_edges) + " vertices have an edge");
  // Candidates uniform over all vertices, from one stream every rank draws
  // alike; a candidate's owner says whether it has an edge (a MAX reduction
  // over a batch of flags); duplicates are skipped.
  weft::graph::detail::SplitMix64 rng(seed, 0x4b455953, 0);
  std::vector<NodeId> keys;
  const auto batch = static_cast<std::size_t>(2 * count);
  std::vector<NodeId> candidates(batch);
  std::vector<unsigned char> has_edge(batch);
  while (keys.size() < static_cast<std::size_t>(count)) {
    for (std::size_t i = 0; i < batch; ++i) {
      candidates[i] = static_cast<NodeId>(rng.below(static_cast<std::uint64_t>(part.num_vertices)));
      has_edge[i] = part.is_local(candidates[i]) && g.degree(part.to_local(candidates[i])) > 0 ? 1 : 0;
    }
    iallreduce(std::span<unsigned char>(has_edge), MPI_MAX, g.comm).wait();
    for (std::size_t i = 0; i < batch && keys.size() < static_cast<std::size_t>(count); ++i) {
      if (has_edge[i] != 0 && std::find(keys.begin(), keys.end(), candidates[i]) == keys.end())
        keys.push_back(candidates[i]);
    }
  }
  return keys;
}

}  // namespace weft::mpi::graph500
