#pragma once
// MCTOP-PLACE's thread interface (thesis §7.6): "(i) initialize a new
// MCTOP-PLACE object with a given policy, (ii) pin a thread to the next
// available context of a MCTOP-PLACE object (if any), and (iii) unpin thread
// from the context and return the context to MCTOP-PLACE", plus the
// "MCTOP-PLACE pool", which "offers runtime selection of placement policies"
// for different execution phases (used by the thesis's OpenMP extension,
// §7.7.4). libmctop's names: mctop_alloc_create / mctop_alloc_pin[_plus] /
// mctop_alloc_unpin and mctop_alloc_pool_{create,set_alloc,pin}.
//
// Both classes are thread-safe. A thread holds at most one context of a
// Pinner at a time; which one is remembered per thread (thread_local), so
// unpin() needs no argument, as in libmctop.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <vector>

#include "weft/sched/placement.hpp"
#include "weft/sched/topology.hpp"

namespace weft::sched {

// What a pinned thread knows about its place (mctop_thread_info).
struct PinInfo {
  int slot = -1;               // index into Placement::contexts (libmctop's thread "id")
  int context = -1;            // hardware context
  int os_cpu = -1;
  int core = -1;
  int socket = -1;
  int node = -1;               // local OS NUMA node
  int nth_socket = -1;         // index of the socket in Placement::sockets
  int context_in_core = -1;    // 0 = the core's first context (SMT sibling order)
  int core_in_socket = -1;     // the core's position among its socket's cores
  int slot_in_socket = -1;     // slots of the same socket before this one in the placement
  bool pinned = false;         // false for Policy::None (the slot is taken, the affinity untouched)
};

// One placement whose contexts threads take one at a time.
class Pinner {
 public:
  Pinner(Topology topo, Placement placement);
  // Places n_threads under `policy` (place(); its errors propagate).
  Pinner(const Topology& topo, Policy policy, int n_threads, int n_sockets = 0);
  ~Pinner();
  Pinner(const Pinner&) = delete;
  Pinner& operator=(const Pinner&) = delete;

  const Topology& topology() const { return topo_; }
  const Placement& placement() const { return placement_; }
  int capacity() const { return placement_.size(); }
  int in_use() const { return in_use_.load(std::memory_order_acquire); }

  // Pins the calling thread to the free context that comes first in the
  // placement's order and returns it; nullopt when every context is taken.
  // A thread that already holds a context of this Pinner gets that one back
  // (it is not given a second). The affinity the thread had before is saved
  // and unpin() restores it. Throws std::system_error (and takes nothing) if
  // the OS refuses the pin.
  std::optional<PinInfo> pin_next();
  // Returns the calling thread's context and restores its previous affinity;
  // false if it holds none of this Pinner.
  bool unpin();
  // The calling thread's context in this Pinner, if any.
  std::optional<PinInfo> current() const;

  // Without threads or affinity: claim the first free slot / give one back
  // (for callers that pin by other means, e.g. a runtime's worker start-up).
  std::optional<int> acquire();
  void release(int slot);  // throws std::invalid_argument if the slot is not taken
  PinInfo info(int slot) const;

  // Internal: a process-unique id (thread-local records refer to it).
  std::uint64_t id() const { return id_; }

 private:
  friend class PlacementPool;
  Topology topo_;
  Placement placement_;
  std::unique_ptr<std::atomic<bool>[]> taken_;
  std::atomic<int> in_use_{0};
  std::uint64_t id_;
};

// Placements selected per execution phase; threads follow the selection at
// their next pin().
class PlacementPool {
 public:
  explicit PlacementPool(Topology topo);
  // Creates the placement and selects it.
  PlacementPool(Topology topo, Policy policy, int n_threads, int n_sockets = 0);
  ~PlacementPool();
  PlacementPool(const PlacementPool&) = delete;
  PlacementPool& operator=(const PlacementPool&) = delete;

  // Makes (policy, n_threads, n_sockets) the current placement, creating it
  // on first use and reusing it afterwards (place()'s errors propagate, and
  // the selection is then unchanged). Returns it.
  const Placement& select(Policy policy, int n_threads, int n_sockets = 0);
  // The current placement; throws std::logic_error if none was selected.
  const Placement& current() const;
  // (Re)pins the calling thread to the current placement: a thread that
  // holds a context of it keeps it; one that holds a context of an earlier
  // selection gives that back and takes the next free context of the current
  // one. nullopt when the current placement has no free context (the thread
  // then holds nothing and is back on its original affinity).
  std::optional<PinInfo> pin();
  // Gives back whatever the calling thread holds in this pool and restores
  // its original affinity; false if it holds nothing.
  bool unpin();
  std::size_t num_placements() const;
  const Topology& topology() const { return topo_; }

 private:
  Pinner* current_pinner() const;
  Topology topo_;
  mutable std::mutex mutex_;
  std::map<std::tuple<Policy, int, int>, std::unique_ptr<Pinner>> cache_;
  std::atomic<Pinner*> current_{nullptr};
  std::uint64_t id_;
};

}  // namespace weft::sched
