// MCTOP-ALG steps 2-4 (thesis §7.3.2-§7.3.4). Where step 3's reduction
// cannot be done, §7.3.5 "Practical Considerations" stops ("some of the
// measurements cannot be clustered properly ... the user must retry"); weft
// resolves the level by majority linkage and reports every misfit pair
// instead (the deviation is described in mctop_alg.hpp and
// docs/topology-format.md, "Inference on virtual machines").
#include "weft/sched/mctop_alg.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <sstream>

#include "text_format.hpp"

namespace weft::sched {

std::vector<LatencyCluster> cluster_latencies(std::vector<double> values, double rel_gap, double abs_gap) {
  std::sort(values.begin(), values.end());
  std::vector<LatencyCluster> out;
  size_t begin = 0;
  auto close = [&](size_t end) {
    LatencyCluster c;
    c.min = values[begin];
    c.max = values[end - 1];
    size_t k = end - begin;
    c.median = k % 2 ? values[begin + k / 2] : (values[begin + k / 2 - 1] + values[begin + k / 2]) / 2;
    c.count = static_cast<int>(k);
    out.push_back(c);
  };
  for (size_t i = 1; i <= values.size(); ++i) {
    if (i == values.size() || values[i] - values[i - 1] > std::max(abs_gap, rel_gap * values[i - 1])) {
      if (i > begin) close(i);
      begin = i;
    }
  }
  return out;
}

std::string_view to_string(InferenceDiagnostic::Kind kind) {
  switch (kind) {
    case InferenceDiagnostic::Kind::Asymmetric: return "asymmetric";
    case InferenceDiagnostic::Kind::LevelResolved: return "level resolved";
    case InferenceDiagnostic::Kind::NodeCount: return "node count";
    case InferenceDiagnostic::Kind::Misfit: return "misfit";
  }
  return "?";
}

namespace {

using Groups = std::vector<std::vector<int>>;  // each ascending; ordered by first member

// A latency in messages as `std::ostream << v` writes it.
std::string num(double v) { return detail::format_number(v); }

// What the steps share: the table, its clusters and each pair's cluster.
struct Clustered {
  const LatencyTable& table;
  int n;
  std::vector<double> raw;  // symmetric, N*N
  std::vector<LatencyCluster> clusters;
  std::vector<int> cl;  // cluster index of each pair, N*N (-1 on the diagonal)

