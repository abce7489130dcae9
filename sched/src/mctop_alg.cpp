// MCTOP-ALG steps 2-4 (thesis §7.3.2-§7.3.4, [L2116-2134]); failure detection
// as in §7.3.5 [L2142-2146]: a reduction that cannot be done means spurious
// measurements.
#include "weft/sched/mctop_alg.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <sstream>

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

namespace {

std::string list(const std::vector<int>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "}";
}

}  // namespace

AlgResult infer_topology(const LatencyTable& table, const AlgOptions& opt) {
  const int n = table.size();
  if (n < 1) throw InferenceError("MCTOP-ALG: empty latency table");
  if (table.values.size() != static_cast<size_t>(n) * n)
    throw InferenceError("MCTOP-ALG: latency table has " + std::to_string(table.values.size()) + " values for " +
                         std::to_string(n) + " contexts (expected " + std::to_string(n * n) + ")");
  for (int i = 1; i < n; ++i)
    if (table.os_cpus[i] <= table.os_cpus[i - 1])
      throw InferenceError("MCTOP-ALG: table rows must be in ascending OS cpu order");
  if (opt.num_nodes < 1 || opt.num_nodes > n)
    throw InferenceError("MCTOP-ALG: number of memory nodes " + std::to_string(opt.num_nodes) +
                         " must be in [1, " + std::to_string(n) + "]");

  // Symmetric raw table from one or both triangles.
  std::vector<double> raw(static_cast<size_t>(n) * n, 0);
  std::vector<double> values;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      double x = table.at(a, b), y = table.at(b, a);
      double v = x > 0 && y > 0 ? (x + y) / 2 : std::max(x, y);
      if (!(v > 0) || !std::isfinite(v))
        throw InferenceError("MCTOP-ALG: no positive latency between contexts " + std::to_string(a) + " and " +
                             std::to_string(b));
      raw[a * n + b] = raw[b * n + a] = v;
      values.push_back(v);
    }

  AlgResult res{Topology::from_parts({{table.os_cpus[0], 0, 0, 0}}, {0}, LatencySource::Measured), {}, {}, -1, false};
  // Step 2: CDF clusters and the normalized table.
  res.clusters = cluster_latencies(values, opt.rel_gap, opt.abs_gap);
  std::vector<double> norm(raw.size(), 0);
  auto cluster_of = [&](double v) {
    for (size_t c = 0; c < res.clusters.size(); ++c)
      if (v >= res.clusters[c].min && v <= res.clusters[c].max) return static_cast<int>(c);
    return -1;
  };
  std::vector<int> cl(raw.size(), -1);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) {
        cl[a * n + b] = cluster_of(raw[a * n + b]);
        norm[a * n + b] = res.clusters[cl[a * n + b]].median;
      }

  // Step 3: components level by level, by classification and reduction.
  std::vector<std::vector<int>> comps;
  for (int i = 0; i < n; ++i) comps.push_back({i});
  // Reduced latency (cluster index) between two components; all context pairs must agree.
  auto reduced = [&](const std::vector<int>& x, const std::vector<int>& y, int level) {
    int c = cl[x[0] * n + y[0]];
    for (int a : x)
      for (int b : y)
        if (cl[a * n + b] != c) {
          std::ostringstream m;
          m << "MCTOP-ALG: reduction failed at level " << level + 1 << " (" << res.clusters[level].median
            << " cycles): contexts " << a << " and " << b << " are " << raw[a * n + b] << " cycles apart, but "
            << x[0] << " and " << y[0] << " are " << raw[x[0] * n + y[0]]
            << " (components " << list(x) << " and " << list(y)
            << " are not uniform); the measurements are noisy: retry with more repetitions on an idle machine";
          throw InferenceError(m.str());
        }
    return c;
  };
  const int L = static_cast<int>(res.clusters.size());
  for (int level = 0; level < L && static_cast<int>(comps.size()) > opt.num_nodes; ++level) {
    const int k = static_cast<int>(comps.size());
    std::vector<int> red(static_cast<size_t>(k) * k, -1);
    for (int i = 0; i < k; ++i)
      for (int j = i + 1; j < k; ++j) red[i * k + j] = red[j * k + i] = reduced(comps[i], comps[j], level);
    // Classify: components talking at this level's latency group together.
    std::vector<int> parent(k);
    std::iota(parent.begin(), parent.end(), 0);
    std::function<int(int)> find = [&](int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); };
    for (int i = 0; i < k; ++i)
      for (int j = i + 1; j < k; ++j)
        if (red[i * k + j] == level) parent[find(j)] = find(i);
    std::map<int, std::vector<int>> groups;
    for (int i = 0; i < k; ++i) groups[find(i)].push_back(i);
    // Check the definition of a component: members talk at exactly this
    // level, and have the same latency to every other component.
    for (const auto& [root, members] : groups) {
      for (size_t x = 0; x < members.size(); ++x)
        for (size_t y = x + 1; y < members.size(); ++y)
          if (red[members[x] * k + members[y]] != level) {
            std::ostringstream m;
            m << "MCTOP-ALG: reduction failed at level " << level + 1 << " (" << res.clusters[level].median
              << " cycles): components " << list(comps[members[x]]) << " and " << list(comps[members[y]])
              << " are grouped through others but talk at " << res.clusters[red[members[x] * k + members[y]]].median
              << " cycles; retry with more repetitions on an idle machine";
            throw InferenceError(m.str());
          }
      for (int z = 0; z < k; ++z) {
        if (find(z) == root) continue;
        for (int x : members)
          if (red[x * k + z] != red[members[0] * k + z]) {
            std::ostringstream m;
            m << "MCTOP-ALG: reduction failed at level " << level + 1 << " (" << res.clusters[level].median
              << " cycles): components " << list(comps[x]) << " and " << list(comps[members[0]])
              << " belong together but differ in latency to " << list(comps[z]) << " ("
              << res.clusters[red[x * k + z]].median << " vs " << res.clusters[red[members[0] * k + z]].median
              << " cycles); retry with more repetitions on an idle machine";
            throw InferenceError(m.str());
          }
      }
    }
    if (static_cast<int>(groups.size()) == k) {
      // This latency occurs only above components still to be formed: nothing merges here.
      AlgLevel lv;
      lv.cluster = res.clusters[level];
      lv.components = comps;
      res.levels.push_back(lv);
      continue;
    }
    std::vector<std::vector<int>> next;
    for (const auto& [root, members] : groups) {
      std::vector<int> merged;
      for (int x : members) merged.insert(merged.end(), comps[x].begin(), comps[x].end());
      std::sort(merged.begin(), merged.end());
      next.push_back(std::move(merged));
    }
    std::sort(next.begin(), next.end());
    comps = std::move(next);
    AlgLevel lv;
    lv.cluster = res.clusters[level];
    lv.components = comps;
    res.levels.push_back(lv);
    if (static_cast<int>(comps.size()) < opt.num_nodes)
      throw InferenceError("MCTOP-ALG: no latency level has as many components as memory nodes (" +
                           std::to_string(opt.num_nodes) + "): level " + std::to_string(level + 1) + " (" +
                           std::to_string(res.clusters[level].median) + " cycles) goes to " +
                           std::to_string(comps.size()) + " components");
  }
  if (n > 1) {
    if (static_cast<int>(comps.size()) != opt.num_nodes)
      throw InferenceError("MCTOP-ALG: the levels end with " + std::to_string(comps.size()) +
                           " components, not one per memory node (" + std::to_string(opt.num_nodes) + ")");
    // The socket level is the last level that merged components (-1 when every
    // context is its own node).
    res.socket_level = static_cast<int>(res.levels.size()) - 1;
    while (res.socket_level > 0 && res.levels[res.socket_level].components.size() ==
                                       res.levels[res.socket_level - 1].components.size())
      --res.socket_level;
    // Levels above sockets: cross-socket connectivity (§7.3.4), no components.
    for (size_t c = res.levels.size(); c < res.clusters.size(); ++c) {
      AlgLevel lv;
      lv.cluster = res.clusters[c];
      lv.role = LevelRole::CrossSocket;
      res.levels.push_back(lv);
    }
  }
  const std::vector<std::vector<int>> sockets = comps;

  // Step 4: roles. SMT: the first non-zero level's components are the cores.
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
  std::vector<std::vector<int>> cores;
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
  const int S = static_cast<int>(sockets.size());
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
    if (static_cast<int>(opt.os_node_of_row.size()) != n)
      throw InferenceError("MCTOP-ALG: os_node_of_row has " + std::to_string(opt.os_node_of_row.size()) +
                           " entries for " + std::to_string(n) + " contexts");
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
  std::vector<std::vector<int>> sorted_sockets = sockets, sorted_cores = cores;
  std::sort(sorted_cores.begin(), sorted_cores.end());
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
  for (size_t k = 0; k < sorted_cores.size(); ++k)
    for (int c : sorted_cores[k])
      if (ctx[c].socket != ctx[sorted_cores[k][0]].socket)
        throw InferenceError("MCTOP-ALG: SMT core " + list(sorted_cores[k]) + " spans two sockets");
  res.topology = Topology::from_parts(std::move(ctx), std::move(norm), LatencySource::Measured, "MCTOP-ALG inference");
  return res;
}

}  // namespace weft::sched
