#include "weft/sched/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "weft/sched/cpuset.hpp"

namespace weft::sched {

std::string_view to_string(LevelRole role) {
  switch (role) {
    case LevelRole::Core: return "core";
    case LevelRole::Group: return "group";
    case LevelRole::Socket: return "socket";
    case LevelRole::CrossSocket: return "cross-socket";
  }
  return "?";
}

std::string_view to_string(LatencySource source) {
  return source == LatencySource::Measured ? "measured" : "estimated";
}

std::string_view to_string(PowerSource source) {
  switch (source) {
    case PowerSource::None: return "none";
    case PowerSource::Estimated: return "estimated";
    case PowerSource::Measured: return "measured";
  }
  return "?";
}

double PowerInfo::package_w(int cores, int contexts) const {
  if (cores <= 0) return idle_w;
  return idle_w + socket_w + (cores - 1) * core_w + std::max(0, contexts - cores) * context_w;
}

struct Topology::Impl {
  std::vector<ContextInfo> ctx;
  std::vector<double> lat;  // N*N
  LatencySource source = LatencySource::Estimated;
  std::string description;

  std::vector<std::vector<int>> core_ctx;
  std::vector<int> core_socket;
  std::vector<std::vector<int>> socket_ctx;
  std::vector<std::vector<int>> socket_cores;
  std::vector<int> socket_node;
  std::vector<int> nodes;
  std::vector<double> socket_lat;  // S*S
  std::vector<TopologyLevel> levels;
  std::map<int, int> os_to_ctx;
  std::map<int, MemoryInfo> memory;
  std::vector<PowerInfo> power;  // per socket, empty when power_source == None
  PowerSource power_source = PowerSource::None;
  int max_per_core = 1;

