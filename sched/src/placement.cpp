// MCTOP-PLACE: thesis §7.6 (Table 7.2, Fig 7.5) and the educated backoff of
// §7.5 / §7.7.1. Line refs: shared/papers/scalable-synchronization-thesis.txt
// [L2192-2260] (placement), [L2186-2188, L2268-2281] (backoff).
#include "weft/sched/placement.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>

namespace weft::sched {

namespace {

struct Name {
  Policy policy;
  std::string_view name;
};
constexpr std::array<Name, 12> kNames = {{
    {Policy::None, "NONE"},
    {Policy::Sequential, "SEQUENTIAL"},
    {Policy::ConHwc, "CON_HWC"},
    {Policy::ConCoreHwc, "CON_CORE_HWC"},
    {Policy::ConCore, "CON_CORE"},
    {Policy::BalanceHwc, "BALANCE_HWC"},
    {Policy::BalanceCoreHwc, "BALANCE_CORE_HWC"},
    {Policy::BalanceCore, "BALANCE_CORE"},
    {Policy::RrHwc, "RR_HWC"},
    {Policy::RrCore, "RR_CORE"},
    {Policy::RrScale, "RR_SCALE"},
    {Policy::Power, "POWER"},
}};
constexpr std::array<Policy, 12> kAll = {Policy::None,       Policy::Sequential,     Policy::ConHwc,
                                         Policy::ConCoreHwc, Policy::ConCore,        Policy::BalanceHwc,
                                         Policy::BalanceCoreHwc, Policy::BalanceCore, Policy::RrHwc,
                                         Policy::RrCore,     Policy::RrScale,        Policy::Power};

double local_bw(const Topology& t, int socket) { return t.memory(t.socket_node(socket)).bandwidth_gbs; }

// Contexts of a socket, compactly: all contexts of a core, then the next core.
std::vector<int> hwc_order(const Topology& t, int s) {
  std::vector<int> out;
  for (int core : t.socket_cores(s))
    for (int c : t.core_contexts(core)) out.push_back(c);
  return out;
}

// Contexts of a socket, cores first: 1st context of every core, then 2nd, ...
std::vector<int> core_order(const Topology& t, int s) {
  std::vector<int> out;
  for (int h = 0; h < t.max_contexts_per_core(); ++h)
    for (int core : t.socket_cores(s))
      if (h < static_cast<int>(t.core_contexts(core).size())) out.push_back(t.core_contexts(core)[h]);
  return out;
}

int smt_index(const Topology& t, int ctx) {
  const auto& cc = t.core_contexts(t.core_of(ctx));
  return static_cast<int>(std::find(cc.begin(), cc.end(), ctx) - cc.begin());
}

// CON_* / BALANCE_* socket order (Table 7.2): the socket with max local memory
// bandwidth first (ties and no data: lowest index), then the others by
// ascending latency from it, ties by higher local bandwidth, then index.
std::vector<int> con_socket_order(const Topology& t) {
  const int S = t.num_sockets();
  int start = 0;
  for (int s = 1; s < S; ++s)
    if (local_bw(t, s) > local_bw(t, start)) start = s;
  std::vector<int> rest;
  for (int s = 0; s < S; ++s)
    if (s != start) rest.push_back(s);
  std::stable_sort(rest.begin(), rest.end(), [&](int a, int b) {
    double la = t.socket_latency(start, a), lb = t.socket_latency(start, b);
    if (la != lb) return la < lb;
    return local_bw(t, a) > local_bw(t, b);
  });
  rest.insert(rest.begin(), start);
  return rest;
}

// RR socket order (Table 7.2 "prioritizes the sockets with maximum bandwidth
// to their local memory"): local bandwidth descending, ties by index.
std::vector<int> rr_socket_order(const Topology& t) {
  std::vector<int> order(t.num_sockets());
  for (int s = 0; s < t.num_sockets(); ++s) order[s] = s;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return local_bw(t, a) > local_bw(t, b); });
  return order;
}

std::vector<int> index_socket_order(const Topology& t) {
  std::vector<int> order(t.num_sockets());
  for (int s = 0; s < t.num_sockets(); ++s) order[s] = s;
  return order;
}

[[noreturn]] void refuse(Policy p, int n, int have, const std::string& where) {
  throw std::invalid_argument("weft::sched::place(" + std::string(to_string(p)) + "): " + std::to_string(n) +
                              " threads requested but " + where + " only " + std::to_string(have) +
                              " hardware contexts; place at most " + std::to_string(have) +
                              " (oversubscription is the runtime's job: run several ULTs per worker)");
}