  int cluster(int a, int b) const { return cl[static_cast<size_t>(a) * n + b]; }
  double value(int a, int b) const { return raw[static_cast<size_t>(a) * n + b]; }
  double median(int c) const { return clusters[c].median; }
  std::string cpu(int row) const { return std::to_string(table.os_cpus[row]); }
  // OS cpus of rows, ranges compressed: {0-7,9,11}.
  std::string cpus(const std::vector<int>& rows) const {
    std::string s = "{";
    for (size_t i = 0; i < rows.size();) {
      size_t j = i;
      while (j + 1 < rows.size() && table.os_cpus[rows[j + 1]] == table.os_cpus[rows[j]] + 1) ++j;
      if (i) s += ',';
      s += cpu(rows[i]);
      if (j > i) s += (j == i + 1 ? "," : "-") + cpu(rows[j]);
      i = j + 1;
    }
    return s + "}";
  }
  std::string level_name(int c) const { return "the " + num(median(c)) + "-cycle level"; }
};

Groups sorted_groups(Groups g) {
  for (auto& x : g) std::sort(x.begin(), x.end());
  std::sort(g.begin(), g.end());
  return g;
}

Groups merge_by_root(const Groups& comps, const std::vector<int>& root) {
  std::map<int, std::vector<int>> by_root;
  for (size_t i = 0; i < comps.size(); ++i)
    by_root[root[i]].insert(by_root[root[i]].end(), comps[i].begin(), comps[i].end());
  Groups out;
  for (auto& [r, members] : by_root) out.push_back(std::move(members));
  return sorted_groups(std::move(out));
}

// §7.3.3: classification and reduction at cluster `level`. Components whose
// (reduced) latency is this level's group together; the result is valid only
// if the definition of a component holds: every context pair between two
// components has the same latency (the reduction), members talk at exactly
// this level, and have the same latency to every other component. Returns
// nullopt, with `why` saying what broke, when it does not hold (where the
// thesis stops, §7.3.5).
std::optional<Groups> thesis_components(const Clustered& t, const Groups& comps, int level, std::string& why) {
  const int k = static_cast<int>(comps.size());
  std::vector<int> red(static_cast<size_t>(k) * k, -1);
  for (int i = 0; i < k; ++i)
    for (int j = i + 1; j < k; ++j) {
      const std::vector<int>&x = comps[i], &y = comps[j];
      int c = t.cluster(x[0], y[0]);
      for (int a : x)
        for (int b : y)
          if (t.cluster(a, b) != c) {
            why = "cpus " + t.cpu(a) + " and " + t.cpu(b) + " are " + num(t.value(a, b)) + " cycles apart, but " +
                  t.cpu(x[0]) + " and " + t.cpu(y[0]) + " are " + num(t.value(x[0], y[0])) + " (components " +
                  t.cpus(x) + " and " + t.cpus(y) + " are not uniform)";
            return std::nullopt;
          }
      red[i * k + j] = red[j * k + i] = c;
    }
  std::vector<int> parent(k);
  std::iota(parent.begin(), parent.end(), 0);
  std::function<int(int)> find = [&](int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); };
  for (int i = 0; i < k; ++i)
    for (int j = i + 1; j < k; ++j)
      if (red[i * k + j] == level) parent[find(j)] = find(i);
  std::map<int, std::vector<int>> groups;
  for (int i = 0; i < k; ++i) groups[find(i)].push_back(i);
  for (const auto& [root, members] : groups) {
    for (size_t x = 0; x < members.size(); ++x)
      for (size_t y = x + 1; y < members.size(); ++y)
        if (red[members[x] * k + members[y]] != level) {
          why = "components " + t.cpus(comps[members[x]]) + " and " + t.cpus(comps[members[y]]) +
                " are grouped through others but talk at " + num(t.median(red[members[x] * k + members[y]])) +
                " cycles";
          return std::nullopt;
        }
    for (int z = 0; z < k; ++z) {
      if (find(z) == root) continue;
      for (int x : members)
        if (red[x * k + z] != red[members[0] * k + z]) {
          why = "components " + t.cpus(comps[x]) + " and " + t.cpus(comps[members[0]]) +
                " belong together but differ in latency to " + t.cpus(comps[z]) + " (" +
                num(t.median(red[x * k + z])) + " vs " + num(t.median(red[members[0] * k + z])) + " cycles)";
          return std::nullopt;
        }
    }
  }
  std::vector<int> root(k);
  for (int i = 0; i < k; ++i) root[i] = find(i);
  return merge_by_root(comps, root);
}

// The deviation, used only at a level where thesis_components() fails:
// majority linkage. Starting from the current components, repeatedly merge
// the two groups with the largest share of context pairs between them that
// talk at this level's latency or lower, while that share is at least 1/2. A
// single pair cannot chain two large groups (the flaw of plain transitive
// closure), while a group most of whose pairs are close is kept. A tie (half)
// merges: interference only ever adds latency and the probe rejects values
// below a local CAS, so a low latency is stronger evidence than a high one.
Groups majority_components(const Clustered& t, const Groups& comps, int level) {
  const int k = static_cast<int>(comps.size());
  std::vector<double> close(static_cast<size_t>(k) * k, 0);
  std::vector<double> size(k);
  for (int i = 0; i < k; ++i) {
    size[i] = static_cast<double>(comps[i].size());
    for (int j = i + 1; j < k; ++j) {
      int c = 0;
      for (int a : comps[i])
        for (int b : comps[j]) c += t.cluster(a, b) <= level;
      close[i * k + j] = close[j * k + i] = c;
    }
  }
  std::vector<int> root(k);
  std::iota(root.begin(), root.end(), 0);
  std::vector<bool> alive(k, true);
  for (;;) {
    int bi = -1, bj = -1;
    double best = 0;
    for (int i = 0; i < k; ++i)
      for (int j = i + 1; alive[i] && j < k; ++j) {
        if (!alive[j]) continue;
        double share = close[i * k + j] / (size[i] * size[j]);
        if (share > best) best = share, bi = i, bj = j;
      }
    if (bi < 0 || best < 0.5) break;
    // Merge bj into bi.
    alive[bj] = false;
    size[bi] += size[bj];
    for (int z = 0; z < k; ++z) {
      close[bi * k + z] += close[bj * k + z];
      close[z * k + bi] = close[bi * k + z];
    }
    for (int x = 0; x < k; ++x)
      if (root[x] == bj) root[x] = bi;
  }
  return merge_by_root(comps, root);
}

// The symmetric table from one or both triangles; malformed entries throw.
std::vector<double> symmetric(const LatencyTable& table, const AlgOptions& opt,
                              std::vector<InferenceDiagnostic>& diagnostics) {
  const int n = table.size();
  std::vector<double> raw(static_cast<size_t>(n) * n, 0);
  auto name = [&](int a, int b) {
    return "cpu " + std::to_string(table.os_cpus[a]) + " to cpu " + std::to_string(table.os_cpus[b]) + " (row " +
           std::to_string(a) + ", column " + std::to_string(b) + ")";
  };
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b && !(std::isfinite(table.at(a, b)) && table.at(a, b) >= 0))
        throw InferenceError("MCTOP-ALG: the latency of " + name(a, b) + " is " + num(table.at(a, b)) +
                             "; latencies must be finite and >= 0 (0: not measured)");
  // Which entries belong together: the clusters of every measured entry,
  // both triangles (only to compare a pair's two entries).
  std::vector<double> entries;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b && table.at(a, b) > 0) entries.push_back(table.at(a, b));
  const std::vector<LatencyCluster> entry_clusters = cluster_latencies(entries, opt.rel_gap, opt.abs_gap);
  auto entry_cluster = [&](double v) {
    return std::find_if(entry_clusters.begin(), entry_clusters.end(),
                        [v](const LatencyCluster& c) { return v <= c.max; }) -
           entry_clusters.begin();
  };
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      const double x = table.at(a, b), y = table.at(b, a);
      double v = std::max(x, y);
      if (x > 0 && y > 0) {
        const double lo = std::min(x, y);
        if (entry_cluster(x) != entry_cluster(y)) {
          diagnostics.push_back({InferenceDiagnostic::Kind::Asymmetric, a, b, lo, lo,
                                 "cpus " + std::to_string(table.os_cpus[a]) + " and " +
                                     std::to_string(table.os_cpus[b]) + ": measured " + num(x) + " one way and " +
                                     num(y) + " the other, in different clusters; used the lower, " + num(lo) +
                                     " (interference only adds latency)"});
          v = lo;
        } else {
          v = (x + y) / 2;
        }
      }
      if (!(v > 0))
        throw InferenceError("MCTOP-ALG: no latency between " + name(a, b) + ": both it and the mirror entry are 0");
      raw[static_cast<size_t>(a) * n + b] = raw[static_cast<size_t>(b) * n + a] = v;
    }
  return raw;
}

