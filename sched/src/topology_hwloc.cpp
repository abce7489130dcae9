// A Topology from hwloc (this machine, a synthetic description or an XML
// export), with latencies estimated from the hierarchy (Topology::kSameCore
// ... kCrossSocket).
#include <hwloc.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "weft/sched/cpuset.hpp"
#include "weft/sched/topology.hpp"

namespace weft::sched {

namespace {

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

}  // namespace weft::sched