// Round robin over per-socket sequences, each capped, until n are taken.
std::vector<int> round_robin(const std::vector<std::vector<int>>& seqs, const std::vector<int>& caps, int n) {
  std::vector<int> out;
  for (size_t r = 0; static_cast<int>(out.size()) < n; ++r) {
    bool any = false;
    for (size_t i = 0; i < seqs.size() && static_cast<int>(out.size()) < n; ++i)
      if (r < seqs[i].size() && static_cast<int>(r) < caps[i]) {
        out.push_back(seqs[i][r]);
        any = true;
      }
    if (!any) break;
  }
  return out;
}

// Spread n over sockets one at a time (earlier sockets get the remainder),
// each capped at limit[i]: the "balance threads to sockets" of Table 7.2.
std::vector<int> balanced_quotas(int n, const std::vector<int>& limit) {
  std::vector<int> q(limit.size(), 0);
  int left = n;
  while (left > 0) {
    bool any = false;
    for (size_t i = 0; i < q.size() && left > 0; ++i)
      if (q[i] < limit[i]) ++q[i], --left, any = true;
    if (!any) break;
  }
  return q;
}

// The fewest leading sockets whose capacity covers n (all if none does).
size_t sockets_needed(const std::vector<int>& order, int n, const std::vector<int>& cap_by_socket) {
  int sum = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    sum += cap_by_socket[order[k]];
    if (sum >= n) return k + 1;
  }
  return order.size();
}

// Contexts of a socket, compactly, fullest cores first (so that k contexts
// touch as few cores as possible even when cores differ in context count).
std::vector<int> hwc_order_fewest_cores(const Topology& t, int s) {
  std::vector<int> cores = t.socket_cores(s);
  std::stable_sort(cores.begin(), cores.end(), [&](int a, int b) {
    return t.core_contexts(a).size() > t.core_contexts(b).size();
  });
  std::vector<int> out;
  for (int core : cores)
    for (int c : t.core_contexts(core)) out.push_back(c);
  return out;
}

// POWER with a power model: see placement.hpp.
std::vector<int> power_placement(const Topology& t, const std::vector<int>& allowed, int n) {
  struct Option {
    std::vector<int> seq;     // the socket's contexts in its cheapest order
    std::vector<double> cost; // cost[k] = marginal power of running k threads there (k = 0..seq.size())
  };
  std::vector<Option> opt;
  for (int s : allowed) {
    PowerInfo pw = t.power(s);
    Option o;
    o.seq = pw.context_w <= pw.core_w ? hwc_order_fewest_cores(t, s) : core_order(t, s);
    o.cost.push_back(0);
    std::set<int> cores;
    for (size_t k = 1; k <= o.seq.size(); ++k) {
      cores.insert(t.core_of(o.seq[k - 1]));
      const int c = static_cast<int>(cores.size()), h = static_cast<int>(k);
      o.cost.push_back(pw.socket_w + pw.dram_active_w + (c - 1) * pw.core_w + (h - c) * pw.context_w);
    }
    opt.push_back(std::move(o));
  }
  // best[i][m]: least (cost, sockets used) placing m threads on the first i allowed sockets.
  struct Best {
    double cost = 0;
    int used = 0;
    int k = -1;  // threads on socket i-1 in the best choice (-1: unreachable)
  };
  const size_t S = opt.size();
  std::vector<std::vector<Best>> best(S + 1, std::vector<Best>(static_cast<size_t>(n) + 1));
  best[0][0].k = 0;
  auto better = [](double c1, int u1, double c2, int u2) {
    const double eps = 1e-9 * std::max({1.0, std::abs(c1), std::abs(c2)});
    if (c1 < c2 - eps) return true;
    if (c1 > c2 + eps) return false;
    return u1 < u2;
  };
  for (size_t i = 0; i < S; ++i)
    for (int m = 0; m <= n; ++m) {
      Best& b = best[i + 1][static_cast<size_t>(m)];
      const int kmax = std::min<int>(m, static_cast<int>(opt[i].seq.size()));
      for (int k = 0; k <= kmax; ++k) {  // ascending: on a tie the later socket takes fewer
        const Best& prev = best[i][static_cast<size_t>(m - k)];
        if (prev.k < 0) continue;
        double c = prev.cost + opt[i].cost[static_cast<size_t>(k)];
        int u = prev.used + (k > 0);
        if (b.k < 0 || better(c, u, b.cost, b.used)) b = {c, u, k};
      }
    }
  std::vector<int> take(S, 0);
  for (size_t i = S, m = static_cast<size_t>(n); i > 0; --i) {
    take[i - 1] = best[i][m].k;
    m -= static_cast<size_t>(take[i - 1]);
  }
  std::vector<size_t> used;
  for (size_t i = 0; i < S; ++i)
    if (take[i] > 0) used.push_back(i);
  std::stable_sort(used.begin(), used.end(), [&](size_t a, size_t b) { return take[a] > take[b]; });
  std::vector<int> out;
  for (size_t i : used) out.insert(out.end(), opt[i].seq.begin(), opt[i].seq.begin() + take[i]);
  return out;
}

}  // namespace

