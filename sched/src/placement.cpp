// MCTOP-PLACE (Trigonakis, "Towards Scalable Synchronization on Multi-Cores",
// EPFL thesis 7246, 2016, §7.6, Table 7.2): which contexts n threads get
// under each policy. The policies' names: policy_names.cpp; POWER's
// optimiser: power_placement.cpp; the summary and JSON (Fig 7.5):
// placement_text.cpp; the educated backoff: backoff.cpp.
#include "weft/sched/placement.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

#include "placement_orders.hpp"
#include "power_placement.hpp"

namespace weft::sched {

namespace {

using detail::core_order;
using detail::hwc_order;
using detail::power_placement;

double local_bw(const Topology& t, int socket) { return t.memory(t.socket_node(socket)).bandwidth_gbs; }

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

}  // namespace

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

int Placement::num_cores(const Topology& t) const {
  std::set<int> cores;
  for (int c : contexts) cores.insert(t.core_of(c));
  return static_cast<int>(cores.size());
}

}  // namespace weft::sched
