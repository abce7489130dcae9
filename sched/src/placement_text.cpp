// Placement::summary (the thesis's mctop_place_print, Fig 7.5) and
// Placement::to_json.
#include <set>
#include <sstream>
#include <string>

#include "text_format.hpp"
#include "weft/sched/placement.hpp"

namespace weft::sched {

namespace {

using detail::format_number;
using detail::join;

struct SocketStats {
  std::vector<int> hwcs, cores;
  std::vector<double> bw_prop;
  double min_bw = 0;
  bool have_bw = false;
};

SocketStats socket_stats(const Placement& p, const Topology& t) {
  SocketStats st;
  double total = 0;
  st.have_bw = true;
  for (int s : p.sockets) {
    std::set<int> cores;
    int k = 0;
    for (int c : p.contexts)
      if (t.socket_of(c) == s) ++k, cores.insert(t.core_of(c));
    st.hwcs.push_back(k);
    st.cores.push_back(static_cast<int>(cores.size()));
    double bw = t.memory(t.socket_node(s)).bandwidth_gbs;
    if (bw <= 0) st.have_bw = false;
    // A socket's share: its local bandwidth weighted by the fraction of its contexts in use.
    double share = bw * k / static_cast<double>(t.socket_contexts(s).size());
    st.bw_prop.push_back(share);
    total += share;
    if (st.min_bw == 0 || bw < st.min_bw) st.min_bw = bw;
  }
  if (st.have_bw && total > 0)
    for (double& x : st.bw_prop) x /= total;
  return st;
}

}  // namespace

std::string Placement::summary(const Topology& t) const {
  std::ostringstream o;
  SocketStats st = socket_stats(*this, t);
  o << "## weft placement : " << to_string(policy) << (pinned ? "" : " (threads not pinned)") << "\n";
  o << "# #Cores           : " << num_cores(t) << "\n";
  o << "# HW contexts (" << size() << ")" << std::string(size() < 10 ? 2 : size() < 100 ? 1 : 0, ' ') << " :";
  for (int c : contexts) o << ' ' << c;
  o << "\n# OS cpus          :";
  for (int c : contexts) o << ' ' << t.os_cpu(c);
  o << "\n# Sockets (" << sockets.size() << ")" << std::string(sockets.size() < 10 ? 6 : 5, ' ') << " :";
  for (int s : sockets) o << ' ' << s;
  o << "\n# #HW ctx / socket :";
  for (int k : st.hwcs) o << ' ' << k;
  o << "\n# #Cores / socket  :";
  for (int k : st.cores) o << ' ' << k;
  o << "\n# Local nodes      :";
  for (int s : sockets) o << ' ' << t.socket_node(s);
  o << "\n";
  if (st.have_bw) {
    o << "# BW proportions   :";
    for (double x : st.bw_prop) o << ' ' << format_number(x, "%.3f");
    o << "\n# Min bandwidth    : " << format_number(st.min_bw, "%.2f") << " GB/s\n";
  } else {
    o << "# BW proportions   : n/a (no bandwidth measured)\n";
  }
  if (power) {
    const PowerEstimate& e = *power;
    auto line = [&](const char* label, bool dram) {
      o << label;
      double sum = 0;
      for (size_t i = 0; i < e.sockets.size(); ++i) {
        double w = e.package_w[i] + (dram ? e.dram_w[i] : 0);
        sum += w;
        o << ' ' << format_number(w, "%.1f");
      }
      o << " = " << format_number(sum, "%.1f") << " Watt";
      double unused = e.unused_package_w + (dram ? e.unused_dram_w : 0);
      const size_t n_unused = static_cast<size_t>(t.num_sockets()) - e.sockets.size();
      if (n_unused > 0)
        o << " (+ " << format_number(unused, "%.1f") << " idle in " << n_unused << " unused socket" << (n_unused > 1 ? "s" : "")
          << " = " << format_number(sum + unused, "%.1f") << ")";
      o << "\n";
    };
    line("# Max pow no DRAM  :", false);
    line("# Max pow with DRAM:", true);
    o << "# Power model      : " << to_string(e.source) << "\n";
  } else {
    o << "# Max power        : n/a (no power model: measure one with `weft-topo power --measure` (RAPL) or give\n"
         "#                    'power' lines in the topology file, docs/topology-format.md)\n";
  }
  o << "# Max latency      : " << format_number(max_latency, "%.0f") << " cycles (" << to_string(t.latency_source()) << ")\n";
  if (requested != size()) o << "# Requested        : " << requested << " threads, placed " << size() << "\n";
  return o.str();
}

std::string Placement::to_json(const Topology& t) const {
  std::ostringstream o;
  SocketStats st = socket_stats(*this, t);
  auto list = [](const std::vector<int>& v) {
    std::string s = "[";
    s += join(v);
    s += ']';
    return s;
  };
  std::vector<int> os;
  for (int c : contexts) os.push_back(t.os_cpu(c));
  o << "{\"policy\":\"" << to_string(policy) << "\",\"pinned\":" << (pinned ? "true" : "false")
    << ",\"requested\":" << requested << ",\"contexts\":" << list(contexts) << ",\"os_cpus\":" << list(os)
    << ",\"sockets\":" << list(sockets) << ",\"contexts_per_socket\":" << list(st.hwcs)
    << ",\"cores_per_socket\":" << list(st.cores) << ",\"cores\":" << num_cores(t)
    << ",\"max_latency_cycles\":" << format_number(max_latency);
  if (st.have_bw) {
    o << ",\"bw_proportions\":[";
    for (size_t i = 0; i < st.bw_prop.size(); ++i) o << (i ? "," : "") << format_number(st.bw_prop[i], "%.4f");
    o << "],\"min_bandwidth_gbs\":" << format_number(st.min_bw);
  }
  if (power) {
    auto arr = [&](const std::vector<double>& v) {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) s += ',';
        s += format_number(v[i]);
      }
      return s + "]";
    };
    o << ",\"power\":{\"source\":\"" << to_string(power->source) << "\",\"sockets\":" << list(power->sockets)
      << ",\"package_w\":" << arr(power->package_w) << ",\"dram_w\":" << arr(power->dram_w)
      << ",\"max_power_no_dram_w\":" << format_number(power->used_package_w())
      << ",\"max_power_with_dram_w\":" << format_number(power->used_total_w())
      << ",\"machine_total_w\":" << format_number(power->machine_total_w()) << "}";
  }
  o << "}";
  return o.str();
}

}  // namespace weft::sched