std::span<const Policy> all_policies() { return kAll; }

std::string_view to_string(Policy policy) {
  for (const auto& n : kNames)
    if (n.policy == policy) return n.name;
  return "?";
}

Policy parse_policy(std::string_view name) {
  std::string norm;
  for (char c : name) norm += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string_view prefix = "MCTOP_PLACE_";
  if (norm.rfind(prefix, 0) == 0) norm.erase(0, prefix.size());
  if (norm == "RR") return Policy::RrCore;
  if (norm == "BALANCE") return Policy::BalanceCore;
  for (const auto& n : kNames)
    if (n.name == norm) return n.policy;
  std::string valid;
  for (const auto& n : kNames) {
    if (!valid.empty()) valid += ", ";
    valid += n.name;
  }
  throw std::invalid_argument("weft::sched: unknown placement policy \"" + std::string(name) +
                              "\"; valid policies: " + valid + " (also RR = RR_CORE, BALANCE = BALANCE_CORE)");
}

Placement place(const Topology& t, Policy policy, int n, int n_sockets) {
  if (n < 1)
    throw std::invalid_argument("weft::sched::place(" + std::string(to_string(policy)) + "): thread count " +
                                std::to_string(n) + " must be at least 1");
  if (n_sockets < 0 || n_sockets > t.num_sockets())
    throw std::invalid_argument("weft::sched::place(" + std::string(to_string(policy)) + "): socket count " +
                                std::to_string(n_sockets) + " outside [0," + std::to_string(t.num_sockets()) + "]");
  const int S = t.num_sockets();
  std::vector<int> order;
  switch (policy) {
    case Policy::RrHwc:
    case Policy::RrCore:
    case Policy::RrScale: order = rr_socket_order(t); break;
    case Policy::None:
    case Policy::Sequential:
    case Policy::Power: order = index_socket_order(t); break;
    default: order = con_socket_order(t); break;
  }
  if (n_sockets > 0) order.resize(n_sockets);
  int capacity = 0;
  for (int s : order) capacity += static_cast<int>(t.socket_contexts(s).size());
  const std::string where = n_sockets > 0 ? "the first " + std::to_string(n_sockets) + " sockets have"
                                          : "the topology has";
  if (n > capacity) refuse(policy, n, capacity, where);

  std::vector<int> ctx_cap(S), core_cap(S);
  for (int s = 0; s < S; ++s) {
    ctx_cap[s] = static_cast<int>(t.socket_contexts(s).size());
    core_cap[s] = static_cast<int>(t.socket_cores(s).size());
  }

  Placement p;
  p.policy = policy;
  p.requested = n;
  std::vector<int>& out = p.contexts;
  switch (policy) {
    case Policy::None:
    case Policy::Sequential: {
      // OS numbering (Table 7.2 SEQUENTIAL); NONE is not pinned at all.
      std::set<int> allowed(order.begin(), order.end());
      for (int c = 0; c < t.num_contexts() && static_cast<int>(out.size()) < n; ++c)
        if (allowed.count(t.socket_of(c))) out.push_back(c);
      p.pinned = policy != Policy::None;
      break;
    }
    case Policy::Power:
      if (t.has_power_info()) {
        out = power_placement(t, order, n);
        break;
      }
      // No power model: the estimated max power of a placement is minimised
      // by activating the fewest sockets (the first core of a socket wakes
      // its uncore, §5.3) and, within them, the fewest cores (an active
      // core's further context adds least), i.e. CON_HWC's compact fill, in
      // socket index order.
      [[fallthrough]];
    case Policy::ConHwc:
      // CON_HWC: fill a socket compactly, then the next-best connected one.
      for (int s : order)
        for (int c : hwc_order(t, s))
          if (static_cast<int>(out.size()) < n) out.push_back(c);
      break;
    case Policy::ConCoreHwc:
      // Unique cores of a socket before their 2nd contexts; still one socket at a time.
      for (int s : order)
        for (int c : core_order(t, s))
          if (static_cast<int>(out.size()) < n) out.push_back(c);
      break;
    case Policy::ConCore: {
      // Unique cores of all *used* sockets, then 2nd, 3rd... contexts of each core.
      size_t used = sockets_needed(order, n, core_cap);
      for (int h = 0; h < t.max_contexts_per_core() && static_cast<int>(out.size()) < n; ++h)
        for (size_t i = 0; i < used; ++i)
          for (int core : t.socket_cores(order[i])) {
            const auto& cc = t.core_contexts(core);
            if (h < static_cast<int>(cc.size()) && static_cast<int>(out.size()) < n) out.push_back(cc[h]);
          }
      break;
    }
    case Policy::BalanceHwc:
    case Policy::BalanceCoreHwc:
    case Policy::BalanceCore: {
      // Balanced CON_*: the fewest sockets that hold n (in contexts for HWC and
      // CORE_HWC, in cores for CORE), n spread evenly over them.
      const bool by_core = policy == Policy::BalanceCore;
      size_t used = sockets_needed(order, n, by_core ? core_cap : ctx_cap);
      std::vector<int> limit;
      for (size_t i = 0; i < used; ++i) limit.push_back(ctx_cap[order[i]]);
      std::vector<int> q = balanced_quotas(n, limit);
      std::vector<std::vector<int>> chosen(used);
      for (size_t i = 0; i < used; ++i) {
        auto seq = policy == Policy::BalanceHwc ? hwc_order(t, order[i]) : core_order(t, order[i]);
        chosen[i].assign(seq.begin(), seq.begin() + q[i]);
      }
      if (!by_core) {
        for (const auto& c : chosen) out.insert(out.end(), c.begin(), c.end());
      } else {
        for (int h = 0; h < t.max_contexts_per_core(); ++h)
          for (const auto& c : chosen)
            for (int x : c)
              if (smt_index(t, x) == h) out.push_back(x);
      }
      break;
    }
    case Policy::RrHwc:
    case Policy::RrCore: {
      std::vector<std::vector<int>> seqs;
      for (int s : order) seqs.push_back(policy == Policy::RrHwc ? hwc_order(t, s) : core_order(t, s));
      out = round_robin(seqs, std::vector<int>(seqs.size(), capacity), n);
      break;
    }
    case Policy::RrScale: {
      // RR_CORE, with each socket capped at the threads that saturate its local
      // bandwidth: ceil(bw_all / bw_single). The result may be smaller than n.
      std::vector<std::vector<int>> seqs;
      std::vector<int> caps;
      for (int s : order) {
        MemoryInfo m = t.memory(t.socket_node(s));
        if (m.bandwidth_gbs <= 0 || m.bandwidth_single_gbs <= 0)
          throw std::invalid_argument(
              "weft::sched::place(RR_SCALE): needs the memory bandwidth of node " + std::to_string(t.socket_node(s)) +
              " (socket " + std::to_string(s) + "), all-context and single-thread; measure it (weft-topo infer --mem) "
              "or use RR_CORE");
        seqs.push_back(core_order(t, s));
        caps.push_back(std::min(ctx_cap[s], static_cast<int>(std::ceil(m.bandwidth_gbs / m.bandwidth_single_gbs - 1e-9))));
      }
      out = round_robin(seqs, caps, n);
      break;
    }
  }
  for (int c : out)
    if (std::find(p.sockets.begin(), p.sockets.end(), t.socket_of(c)) == p.sockets.end())
      p.sockets.push_back(t.socket_of(c));
  p.max_latency = t.max_latency(out);
  p.power = estimate_power(t, out);
  return p;
}