  int n() const { return static_cast<int>(ctx.size()); }
};

namespace {

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("weft::sched::Topology: " + what);
}

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

void finish(Topology::Impl& t) {
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
  t.levels = compute_levels(t);
}

// ---- hwloc ----

struct Hwloc {
  hwloc_topology_t topo = nullptr;
  Hwloc() {
    if (hwloc_topology_init(&topo) != 0) throw std::runtime_error("weft::sched: hwloc_topology_init failed");
    // Only what placement needs: no I/O devices, no instruction caches.
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
  }
  ~Hwloc() { hwloc_topology_destroy(topo); }
  Hwloc(const Hwloc&) = delete;
  Hwloc& operator=(const Hwloc&) = delete;
};

hwloc_obj_t package_of(hwloc_obj_t obj) {
  for (; obj; obj = obj->parent)
    if (obj->type == HWLOC_OBJ_PACKAGE) return obj;
  return nullptr;
}

double estimated_latency(hwloc_topology_t topo, hwloc_obj_t a, hwloc_obj_t b, int node_a, int node_b,
                         const std::map<std::pair<int, int>, double>& node_ratio) {
  if (a == b) return 0;
  if (node_a != node_b) {
    auto it = node_ratio.find({node_a, node_b});
    return Topology::kCrossSocket * (it == node_ratio.end() ? 1.0 : std::max(1.0, it->second));
  }
  hwloc_obj_t lca = hwloc_get_common_ancestor_obj(topo, a, b);
  if (lca->type == HWLOC_OBJ_CORE) return Topology::kSameCore;
  hwloc_obj_t pack_a = package_of(a), pack_b = package_of(b);
  if (pack_a == nullptr || pack_a != pack_b) {
    // No packages at all: treat the machine as one socket.
    if (pack_a == nullptr && pack_b == nullptr)
      return hwloc_bitmap_isequal(lca->cpuset, hwloc_get_root_obj(topo)->cpuset) ? Topology::kSameSocket
                                                                                   : Topology::kSharedCache;
    return Topology::kCrossSocket;
  }
  if (lca == pack_a || hwloc_bitmap_isequal(lca->cpuset, pack_a->cpuset)) return Topology::kSameSocket;
  return Topology::kSharedCache;
}

Topology from_hwloc(hwloc_topology_t topo, const std::vector<int>* allowed, std::string description) {
  // NUMA nodes and their OS ids; NUMA latency ratios when hwloc has distances.
  const int n_numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  std::map<std::pair<int, int>, double> ratio;
  {
    unsigned nr = 1;
    hwloc_distances_s* dist = nullptr;
    if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &dist, HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) ==
            0 &&
        nr > 0) {
      const unsigned k = dist->nbobjs;
      double nearest_remote = 0;
      for (unsigned i = 0; i < k; ++i)
        for (unsigned j = 0; j < k; ++j)
          if (i != j && dist->values[i * k + j] > 0 &&
              (nearest_remote == 0 || static_cast<double>(dist->values[i * k + j]) < nearest_remote))
            nearest_remote = static_cast<double>(dist->values[i * k + j]);
      if (nearest_remote > 0)
        for (unsigned i = 0; i < k; ++i)
          for (unsigned j = 0; j < k; ++j)
            ratio[{static_cast<int>(dist->objs[i]->os_index), static_cast<int>(dist->objs[j]->os_index)}] =
                static_cast<double>(dist->values[i * k + j]) / nearest_remote;
      hwloc_distances_release(topo, dist);
    }
  }
  struct Pu {
    hwloc_obj_t obj;
    int os;
    int node;
  };
  std::vector<Pu> pus;
  const int n_pu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  for (int i = 0; i < n_pu; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, i);
    int os = static_cast<int>(pu->os_index);
    if (allowed && !std::binary_search(allowed->begin(), allowed->end(), os)) continue;
    int node = 0;
    for (int k = 0; k < n_numa; ++k) {
      hwloc_obj_t numa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, k);
      if (hwloc_bitmap_isset(numa->cpuset, pu->os_index)) {
        node = static_cast<int>(numa->os_index);
        break;
      }
    }
    pus.push_back({pu, os, node});
  }
  if (pus.empty()) throw std::runtime_error("weft::sched: " + description + ": no usable processing units");
  std::sort(pus.begin(), pus.end(), [](const Pu& x, const Pu& y) { return x.os < y.os; });
  // Cores and sockets numbered in order of first context.
  std::map<const void*, int> core_id, socket_id;
  std::vector<ContextInfo> ctx;
  for (const auto& p : pus) {
    hwloc_obj_t core = p.obj;
    for (hwloc_obj_t o = p.obj; o; o = o->parent)
      if (o->type == HWLOC_OBJ_CORE) {
        core = o;
        break;
      }
    hwloc_obj_t pack = package_of(p.obj);
    const void* pack_key = pack ? static_cast<const void*>(pack) : static_cast<const void*>(topo);
    auto [cit, cnew] = core_id.emplace(core, static_cast<int>(core_id.size()));
    auto [sit, snew] = socket_id.emplace(pack_key, static_cast<int>(socket_id.size()));
    ctx.push_back({p.os, cit->second, sit->second, p.node});
  }
  const size_t n = pus.size();
  std::vector<double> lat(n * n, 0);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b)
      lat[a * n + b] = lat[b * n + a] = estimated_latency(topo, pus[a].obj, pus[b].obj, pus[a].node, pus[b].node, ratio);
  return Topology::from_parts(std::move(ctx), std::move(lat), LatencySource::Estimated, std::move(description));
}

}  // namespace

Topology Topology::discover() {
  Hwloc h;
  if (hwloc_topology_load(h.topo) != 0) throw std::runtime_error("weft::sched: hwloc_topology_load failed");
  std::vector<int> allowed = allowed_cpus();
  return from_hwloc(h.topo, &allowed, "hwloc: this machine");
}

Topology Topology::from_hwloc_synthetic(std::string_view desc) {
  Hwloc h;
  std::string s(desc);
  if (hwloc_topology_set_synthetic(h.topo, s.c_str()) != 0)
    throw std::invalid_argument("weft::sched: invalid hwloc synthetic description \"" + s +
                                "\" (expected e.g. \"pack:2 core:10 pu:2\")");
  if (hwloc_topology_load(h.topo) != 0)
    throw std::invalid_argument("weft::sched: hwloc could not load synthetic description \"" + s + "\"");
  return from_hwloc(h.topo, nullptr, "synthetic: " + s);
}

Topology Topology::from_hwloc_xml(const std::string& path) {
  Hwloc h;
  if (hwloc_topology_set_xml(h.topo, path.c_str()) != 0)
    throw std::runtime_error("weft::sched: cannot read hwloc XML file \"" + path + "\"");
  if (hwloc_topology_load(h.topo) != 0)
    throw std::runtime_error("weft::sched: hwloc could not load XML file \"" + path + "\"");
  return from_hwloc(h.topo, nullptr, "xml: " + path);
}

