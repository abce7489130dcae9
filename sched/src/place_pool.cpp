// MCTOP-PLACE pin / unpin and the placement pool (thesis §7.6); see
// place_pool.hpp. Slots are claimed with a CAS on a per-slot flag, lowest free
// slot first; which slot a thread holds is kept in a thread_local list keyed
// by the Pinner's process-unique id (so a destroyed Pinner's records can never
// match a new one at the same address).
#include "weft/sched/place_pool.hpp"

#include <sched.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "weft/sched/cpuset.hpp"

namespace weft::sched {

namespace {

std::atomic<std::uint64_t> next_id{1};

struct Held {
  std::uint64_t pinner_id = 0;
  std::uint64_t pool_id = 0;  // 0: taken through Pinner::pin_next directly
  Pinner* pinner = nullptr;   // for pool records (the pool owns it)
  int slot = -1;
  bool restore = false;  // `saved` holds the affinity to restore
  cpu_set_t saved;
};

thread_local std::vector<Held> held;

Held* find_pinner(std::uint64_t pinner_id) {
  for (auto& h : held)
    if (h.pool_id == 0 && h.pinner_id == pinner_id) return &h;
  return nullptr;
}
Held* find_pool(std::uint64_t pool_id) {
  for (auto& h : held)
    if (h.pool_id == pool_id) return &h;
  return nullptr;
}
void forget(const Held* h) { held.erase(held.begin() + (h - held.data())); }

bool save_affinity(cpu_set_t& set) {
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0;
}
void restore_affinity(const Held& h) {
  if (h.restore) (void)sched_setaffinity(0, sizeof(h.saved), &h.saved);  // best effort
}

}  // namespace

// ------------------------------------------------------------ Pinner

Pinner::Pinner(Topology topo, Placement placement)
    : topo_(std::move(topo)),
      placement_(std::move(placement)),
      taken_(std::make_unique<std::atomic<bool>[]>(placement_.contexts.size())),
      id_(next_id.fetch_add(1, std::memory_order_relaxed)) {
  for (int c : placement_.contexts)
    if (c < 0 || c >= topo_.num_contexts())
      throw std::invalid_argument("weft::sched::Pinner: placement context " + std::to_string(c) +
                                  " is not in the topology (0.." + std::to_string(topo_.num_contexts() - 1) + ")");
}

Pinner::Pinner(const Topology& topo, Policy policy, int n_threads, int n_sockets)
    : Pinner(topo, place(topo, policy, n_threads, n_sockets)) {}

Pinner::~Pinner() = default;

std::optional<int> Pinner::acquire() {
  for (int i = 0; i < capacity(); ++i) {
    bool expected = false;
    if (!taken_[static_cast<size_t>(i)].load(std::memory_order_relaxed) &&
        taken_[static_cast<size_t>(i)].compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
      in_use_.fetch_add(1, std::memory_order_acq_rel);
      return i;
    }
  }
  return std::nullopt;
}

void Pinner::release(int slot) {
  if (slot < 0 || slot >= capacity())
    throw std::invalid_argument("weft::sched::Pinner::release: slot " + std::to_string(slot) + " out of range [0," +
                                std::to_string(capacity()) + ")");
  // Count down before the slot is free again (acquire counts up after taking
  // it), so in_use() never exceeds the slots actually taken.
  in_use_.fetch_sub(1, std::memory_order_acq_rel);
  if (!taken_[static_cast<size_t>(slot)].exchange(false, std::memory_order_acq_rel)) {
    in_use_.fetch_add(1, std::memory_order_acq_rel);
    throw std::invalid_argument("weft::sched::Pinner::release: slot " + std::to_string(slot) + " is not taken");
  }
}

PinInfo Pinner::info(int slot) const {
  if (slot < 0 || slot >= capacity())
    throw std::out_of_range("weft::sched::Pinner::info: slot " + std::to_string(slot) + " out of range [0," +
                            std::to_string(capacity()) + ")");
  PinInfo p;
  p.slot = slot;
  p.context = placement_.contexts[static_cast<size_t>(slot)];
  const ContextInfo& c = topo_.context(p.context);
  p.os_cpu = c.os_cpu;
  p.core = c.core;
  p.socket = c.socket;
  p.node = c.node;
  const auto& socks = placement_.sockets;
  p.nth_socket = static_cast<int>(std::find(socks.begin(), socks.end(), c.socket) - socks.begin());
  const auto& cc = topo_.core_contexts(c.core);
  p.context_in_core = static_cast<int>(std::find(cc.begin(), cc.end(), p.context) - cc.begin());
  const auto& sc = topo_.socket_cores(c.socket);
  p.core_in_socket = static_cast<int>(std::find(sc.begin(), sc.end(), c.core) - sc.begin());
  p.slot_in_socket = 0;
  for (int j = 0; j < slot; ++j)
    if (topo_.socket_of(placement_.contexts[static_cast<size_t>(j)]) == c.socket) ++p.slot_in_socket;
  p.pinned = placement_.pinned;
  return p;
}

std::optional<PinInfo> Pinner::pin_next() {
  if (Held* h = find_pinner(id_)) return info(h->slot);
  std::optional<int> slot = acquire();
  if (!slot) return std::nullopt;
  Held h;
  h.pinner_id = id_;
  h.slot = *slot;
  if (placement_.pinned) {
    h.restore = save_affinity(h.saved);
    try {
      pin_current_thread(topo_.os_cpu(placement_.contexts[static_cast<size_t>(*slot)]));
    } catch (...) {
      release(*slot);
      throw;
    }
  }
  held.push_back(h);
  return info(*slot);
}

bool Pinner::unpin() {
  Held* h = find_pinner(id_);
  if (!h) return false;
  restore_affinity(*h);
  release(h->slot);
  forget(h);
  return true;
}

std::optional<PinInfo> Pinner::current() const {
  if (const Held* h = find_pinner(id_)) return info(h->slot);
  return std::nullopt;
}

// ------------------------------------------------------------ PlacementPool

PlacementPool::PlacementPool(Topology topo) : topo_(std::move(topo)), id_(next_id.fetch_add(1, std::memory_order_relaxed)) {}

PlacementPool::PlacementPool(Topology topo, Policy policy, int n_threads, int n_sockets) : PlacementPool(std::move(topo)) {
  select(policy, n_threads, n_sockets);
}

PlacementPool::~PlacementPool() = default;

const Placement& PlacementPool::select(Policy policy, int n_threads, int n_sockets) {
  std::lock_guard lock(mutex_);
  auto key = std::make_tuple(policy, n_threads, n_sockets);
  auto it = cache_.find(key);
  if (it == cache_.end())
    it = cache_.emplace(key, std::make_unique<Pinner>(topo_, policy, n_threads, n_sockets)).first;
  current_.store(it->second.get(), std::memory_order_release);
  return it->second->placement();
}

Pinner* PlacementPool::current_pinner() const {
  Pinner* p = current_.load(std::memory_order_acquire);
  if (!p) throw std::logic_error("weft::sched::PlacementPool: no placement selected yet (call select() first)");
  return p;
}

const Placement& PlacementPool::current() const { return current_pinner()->placement(); }

std::size_t PlacementPool::num_placements() const {
  std::lock_guard lock(mutex_);
  return cache_.size();
}

std::optional<PinInfo> PlacementPool::pin() {
  Pinner* cur = current_pinner();
  Held* h = find_pool(id_);
  if (h && h->pinner == cur) return cur->info(h->slot);
  if (!h) {
    Held fresh;
    fresh.pool_id = id_;
    fresh.restore = save_affinity(fresh.saved);
    held.push_back(fresh);
    h = &held.back();
  } else {
    h->pinner->release(h->slot);  // the selection changed: give the old context back
    h->pinner = nullptr;
    h->slot = -1;
  }
  std::optional<int> slot = cur->acquire();
  if (!slot) {
    restore_affinity(*h);
    forget(h);
    return std::nullopt;
  }
  try {
    if (cur->placement().pinned) pin_current_thread(cur->topology().os_cpu(cur->placement().contexts[static_cast<size_t>(*slot)]));
    else restore_affinity(*h);  // NONE: unpinned, i.e. the thread's own affinity
  } catch (...) {
    cur->release(*slot);
    restore_affinity(*h);
    forget(h);
    throw;
  }
  h->pinner = cur;
  h->pinner_id = cur->id();
  h->slot = *slot;
  return cur->info(*slot);
}

bool PlacementPool::unpin() {
  Held* h = find_pool(id_);
  if (!h) return false;
  restore_affinity(*h);
  if (h->pinner) h->pinner->release(h->slot);
  forget(h);
  return true;
}

}  // namespace weft::sched