double PowerEstimate::used_package_w() const {
  double sum = 0;
  for (double w : package_w) sum += w;
  return sum;
}
double PowerEstimate::used_total_w() const {
  double sum = used_package_w();
  for (double w : dram_w) sum += w;
  return sum;
}
double PowerEstimate::machine_total_w() const { return used_total_w() + unused_package_w + unused_dram_w; }

std::optional<PowerEstimate> estimate_power(const Topology& t, std::span<const int> contexts) {
  if (!t.has_power_info()) return std::nullopt;
  PowerEstimate e;
  e.source = t.power_source();
  const int S = t.num_sockets();
  std::vector<std::set<int>> cores(S), ctxs(S);
  for (int c : contexts) {
    int s = t.socket_of(c);
    if (std::find(e.sockets.begin(), e.sockets.end(), s) == e.sockets.end()) e.sockets.push_back(s);
    cores[s].insert(t.core_of(c));
    ctxs[s].insert(c);
  }
  for (int s = 0; s < S; ++s) {
    PowerInfo pw = t.power(s);
    if (std::find(e.sockets.begin(), e.sockets.end(), s) == e.sockets.end()) {
      e.unused_package_w += pw.idle_w;
      e.unused_dram_w += pw.dram_idle_w;
    }
  }
  for (int s : e.sockets) {
    PowerInfo pw = t.power(s);
    e.package_w.push_back(pw.package_w(static_cast<int>(cores[s].size()), static_cast<int>(ctxs[s].size())));
    e.dram_w.push_back(pw.dram_w(true));
  }
  return e;
}

