// The queue and stack benchmarks of the Osci paper (§6): every thread runs
// its share of `pairs` ENQUEUE+DEQUEUE (PUSH+POP) pairs (fewer if the run
// reaches kRunCapNs), with random local work of 1..W dummy iterations after
// each operation, on a queue that starts empty or holds `prefill` items.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "../harness.hpp"

namespace weft::bench::combining {

struct ContainerRun {
  int cores = 1;     // CPUs used (weft workers or pinned-thread CPUs)
  int per_core = 1;  // ULTs per worker, or std::threads per CPU
  long pairs = 0;    // total operation pairs (fewer if the run reaches kRunCapNs)
  long prefill = 0;  // items put in before the measured region
  int w = 512;       // local work after each operation: up to w iterations
};

// One implementation. `ults` (may be empty) runs it with YieldWait on
// per_core ULTs per weft worker, `threads` (may be empty) on per_core pinned
// std::threads per CPU (a combining object then uses SpinWait). Each run
// checks that every item put in (prefill included) came out exactly once
// (count and a sum of 64-bit hashes, the leftovers drained after the run),
// and that no take found the container empty right after the same thread's
// put (impossible for a linearizable queue/stack); it throws if not. Extra
// metrics: "Mpairs/s" (1000 / ns per pair), "degree" (requests per combining
// round) for the combining ones.
struct ContainerImpl {
  std::string name;
  std::function<Measurement(const ContainerRun&)> ults;
  std::function<Measurement(const ContainerRun&)> threads;
};

// OsciQueue first (the "weft" row), then the other queues.
const std::vector<ContainerImpl>& queue_impls();
// OsciStack first, then the other stacks.
const std::vector<ContainerImpl>& stack_impls();

// The sequential queue/stack (weft::sync::BoundedQueue/BoundedStack) with the
// same local work on one pinned core (one core's share of the pairs, or
// kRunCapNs), its throughput × r.cores (total_ns = one core's elapsed / cores).
Measurement queue_ideal(const ContainerRun& r);
Measurement stack_ideal(const ContainerRun& r);

}  // namespace weft::bench::combining