void validate(const LatencyTable& table, const AlgOptions& opt) {
  const int n = table.size();
  if (n < 1) throw InferenceError("MCTOP-ALG: empty latency table");
  if (table.values.size() != static_cast<size_t>(n) * n)
    throw InferenceError("MCTOP-ALG: latency table has " + std::to_string(table.values.size()) + " values for " +
                         std::to_string(n) + " contexts (expected " + std::to_string(n * n) + ")");
  for (int i = 0; i < n; ++i)
    if (table.os_cpus[i] < 0 || (i > 0 && table.os_cpus[i] <= table.os_cpus[i - 1]))
      throw InferenceError("MCTOP-ALG: table rows must be distinct OS cpus >= 0 in ascending order (row " +
                           std::to_string(i) + " is cpu " + std::to_string(table.os_cpus[i]) + ")");
  if (opt.num_nodes < 1 || opt.num_nodes > n)
    throw InferenceError("MCTOP-ALG: number of memory nodes " + std::to_string(opt.num_nodes) + " must be in [1, " +
                         std::to_string(n) + "]");
  if (!(std::isfinite(opt.rel_gap) && opt.rel_gap >= 0 && std::isfinite(opt.abs_gap) && opt.abs_gap >= 0))
    throw InferenceError("MCTOP-ALG: clustering gaps must be finite and >= 0 (rel_gap " + num(opt.rel_gap) +
                         ", abs_gap " + num(opt.abs_gap) + ")");
  if (!opt.os_node_of_row.empty()) {
    if (static_cast<int>(opt.os_node_of_row.size()) != n)
      throw InferenceError("MCTOP-ALG: os_node_of_row has " + std::to_string(opt.os_node_of_row.size()) +
                           " entries for " + std::to_string(n) + " contexts");
    for (int i = 0; i < n; ++i)
      if (opt.os_node_of_row[i] < 0)
        throw InferenceError("MCTOP-ALG: os_node_of_row[" + std::to_string(i) + "] is " +
                             std::to_string(opt.os_node_of_row[i]) + "; node ids are >= 0");
  }
}

