// Topology::to_string (a tree, the levels and the latency table) and
// Topology::to_json.
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

#include "text_format.hpp"
#include "topology_impl.hpp"

namespace weft::sched {

using detail::format_number;
using detail::json_escape;
using detail::join;

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
    o << "  " << format_number(l.latency) << " cycles, " << sched::to_string(l.role) << ", " << l.groups.size() << " groups:";
    for (const auto& g : l.groups) o << " {" << join(g) << "}";
    o << "\n";
  }
  for (int node : t.nodes) {
    MemoryInfo m = memory(node);
    if (m.measured())
      o << "node " << node << " memory: latency " << format_number(m.latency_ns) << " ns, bandwidth " << format_number(m.bandwidth_gbs)
        << " GB/s (single thread " << format_number(m.bandwidth_single_gbs) << " GB/s)\n";
  }
  if (!t.power.empty()) {
    o << "power model (" << sched::to_string(t.power_source) << ", watts; socket + first core, + each further core, "
      << "+ each further SMT context; DRAM idle + active):\n";
    for (int s = 0; s < num_sockets(); ++s) {
      const PowerInfo& p = t.power[static_cast<size_t>(s)];
      o << "  socket " << s << ": idle " << format_number(p.idle_w) << ", socket " << format_number(p.socket_w) << ", core "
        << format_number(p.core_w) << ", context " << format_number(p.context_w) << "; DRAM " << format_number(p.dram_idle_w) << " + "
        << format_number(p.dram_active_w) << "\n";
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
  o << "{\"description\":\"" << json_escape(t.description) << "\",\"latency_unit\":\"cycles\",\"latency_source\":\""
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
    o << (i ? "," : "") << "{\"latency\":" << format_number(l.latency) << ",\"role\":\"" << sched::to_string(l.role)
      << "\",\"groups\":[";
    for (size_t g = 0; g < l.groups.size(); ++g) o << (g ? "," : "") << "[" << join(l.groups[g]) << "]";
    o << "]}";
  }
  o << "],\"nodes\":[";
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    MemoryInfo m = memory(t.nodes[i]);
    o << (i ? "," : "") << "{\"node\":" << t.nodes[i];
    if (m.measured())
      o << ",\"memory_latency_ns\":" << format_number(m.latency_ns) << ",\"bandwidth_gbs\":" << format_number(m.bandwidth_gbs)
        << ",\"bandwidth_single_gbs\":" << format_number(m.bandwidth_single_gbs);
    o << "}";
  }
  o << "],\"power_source\":\"" << sched::to_string(t.power_source) << "\"";
  if (!t.power.empty()) {
    o << ",\"power\":[";
    for (size_t s = 0; s < t.power.size(); ++s) {
      const PowerInfo& p = t.power[s];
      o << (s ? "," : "") << "{\"socket\":" << s << ",\"idle_w\":" << format_number(p.idle_w) << ",\"socket_w\":" << format_number(p.socket_w)
        << ",\"core_w\":" << format_number(p.core_w) << ",\"context_w\":" << format_number(p.context_w)
        << ",\"dram_idle_w\":" << format_number(p.dram_idle_w) << ",\"dram_active_w\":" << format_number(p.dram_active_w) << "}";
    }
    o << "]";
  }
  o << ",\"latency\":[";
  const int n = num_contexts();
  for (int a = 0; a < n; ++a) {
    o << (a ? "," : "") << "[";
    for (int b = 0; b < n; ++b) o << (b ? "," : "") << format_number(t.lat[static_cast<size_t>(a) * n + b]);
    o << "]";
  }
  o << "]}";
  return o.str();
}

}  // namespace weft::sched
