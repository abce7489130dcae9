#pragma once
// The thesis's Ivy machine (Fig 7.5) with Linux's numbering, for the
// placement and power-model tests: 2 sockets x 10 cores x 2 SMT contexts, OS
// cpu n and n+20 are SMT siblings, cpus 0-9 and 20-29 on socket 0 (node 0);
// latencies 4 (same core), 112 (same socket) and 308 cycles (§7.3).

#include <vector>

#include "weft/sched/topology.hpp"

namespace weft::sched::testing {

inline Topology ivy_linux_numbering() {
  std::vector<ContextInfo> ctx;
  for (int i = 0; i < 40; ++i) ctx.push_back({i, i % 20, (i % 20) / 10, (i % 20) / 10});
  std::vector<double> lat(40 * 40);
  for (int a = 0; a < 40; ++a)
    for (int b = 0; b < 40; ++b)
      lat[a * 40 + b] = a == b ? 0 : ctx[a].core == ctx[b].core ? 4 : ctx[a].socket == ctx[b].socket ? 112 : 308;
  return Topology::from_parts(ctx, lat, LatencySource::Measured, "ivy");
}

}  // namespace weft::sched::testing