Topology Topology::from_parts(std::vector<ContextInfo> contexts, std::vector<double> latency, LatencySource source,
                              std::string description) {
  auto impl = std::make_shared<Impl>();
  impl->ctx = std::move(contexts);
  impl->lat = std::move(latency);
  impl->source = source;
  impl->description = description.empty() ? std::string("explicit") : std::move(description);
  finish(*impl);
  return Topology(std::move(impl));
}

namespace {
void check_ctx(const Topology::Impl& t, int ctx) {
  if (ctx < 0 || ctx >= t.n())
    throw std::out_of_range("weft::sched::Topology: context " + std::to_string(ctx) + " out of range [0," +
                            std::to_string(t.n()) + ")");
}
}  // namespace

int Topology::num_contexts() const { return impl_->n(); }
int Topology::num_cores() const { return static_cast<int>(impl_->core_ctx.size()); }
int Topology::num_sockets() const { return static_cast<int>(impl_->socket_ctx.size()); }
int Topology::num_nodes() const { return static_cast<int>(impl_->nodes.size()); }
int Topology::os_cpu(int ctx) const { return context(ctx).os_cpu; }
int Topology::context_of_os_cpu(int os_cpu) const {
  auto it = impl_->os_to_ctx.find(os_cpu);
  return it == impl_->os_to_ctx.end() ? -1 : it->second;
}
int Topology::core_of(int ctx) const { return context(ctx).core; }
int Topology::socket_of(int ctx) const { return context(ctx).socket; }
int Topology::node_of(int ctx) const { return context(ctx).node; }
const ContextInfo& Topology::context(int ctx) const {
  check_ctx(*impl_, ctx);
  return impl_->ctx[ctx];
}
const std::vector<int>& Topology::core_contexts(int core) const { return impl_->core_ctx.at(core); }
const std::vector<int>& Topology::socket_contexts(int socket) const { return impl_->socket_ctx.at(socket); }
const std::vector<int>& Topology::socket_cores(int socket) const { return impl_->socket_cores.at(socket); }
int Topology::socket_of_core(int core) const { return impl_->core_socket.at(core); }
const std::vector<int>& Topology::node_ids() const { return impl_->nodes; }
int Topology::socket_node(int socket) const { return impl_->socket_node.at(socket); }
int Topology::max_contexts_per_core() const { return impl_->max_per_core; }

double Topology::latency(int a, int b) const {
  check_ctx(*impl_, a);
  check_ctx(*impl_, b);
  return impl_->lat[static_cast<size_t>(a) * impl_->n() + b];
}
double Topology::socket_latency(int a, int b) const {
  const int s = num_sockets();
  if (a < 0 || a >= s || b < 0 || b >= s) throw std::out_of_range("weft::sched::Topology: socket out of range");
  return impl_->socket_lat[static_cast<size_t>(a) * s + b];
}

std::vector<int> Topology::by_distance(int ctx) const {
  check_ctx(*impl_, ctx);
  std::vector<int> out(num_contexts());
  std::iota(out.begin(), out.end(), 0);
  const double* row = &impl_->lat[static_cast<size_t>(ctx) * impl_->n()];
  std::stable_sort(out.begin(), out.end(), [row](int x, int y) { return row[x] < row[y]; });
  return out;
}

double Topology::max_latency(std::span<const int> ctxs) const {
  double m = 0;
  for (size_t i = 0; i < ctxs.size(); ++i)
    for (size_t j = i + 1; j < ctxs.size(); ++j) m = std::max(m, latency(ctxs[i], ctxs[j]));
  return m;
}

double Topology::min_latency(std::span<const int> ctxs) const {
  double m = 0;
  for (size_t i = 0; i < ctxs.size(); ++i)
    for (size_t j = i + 1; j < ctxs.size(); ++j) {
      double v = latency(ctxs[i], ctxs[j]);
      if (v > 0 && (m == 0 || v < m)) m = v;
    }
  return m;
}

const std::vector<TopologyLevel>& Topology::levels() const { return impl_->levels; }
std::vector<double> Topology::latency_values() const {
  std::vector<double> v;
  for (double x : impl_->lat)
    if (x > 0) v.push_back(x);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}
LatencySource Topology::latency_source() const { return impl_->source; }
const std::string& Topology::description() const { return impl_->description; }
const std::vector<double>& Topology::latency_table() const { return impl_->lat; }

