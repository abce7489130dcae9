// The latency levels of a topology (MCTOP's hwc_group levels, thesis §7.3.4
// "roles"): contexts that talk at <= a latency value form one group.
#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include "topology_impl.hpp"

namespace weft::sched::detail {

namespace {

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(int n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  bool unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    if (a < b) std::swap(a, b);
    parent[a] = b;
    return true;
  }
};

// Groups of a union-find partition: sorted members, groups ordered by first member.
std::vector<std::vector<int>> groups_of(UnionFind& uf, int n) {
  std::map<int, std::vector<int>> by_root;
  for (int i = 0; i < n; ++i) by_root[uf.find(i)].push_back(i);
  std::vector<std::vector<int>> out;
  for (auto& [root, members] : by_root) out.push_back(std::move(members));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::vector<int>> partition_by(const std::vector<ContextInfo>& ctx, int ContextInfo::*field) {
  std::map<int, std::vector<int>> m;
  for (int i = 0; i < static_cast<int>(ctx.size()); ++i) m[ctx[i].*field].push_back(i);
  std::vector<std::vector<int>> out;
  for (auto& [k, v] : m) out.push_back(std::move(v));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// Levels: Kruskal over the pairs sorted by latency; one snapshot per distinct
// latency value at which some groups merged. O(N^2 log N) overall.
std::vector<TopologyLevel> compute_levels(const Topology::Impl& t) {
  const int n = t.n();
  struct Pair {
    double lat;
    int a, b;
  };
  std::vector<Pair> pairs;
  pairs.reserve(static_cast<size_t>(n) * (n - 1) / 2);
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) pairs.push_back({t.lat[a * n + b], a, b});
  std::sort(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) { return x.lat < y.lat; });
  auto cores = partition_by(t.ctx, &ContextInfo::core);
  auto sockets = partition_by(t.ctx, &ContextInfo::socket);
  std::vector<TopologyLevel> levels;
  UnionFind uf(n);
  for (size_t i = 0; i < pairs.size();) {
    double v = pairs[i].lat;
    bool merged = false;
    for (; i < pairs.size() && pairs[i].lat == v; ++i) merged |= uf.unite(pairs[i].a, pairs[i].b);
    if (!merged) continue;
    TopologyLevel level;
    level.latency = v;
    level.groups = groups_of(uf, n);
    if (level.groups == sockets) {
      level.role = LevelRole::Socket;
    } else if (level.groups == cores) {
      level.role = LevelRole::Core;
    } else {
      bool inside = std::all_of(level.groups.begin(), level.groups.end(), [&](const std::vector<int>& g) {
        return std::all_of(g.begin(), g.end(), [&](int c) { return t.ctx[c].socket == t.ctx[g[0]].socket; });
      });
      level.role = inside ? LevelRole::Group : LevelRole::CrossSocket;
    }
    levels.push_back(std::move(level));
  }
  return levels;
}

}  // namespace weft::sched::detail
