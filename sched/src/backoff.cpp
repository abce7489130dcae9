// Educated backoff (Trigonakis, "Towards Scalable Synchronization on
// Multi-Cores", EPFL thesis 7246, 2016, §7.5 and §7.7.1 "Using Latencies to
// Optimize Locking"): the backoff quantum is a latency between the
// participating contexts.
#include <algorithm>
#include <vector>

#include "weft/sched/placement.hpp"

namespace weft::sched {

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