int Placement::num_cores(const Topology& t) const {
  std::set<int> cores;
  for (int c : contexts) cores.insert(t.core_of(c));
  return static_cast<int>(cores.size());
}

namespace {
std::string fmt(double v, const char* f = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

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
    for (double x : st.bw_prop) o << ' ' << fmt(x, "%.3f");
    o << "\n# Min bandwidth    : " << fmt(st.min_bw, "%.2f") << " GB/s\n";
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
        o << ' ' << fmt(w, "%.1f");
      }
      o << " = " << fmt(sum, "%.1f") << " Watt";
      double unused = e.unused_package_w + (dram ? e.unused_dram_w : 0);
      const size_t n_unused = static_cast<size_t>(t.num_sockets()) - e.sockets.size();
      if (n_unused > 0)
        o << " (+ " << fmt(unused, "%.1f") << " idle in " << n_unused << " unused socket" << (n_unused > 1 ? "s" : "")
          << " = " << fmt(sum + unused, "%.1f") << ")";
      o << "\n";
    };
    line("# Max pow no DRAM  :", false);
    line("# Max pow with DRAM:", true);
    o << "# Power model      : " << to_string(e.source) << "\n";
  } else {
    o << "# Max power        : n/a (no power model: measure one with `weft-topo power --measure` (RAPL) or give\n"
         "#                    'power' lines in the topology file, docs/topology-format.md)\n";
  }
  o << "# Max latency      : " << fmt(max_latency, "%.0f") << " cycles (" << to_string(t.latency_source()) << ")\n";
  if (requested != size()) o << "# Requested        : " << requested << " threads, placed " << size() << "\n";
  return o.str();
}

std::string Placement::to_json(const Topology& t) const {
  std::ostringstream o;
  SocketStats st = socket_stats(*this, t);
  auto list = [&](const std::vector<int>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) s += ',';
      s += std::to_string(v[i]);
    }
    s += ']';
    return s;
  };
  std::vector<int> os;
  for (int c : contexts) os.push_back(t.os_cpu(c));
  o << "{\"policy\":\"" << to_string(policy) << "\",\"pinned\":" << (pinned ? "true" : "false")
    << ",\"requested\":" << requested << ",\"contexts\":" << list(contexts) << ",\"os_cpus\":" << list(os)
    << ",\"sockets\":" << list(sockets) << ",\"contexts_per_socket\":" << list(st.hwcs)
    << ",\"cores_per_socket\":" << list(st.cores) << ",\"cores\":" << num_cores(t)
    << ",\"max_latency_cycles\":" << fmt(max_latency);
  if (st.have_bw) {
    o << ",\"bw_proportions\":[";
    for (size_t i = 0; i < st.bw_prop.size(); ++i) o << (i ? "," : "") << fmt(st.bw_prop[i], "%.4f");
    o << "],\"min_bandwidth_gbs\":" << fmt(st.min_bw);
  }
  if (power) {
    auto arr = [&](const std::vector<double>& v) {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) s += ',';
        s += fmt(v[i]);
      }
      return s + "]";
    };
    o << ",\"power\":{\"source\":\"" << to_string(power->source) << "\",\"sockets\":" << list(power->sockets)
      << ",\"package_w\":" << arr(power->package_w) << ",\"dram_w\":" << arr(power->dram_w)
      << ",\"max_power_no_dram_w\":" << fmt(power->used_package_w())
      << ",\"max_power_with_dram_w\":" << fmt(power->used_total_w())
      << ",\"machine_total_w\":" << fmt(power->machine_total_w()) << "}";
  }
  o << "}";
  return o.str();
}

double backoff_quantum(const Topology& t, std::span<const int> contexts, BackoffMode mode) {
  std::vector<int> distinct(contexts.begin(), contexts.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() < 2) {
    auto v = t.latency_values();
    return v.empty() ? 0 : v.front();
  }
  return mode == BackoffMode::Max ? t.max_latency(distinct) : t.min_latency(distinct);
}

double backoff_quantum(const Topology& t, const Placement& p, BackoffMode mode) {
  return backoff_quantum(t, std::span<const int>(p.contexts), mode);
}

}  // namespace weft::sched