// Each group split by the OS node of its contexts (groups stay ordered).
Groups split_by_node(const Groups& groups, const std::vector<int>& node) {
  Groups out;
  for (const auto& g : groups) {
    std::map<int, std::vector<int>> parts;
    for (int c : g) parts[node[c]].push_back(c);
    for (auto& [nd, part] : parts) out.push_back(std::move(part));
  }
  return sorted_groups(std::move(out));
}

// The most frequent cluster among the context pairs between two groups
// (ties: the lower cluster, the stronger evidence; see majority_components).
int majority_cluster(const Clustered& t, const std::vector<int>& x, const std::vector<int>& y) {
  std::map<int, int> votes;
  for (int a : x)
    for (int b : y) ++votes[t.cluster(a, b)];
  int best = -1, best_n = 0;
  for (auto [c, k] : votes)
    if (k > best_n) best = c, best_n = k;
  return best;
}

}  // namespace

AlgResult infer_topology(const LatencyTable& table, const AlgOptions& opt) {
  validate(table, opt);
  const int n = table.size();
  AlgResult res{Topology::from_parts({{table.os_cpus[0], 0, 0, 0}}, {0}, LatencySource::Measured), {}, {}, -1, false, {}};
  Clustered t{table, n, symmetric(table, opt, res.diagnostics), {}, {}};

  // Step 2 (§7.3.2): CDF clusters; each pair's cluster.
  std::vector<double> values;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) values.push_back(t.value(a, b));
  t.clusters = res.clusters = cluster_latencies(values, opt.rel_gap, opt.abs_gap);
  t.cl.assign(static_cast<size_t>(n) * n, -1);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b)
        for (size_t c = 0; c < t.clusters.size(); ++c)
          if (t.value(a, b) >= t.clusters[c].min && t.value(a, b) <= t.clusters[c].max)
            t.cl[static_cast<size_t>(a) * n + b] = static_cast<int>(c);

  // Step 3 (§7.3.3): components level by level, up to one per memory node.
  Groups comps;
  for (int i = 0; i < n; ++i) comps.push_back({i});
  std::vector<int> level_cluster;  // cluster index of each entry of res.levels
  auto add_level = [&](int c, const Groups& components) {
    AlgLevel lv;
    lv.cluster = t.clusters[c];
    lv.components = components;
    res.levels.push_back(std::move(lv));
    level_cluster.push_back(c);
  };
  const int L = static_cast<int>(t.clusters.size());
  for (int c = 0; c < L && static_cast<int>(comps.size()) > opt.num_nodes; ++c) {
    std::string why;
    std::optional<Groups> next = thesis_components(t, comps, c, why);
    if (next) {
      // Thesis path. A level that merges nothing: this latency occurs only
      // above components still to be formed.
      if (next->size() != comps.size()) comps = std::move(*next);
      add_level(c, comps);
      continue;
    }
    Groups merged = majority_components(t, comps, c);
    std::string formed;
    int shown = 0;
    for (const auto& g : merged)
      if (std::find(comps.begin(), comps.end(), g) == comps.end() && shown++ < 8) formed += " " + t.cpus(g);
    if (shown > 8) formed += " ... (" + std::to_string(shown) + " groups)";
    res.diagnostics.push_back(
        {InferenceDiagnostic::Kind::LevelResolved, -1, -1, 0, 0,
         t.level_name(c) + ": " + why + "; §7.3.5 stops here. Grouped by majority linkage instead: " +
             (merged.size() == comps.size() ? "no group has half of its pairs this close, so no level here"
                                            : "new groups" + formed)});
    if (merged.size() == comps.size()) continue;
    comps = std::move(merged);
    add_level(c, comps);
  }

  // Sockets (§7.3.4): the level with one component per memory node.
  Groups sockets = comps;
  if (n > 1) {
    res.socket_level = static_cast<int>(res.levels.size()) - 1;
    if (static_cast<int>(comps.size()) == opt.num_nodes) {
      while (res.socket_level > 0 &&
             res.levels[res.socket_level].components.size() == res.levels[res.socket_level - 1].components.size())
        --res.socket_level;
    } else {
      // The last level went below one component per node: the latencies do
      // not separate the nodes (a VM's virtual NUMA nodes, or wrong options).
      const size_t before = res.levels.size() > 1 ? res.levels[res.levels.size() - 2].components.size()
                                                  : static_cast<size_t>(n);
      std::string m = "no latency level has " + std::to_string(opt.num_nodes) +
                      " components (one per memory node): " + t.level_name(level_cluster.back()) + " goes from " +
                      std::to_string(before) + " to " + std::to_string(comps.size()) + "; ";
      if (!opt.os_node_of_row.empty()) {
        sockets = split_by_node(comps, opt.os_node_of_row);
        for (auto& lv : res.levels) lv.components = split_by_node(lv.components, opt.os_node_of_row);
        m += "the sockets are its components split by the OS node of each cpu:";
        for (const auto& s : sockets) m += " " + t.cpus(s) + " (node " + std::to_string(opt.os_node_of_row[s[0]]) + ")";
      } else {
        m += "its " + std::to_string(comps.size()) + " component(s) are the sockets (no OS node of each cpu to split by)";
      }
      res.diagnostics.push_back({InferenceDiagnostic::Kind::NodeCount, -1, -1, 0, 0, m});
    }
  }
  const int S = static_cast<int>(sockets.size());
  std::vector<int> socket_of(n);
  for (int s = 0; s < S; ++s)
    for (int c : sockets[s]) socket_of[c] = s;

  // Above sockets: cross-socket connectivity (§7.3.4), the clusters the
  // socket pairs talk at (by majority of their context pairs).
  std::vector<int> socket_pair(static_cast<size_t>(S) * S, -1);
  std::vector<int> cross;
  for (int s = 0; s < S; ++s)
    for (int u = s + 1; u < S; ++u) {
      int c = majority_cluster(t, sockets[s], sockets[u]);
      socket_pair[s * S + u] = socket_pair[u * S + s] = c;
      cross.push_back(c);
    }
  std::sort(cross.begin(), cross.end());
  cross.erase(std::unique(cross.begin(), cross.end()), cross.end());
  for (int c : cross) {
    AlgLevel lv;
    lv.cluster = t.clusters[c];
    lv.role = LevelRole::CrossSocket;
    res.levels.push_back(lv);
  }

  // The hierarchy's latency of each pair: the level where the two contexts
  // first share a component, or their sockets' latency. Pairs measured in
  // another cluster are the misfits; the normalized table (§7.3.2) takes the
  // hierarchy's value, which for a uniform table is the pair's own cluster.
  std::vector<int> expected(static_cast<size_t>(n) * n, -1);
  std::vector<int> meet(static_cast<size_t>(n) * n, -1);  // index into res.levels, -1 across sockets
  for (int l = 0; l <= res.socket_level; ++l)
    for (const auto& g : res.levels[l].components)
      for (int a : g)
        for (int b : g)
          if (a != b && expected[a * n + b] < 0) expected[a * n + b] = level_cluster[l], meet[a * n + b] = l;
  std::vector<double> norm(static_cast<size_t>(n) * n, 0);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      int& e = expected[a * n + b];
      if (e < 0) e = socket_pair[socket_of[a] * S + socket_of[b]];
      norm[a * n + b] = t.median(e);
    }
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      const int e = expected[a * n + b], m = t.cluster(a, b), l = meet[a * n + b];
      if (e == m) continue;
      std::string msg = "cpus " + t.cpu(a) + " and " + t.cpu(b) + " measured " + num(t.value(a, b)) + " cycles, but ";
      if (l < 0) {
        msg += "most pairs between their sockets " + t.cpus(sockets[socket_of[a]]) + " and " +
               t.cpus(sockets[socket_of[b]]) + " talk at " + num(t.median(e)) + " cycles";
      } else if (m > e) {
        auto g = std::find_if(res.levels[l].components.begin(), res.levels[l].components.end(),
                              [&](const std::vector<int>& x) { return std::binary_search(x.begin(), x.end(), a); });
        msg += "they are in one group of " + t.level_name(e) + ", " + t.cpus(*g) +
               ", because at least half of the pairs between its parts talk that fast";
      } else {
        msg += "most pairs between the groups they belong to talk slower, so they first share a group at " +
               t.level_name(e);
      }
      res.diagnostics.push_back({InferenceDiagnostic::Kind::Misfit, a, b, t.value(a, b), t.median(e),
                                 msg + "; resolved to " + num(t.median(e)) + " cycles"});
    }

  // Step 4 (§7.3.4): roles. SMT: the first non-zero level's components are the cores.
  bool smt = false;
  if (opt.smt) {
    smt = *opt.smt;
  } else if (res.levels.size() >= 2 && !res.levels[0].components.empty()) {
    size_t max_size = 0, min_size = n;
    for (const auto& c : res.levels[0].components) max_size = std::max(max_size, c.size()), min_size = std::min(min_size, c.size());
    smt = res.levels[0].cluster.median * 3 < res.levels[1].cluster.median && min_size >= 2 && max_size <= 8;
  }
  if (smt && (res.levels.empty() || res.levels[0].components.empty())) smt = false;
  res.smt = smt;
  Groups cores;
  if (smt) {
    cores = res.levels[0].components;
  } else {
    for (int i = 0; i < n; ++i) cores.push_back({i});
  }
  for (size_t l = 0; l < res.levels.size(); ++l) {
    auto& lv = res.levels[l];
    if (lv.role == LevelRole::CrossSocket) continue;
    if (static_cast<int>(l) == res.socket_level) lv.role = LevelRole::Socket;
    else if (smt && l == 0) lv.role = LevelRole::Core;
    else lv.role = static_cast<int>(l) < res.socket_level ? LevelRole::Group : LevelRole::CrossSocket;
  }

  // Sockets matched to memory nodes.
  std::vector<int> socket_node(S, 0);
  if (!opt.socket_node_latency.empty()) {
    if (static_cast<int>(opt.socket_node_latency.size()) != S || opt.node_ids.empty())
      throw InferenceError("MCTOP-ALG: socket_node_latency has " + std::to_string(opt.socket_node_latency.size()) +
                           " rows for " + std::to_string(S) + " inferred sockets (or node_ids is empty)");
    std::vector<bool> taken(opt.node_ids.size(), false);
    for (int s = 0; s < S; ++s) {
      int best = -1;
      for (size_t j = 0; j < opt.node_ids.size(); ++j)
        if (!taken[j] && (best < 0 || opt.socket_node_latency[s].at(j) < opt.socket_node_latency[s][best]))
          best = static_cast<int>(j);
      if (best < 0) best = 0;
      else taken[best] = true;
      socket_node[s] = opt.node_ids[best];
    }
  } else if (!opt.os_node_of_row.empty()) {
    for (int s = 0; s < S; ++s) {
      std::map<int, int> votes;
      for (int c : sockets[s]) ++votes[opt.os_node_of_row[c]];
      int best = -1, best_n = 0;
      for (auto [node, k] : votes)
        if (k > best_n) best = node, best_n = k;
      socket_node[s] = best;
    }
  } else {
    for (int s = 0; s < S; ++s) socket_node[s] = s;
  }

  // Build the topology: cores and sockets numbered by first context.
  std::vector<ContextInfo> ctx(n);
  Groups sorted_cores = sorted_groups(cores);
  std::vector<int> socket_index(S);
  {
    std::vector<int> order(S);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return sockets[a][0] < sockets[b][0]; });
    for (int i = 0; i < S; ++i) socket_index[order[i]] = i;
  }
  for (int s = 0; s < S; ++s)
    for (int c : sockets[s]) {
      ctx[c].socket = socket_index[s];
      ctx[c].node = socket_node[s];
    }
  for (size_t k = 0; k < sorted_cores.size(); ++k)
    for (int c : sorted_cores[k]) ctx[c].core = static_cast<int>(k);
  for (int i = 0; i < n; ++i) ctx[i].os_cpu = table.os_cpus[i];
  std::string description = "MCTOP-ALG inference";
  if (!res.uniform()) {
    const auto misfits = std::count_if(res.diagnostics.begin(), res.diagnostics.end(), [](const auto& d) {
      return d.kind == InferenceDiagnostic::Kind::Misfit;
    });
    description += ", not a uniform hierarchy: " + std::to_string(res.diagnostics.size()) + " diagnostic(s), " +
                   std::to_string(misfits) + " misfit pair(s) resolved";
  }
  res.topology = Topology::from_parts(std::move(ctx), std::move(norm), LatencySource::Measured, description);
  return res;
}

}  // namespace weft::sched