MemoryInfo Topology::memory(int os_node) const {
  auto it = impl_->memory.find(os_node);
  return it == impl_->memory.end() ? MemoryInfo{} : it->second;
}
bool Topology::has_memory_info() const {
  return std::any_of(impl_->memory.begin(), impl_->memory.end(), [](const auto& kv) { return kv.second.measured(); });
}
Topology Topology::with_memory(int os_node, const MemoryInfo& info) const {
  if (!std::binary_search(impl_->nodes.begin(), impl_->nodes.end(), os_node))
    throw std::invalid_argument("weft::sched::Topology::with_memory: node " + std::to_string(os_node) +
                                " is not in this topology");
  auto copy = std::make_shared<Impl>(*impl_);
  copy->memory[os_node] = info;
  return Topology(std::move(copy));
}

PowerSource Topology::power_source() const { return impl_->power_source; }

PowerInfo Topology::power(int socket) const {
  if (socket < 0 || socket >= num_sockets())
    throw std::out_of_range("weft::sched::Topology::power: socket " + std::to_string(socket) + " out of range [0," +
                            std::to_string(num_sockets()) + ")");
  return impl_->power.empty() ? PowerInfo{} : impl_->power[static_cast<size_t>(socket)];
}

Topology Topology::with_power(std::vector<PowerInfo> per_socket, PowerSource source) const {
  const std::string who = "weft::sched::Topology::with_power: ";
  if (source == PowerSource::None) {
    if (!per_socket.empty())
      throw std::invalid_argument(who + "power figures given with PowerSource::None (use Estimated or Measured)");
  } else {
    if (static_cast<int>(per_socket.size()) != num_sockets())
      throw std::invalid_argument(who + std::to_string(per_socket.size()) + " socket power models given, but the topology has " +
                                  std::to_string(num_sockets()) + " sockets (give one per socket)");
    for (size_t s = 0; s < per_socket.size(); ++s) {
      const PowerInfo& p = per_socket[s];
      const std::pair<const char*, double> fields[] = {{"idle_w", p.idle_w},           {"socket_w", p.socket_w},
                                                       {"core_w", p.core_w},           {"context_w", p.context_w},
                                                       {"dram_idle_w", p.dram_idle_w}, {"dram_active_w", p.dram_active_w}};
      for (auto [name, v] : fields)
        if (!std::isfinite(v) || v < 0)
          throw std::invalid_argument(who + "socket " + std::to_string(s) + ": " + name + " = " + std::to_string(v) +
                                      " (watts must be finite and >= 0)");
    }
  }
  auto copy = std::make_shared<Impl>(*impl_);
  copy->power = std::move(per_socket);
  copy->power_source = source;
  return Topology(std::move(copy));
}

namespace {
std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
std::string join(const std::vector<int>& v, const char* sep = ",") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += std::to_string(v[i]);
  }
  return s;
}
}  // namespace

std::string Topology::to_string() const {
  const auto& t = *impl_;
  std::ostringstream o;
  o << "topology (" << t.description << "): " << num_contexts() << " contexts, " << num_cores() << " cores, "
    << num_sockets() << " sockets, " << num_nodes() << " NUMA nodes; latencies in cycles ("
    << sched::to_string(t.source) << ")\n";
  for (int s = 0; s < num_sockets(); ++s) {
    o << "socket " << s << " (local node " << t.socket_node[s] << ")\n";
    for (int c : t.socket_cores[s]) {
      o << "  core " << c << ":";
      for (int x : t.core_ctx[c]) o << " ctx " << x << " (cpu " << t.ctx[x].os_cpu << ", node " << t.ctx[x].node << ")";
      o << "\n";
    }
  }
  o << "levels:\n";
  for (const auto& l : t.levels) {
    o << "  " << fmt(l.latency) << " cycles, " << sched::to_string(l.role) << ", " << l.groups.size() << " groups:";
    for (const auto& g : l.groups) o << " {" << join(g) << "}";
    o << "\n";
  }
  for (int node : t.nodes) {
    MemoryInfo m = memory(node);
    if (m.measured())
      o << "node " << node << " memory: latency " << fmt(m.latency_ns) << " ns, bandwidth " << fmt(m.bandwidth_gbs)
        << " GB/s (single thread " << fmt(m.bandwidth_single_gbs) << " GB/s)\n";
  }
  if (!t.power.empty()) {
    o << "power model (" << sched::to_string(t.power_source) << ", watts; socket + first core, + each further core, "
      << "+ each further SMT context; DRAM idle + active):\n";
    for (int s = 0; s < num_sockets(); ++s) {
      const PowerInfo& p = t.power[static_cast<size_t>(s)];
      o << "  socket " << s << ": idle " << fmt(p.idle_w) << ", socket " << fmt(p.socket_w) << ", core "
        << fmt(p.core_w) << ", context " << fmt(p.context_w) << "; DRAM " << fmt(p.dram_idle_w) << " + "
        << fmt(p.dram_active_w) << "\n";
    }
  }
  o << "latency table (cycles):\n     ";
  const int n = num_contexts();
  for (int b = 0; b < n; ++b) o << ' ' << std::string(5 - std::min<size_t>(5, std::to_string(b).size()), ' ') << b;
  o << "\n";
  for (int a = 0; a < n; ++a) {
    std::string idx = std::to_string(a);
    o << std::string(5 - std::min<size_t>(5, idx.size()), ' ') << idx;
    for (int b = 0; b < n; ++b) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %5.0f", t.lat[static_cast<size_t>(a) * n + b]);
      o << buf;
    }
    o << "\n";
  }
  return o.str();
}

