#pragma once
// MCTOP-PLACE (thesis §7.6, Table 7.2): which hardware contexts n threads go
// to, under a named policy, and what that placement costs (sockets used, max
// latency). Also the "educated backoff" quantum of §7.5 / §7.7.1.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/sched/power_model.hpp"
#include "weft/sched/topology.hpp"

namespace weft::sched {

// The MCTOP-PLACE policies (Table 7.2). The thesis counts 12 by naming the
// families; these are all of their members. "Socket order" below means: start
// at the socket with the highest local memory bandwidth (a socket must beat the
// best by 5% to win; with no bandwidth data, socket 0), then the others by
// ascending latency from the start socket ("next-best connected neighbour"),
// ties by higher local bandwidth, then by index. Within a socket, cores in
// index order, and contexts of a core in index order.
enum class Policy {
  None,          // NONE: threads are not pinned (contexts still lists nominal homes, in OS order)
  Sequential,    // SEQUENTIAL: OS numbering (context index order)
  ConHwc,        // CON_HWC: fill a socket context by context (all contexts of a core, then the next core),
                 //   then the next socket in socket order
  ConCoreHwc,    // CON_CORE_HWC: in each socket all distinct cores first, then their 2nd contexts, ...;
                 //   still fill one socket before the next
  ConCore,       // CON_CORE: distinct cores of all *used* sockets first (sockets taken in socket order
                 //   until their cores cover n), then 2nd contexts of those sockets, then 3rd, ...
  BalanceHwc,    // BALANCE_HWC: as CON_HWC, but n is spread evenly over the fewest sockets that can hold it
  BalanceCoreHwc,// BALANCE_CORE_HWC: as CON_CORE_HWC, balanced
  BalanceCore,   // BALANCE_CORE: as CON_CORE, balanced (the fewest sockets whose cores cover n)
  RrHwc,         // RR_HWC: round robin over sockets (by local bandwidth, descending); each socket hands
                 //   out its contexts compactly (all contexts of a core first)
  RrCore,        // RR_CORE: round robin over sockets; each socket hands out distinct cores first
  RrScale,       // RR_SCALE: RR_CORE, with the thread count per socket cut to the number that saturates
                 //   the socket's local memory bandwidth: ceil(bw_all / bw_single) (needs memory info)
  Power,         // POWER: minimise the estimated max power (thesis §7.5 "Estimate Power Consumption"):
                 //   with a power model (Topology::has_power_info()) the n contexts whose estimate
                 //   (PowerInfo, package + DRAM) is least, exactly (see place()); without one, the
                 //   structural rule the thesis's measurements imply (a socket costs more than a core,
                 //   a core more than an SMT context): fewest sockets, then fewest cores, sockets in
                 //   index order
};

// All policies, in enum order.
std::span<const Policy> all_policies();
// The thesis name, e.g. "CON_CORE_HWC".
std::string_view to_string(Policy policy);
// Parses a thesis name, case-insensitively, with '-' accepted for '_' and an
// optional "MCTOP_PLACE_" prefix. "RR" and "BALANCE" alone mean RR_CORE and
// BALANCE_CORE. Throws std::invalid_argument naming the bad name and listing
// the valid ones.
Policy parse_policy(std::string_view name);

// A placement of n threads: thread i runs on contexts[i].
struct Placement {
  Policy policy = Policy::Sequential;
  int requested = 0;           // threads asked for
  bool pinned = true;          // false only for Policy::None
  std::vector<int> contexts;   // context index per thread (size == threads placed)
  std::vector<int> sockets;    // sockets used, in the order the policy used them
  double max_latency = 0;      // max pairwise latency among the contexts, cycles (0 for one thread)
  std::optional<PowerEstimate> power;  // when the topology has a power model

  int size() const { return static_cast<int>(contexts.size()); }
  // Distinct cores used.
  int num_cores(const Topology& topo) const;
  // The thesis's mctop_place_print summary (Fig 7.5): policy, #cores,
  // contexts, sockets, contexts and cores per socket, bandwidth proportions and
  // min bandwidth when measured, max latency.
  std::string summary(const Topology& topo) const;
  std::string to_json(const Topology& topo) const;
};

// Places n_threads threads under `policy`. n_sockets > 0 restricts the
// placement to the first n_sockets sockets of the policy's socket order (the
// thesis's optional #sockets argument); 0 means all.
//
// n_threads larger than the contexts available (to the policy, within the
// allowed sockets) is REFUSED: std::invalid_argument saying how many were asked
// for and how many there are. Oversubscription is the runtime's business (run
// several ULTs per worker), not a placement's. n_threads < 1 is refused too.
// RR_SCALE may return fewer contexts than asked (its point) and throws
// std::invalid_argument if the topology has no bandwidth figures.
//
// POWER with a power model: per socket the cheaper of two orders (all
// contexts of a core first when context_w <= core_w, else distinct cores
// first) is optimal for every count, so a dynamic programme over the allowed
// sockets (index order) picks how many threads each socket gets, minimising
// the sum of socket_w + dram_active_w per used socket plus the core and
// context increments (idle power is the same for every placement). Ties go to
// fewer sockets, then to lower socket indices. Used sockets are listed most
// threads first (then by index), each in its order.
Placement place(const Topology& topo, Policy policy, int n_threads, int n_sockets = 0);

// Educated backoff (§7.5, §7.7.1): the quantum is the max (or, for workloads
// that want it, the min) latency between any two participating contexts, in
// cycles. TAS/TTAS back off one quantum, TICKET quantum x queue position.
// With fewer than two distinct contexts it is the smallest non-zero latency of
// the machine (threads sharing one context still pay at least that), or 0 for a
// one-context machine.
enum class BackoffMode { Max, Min };
double backoff_quantum(const Topology& topo, std::span<const int> contexts, BackoffMode mode = BackoffMode::Max);
double backoff_quantum(const Topology& topo, const Placement& placement, BackoffMode mode = BackoffMode::Max);

}  // namespace weft::sched
