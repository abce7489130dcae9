// Topology::from_parts: every topology (hwloc, MCTOP-ALG, a saved file,
// tests) is checked here and gets its indexes (cores, sockets, nodes,
// socket latencies, levels) built once.
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "topology_impl.hpp"

namespace weft::sched {

namespace {

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("weft::sched::Topology: " + what);
}

// Checks the parts (throws std::invalid_argument naming what is inconsistent)
// and builds the indexes.
void check_and_index(Topology::Impl& t) {
  const int n = t.n();
  if (n == 0) bad("no hardware contexts");
  if (t.lat.size() != static_cast<size_t>(n) * n)
    bad("latency table has " + std::to_string(t.lat.size()) + " entries, expected " + std::to_string(n) + "x" +
        std::to_string(n));
  int n_cores = 0, n_sockets = 0;
  for (int i = 0; i < n; ++i) {
    const auto& c = t.ctx[i];
    if (c.os_cpu < 0) bad("context " + std::to_string(i) + " has no OS cpu id");
    if (i > 0 && c.os_cpu <= t.ctx[i - 1].os_cpu)
      bad("contexts must be in strictly ascending OS cpu order (context " + std::to_string(i) + ", cpu " +
          std::to_string(c.os_cpu) + ")");
    if (c.core < 0 || c.socket < 0 || c.node < 0)
      bad("context " + std::to_string(i) + " has a negative core, socket or node");
    n_cores = std::max(n_cores, c.core + 1);
    n_sockets = std::max(n_sockets, c.socket + 1);
    t.os_to_ctx[c.os_cpu] = i;
  }
  t.core_ctx.assign(n_cores, {});
  t.core_socket.assign(n_cores, -1);
  t.socket_ctx.assign(n_sockets, {});
  t.socket_cores.assign(n_sockets, {});
  for (int i = 0; i < n; ++i) {
    const auto& c = t.ctx[i];
    t.core_ctx[c.core].push_back(i);
    if (t.core_socket[c.core] == -1) t.core_socket[c.core] = c.socket;
    if (t.core_socket[c.core] != c.socket)
      bad("core " + std::to_string(c.core) + " spans sockets " + std::to_string(t.core_socket[c.core]) + " and " +
          std::to_string(c.socket));
    t.socket_ctx[c.socket].push_back(i);
  }
  for (int c = 0; c < n_cores; ++c) {
    if (t.core_ctx[c].empty()) bad("core ids must be dense: core " + std::to_string(c) + " has no context");
    t.socket_cores[t.core_socket[c]].push_back(c);
    t.max_per_core = std::max(t.max_per_core, static_cast<int>(t.core_ctx[c].size()));
  }
  for (int s = 0; s < n_sockets; ++s)
    if (t.socket_ctx[s].empty()) bad("socket ids must be dense: socket " + std::to_string(s) + " has no context");
  // Cores numbered in order of first context, sockets likewise.
  for (int c = 1; c < n_cores; ++c)
    if (t.core_ctx[c][0] < t.core_ctx[c - 1][0])
      bad("cores must be numbered in order of their first context (core " + std::to_string(c) + ")");
  for (int s = 1; s < n_sockets; ++s)
    if (t.socket_ctx[s][0] < t.socket_ctx[s - 1][0])
      bad("sockets must be numbered in order of their first context (socket " + std::to_string(s) + ")");
  // Latency table sanity.
  for (int a = 0; a < n; ++a) {
    if (t.lat[a * n + a] != 0) bad("latency(" + std::to_string(a) + "," + std::to_string(a) + ") must be 0");
    for (int b = a + 1; b < n; ++b) {
      double x = t.lat[a * n + b], y = t.lat[b * n + a];
      if (!std::isfinite(x) || x <= 0)
        bad("latency(" + std::to_string(a) + "," + std::to_string(b) + ") must be finite and > 0");
      if (x != y)
        bad("latency table not symmetric at (" + std::to_string(a) + "," + std::to_string(b) + ")");
    }
  }
  // Nodes.
  for (const auto& c : t.ctx) t.nodes.push_back(c.node);
  std::sort(t.nodes.begin(), t.nodes.end());
  t.nodes.erase(std::unique(t.nodes.begin(), t.nodes.end()), t.nodes.end());
  t.socket_node.assign(n_sockets, -1);
  for (int s = 0; s < n_sockets; ++s) {
    std::map<int, int> count;
    for (int c : t.socket_ctx[s]) ++count[t.ctx[c].node];
    int best = -1, best_n = 0;
    for (auto [node, k] : count)
      if (k > best_n) best = node, best_n = k;
    t.socket_node[s] = best;
  }
  t.socket_lat.assign(static_cast<size_t>(n_sockets) * n_sockets, 0);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      int sa = t.ctx[a].socket, sb = t.ctx[b].socket;
      if (sa == sb) continue;
      double& v = t.socket_lat[sa * n_sockets + sb];
      v = std::max(v, t.lat[a * n + b]);
    }
  t.levels = detail::compute_levels(t);
}

}  // namespace

Topology Topology::from_parts(std::vector<ContextInfo> contexts, std::vector<double> latency, LatencySource source,
                              std::string description) {
  auto impl = std::make_shared<Impl>();
  impl->ctx = std::move(contexts);
  impl->lat = std::move(latency);
  impl->source = source;
  impl->description = description.empty() ? std::string("explicit") : std::move(description);
  check_and_index(*impl);
  return Topology(std::move(impl));
}

}  // namespace weft::sched