std::string Topology::to_json() const {
  const auto& t = *impl_;
  std::ostringstream o;
  auto esc = [](const std::string& s) {
    std::string r;
    for (char c : s) {
      if (c == '"' || c == '\\') r += '\\';
      if (static_cast<unsigned char>(c) < 0x20) continue;
      r += c;
    }
    return r;
  };
  o << "{\"description\":\"" << esc(t.description) << "\",\"latency_unit\":\"cycles\",\"latency_source\":\""
    << sched::to_string(t.source) << "\",\"contexts\":[";
  for (int i = 0; i < num_contexts(); ++i)
    o << (i ? "," : "") << "{\"ctx\":" << i << ",\"os_cpu\":" << t.ctx[i].os_cpu << ",\"core\":" << t.ctx[i].core
      << ",\"socket\":" << t.ctx[i].socket << ",\"node\":" << t.ctx[i].node << "}";
  o << "],\"sockets\":[";
  for (int s = 0; s < num_sockets(); ++s)
    o << (s ? "," : "") << "{\"socket\":" << s << ",\"node\":" << t.socket_node[s] << ",\"cores\":["
      << join(t.socket_cores[s]) << "],\"contexts\":[" << join(t.socket_ctx[s]) << "]}";
  o << "],\"levels\":[";
  for (size_t i = 0; i < t.levels.size(); ++i) {
    const auto& l = t.levels[i];
    o << (i ? "," : "") << "{\"latency\":" << fmt(l.latency) << ",\"role\":\"" << sched::to_string(l.role)
      << "\",\"groups\":[";
    for (size_t g = 0; g < l.groups.size(); ++g) o << (g ? "," : "") << "[" << join(l.groups[g]) << "]";
    o << "]}";
  }
  o << "],\"nodes\":[";
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    MemoryInfo m = memory(t.nodes[i]);
    o << (i ? "," : "") << "{\"node\":" << t.nodes[i];
    if (m.measured())
      o << ",\"memory_latency_ns\":" << fmt(m.latency_ns) << ",\"bandwidth_gbs\":" << fmt(m.bandwidth_gbs)
        << ",\"bandwidth_single_gbs\":" << fmt(m.bandwidth_single_gbs);
    o << "}";
  }
  o << "],\"power_source\":\"" << sched::to_string(t.power_source) << "\"";
  if (!t.power.empty()) {
    o << ",\"power\":[";
    for (size_t s = 0; s < t.power.size(); ++s) {
      const PowerInfo& p = t.power[s];
      o << (s ? "," : "") << "{\"socket\":" << s << ",\"idle_w\":" << fmt(p.idle_w) << ",\"socket_w\":" << fmt(p.socket_w)
        << ",\"core_w\":" << fmt(p.core_w) << ",\"context_w\":" << fmt(p.context_w)
        << ",\"dram_idle_w\":" << fmt(p.dram_idle_w) << ",\"dram_active_w\":" << fmt(p.dram_active_w) << "}";
    }
    o << "]";
  }
  o << ",\"latency\":[";
  const int n = num_contexts();
  for (int a = 0; a < n; ++a) {
    o << (a ? "," : "") << "[";
    for (int b = 0; b < n; ++b) o << (b ? "," : "") << fmt(t.lat[static_cast<size_t>(a) * n + b]);
    o << "]";
  }
  o << "]}";
  return o.str();
}

}  // namespace weft::sched
