// POWER with a power model (Trigonakis, "Towards Scalable Synchronization on
// Multi-Cores", EPFL thesis 7246, 2016, §7.5 "Estimate Power Consumption",
// §7.6 Table 7.2). Per socket the cheaper of two orders is optimal for every
// count, so a dynamic programme over the sockets picks how many threads each
// gets (placement.hpp, place(), says more).
#include "power_placement.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "placement_orders.hpp"

namespace weft::sched::detail {

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

}  // namespace weft::sched::detail
