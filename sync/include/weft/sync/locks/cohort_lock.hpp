#pragma once
// CohortLock: lock cohorting (Dice, Marathe & Shavit 2012) over the
// machine's sockets, the hierarchical design SSYNC studies (thesis Table 2.1,
// ch. 4): one local lock per cluster (socket, from the topology) and one
// global lock. A caller takes its cluster's local lock, then the global lock
// unless the previous local holder passed it on; on release, if callers of
// the same cluster wait (the local lock's has_waiters()) and fewer than
// `max_local_handoffs` handoffs happened in a row, the global lock stays with
// the cluster and only the local lock is released. So the lock (and the data
// it protects) stays on one socket for a batch of critical sections.
//
// The global lock must be thread-oblivious (released by another caller than
// the one that took it): TicketLock is. The local lock needs has_waiters().
//
//   HticketLock    = CohortLock<TicketLock, TicketLock>: SSYNC's HTICKET
//                    (thesis Table 2.1: the winner of the top lock passes it
//                    around its node until no local waiter is left or the
//                    handoffs run out)
//   CohortMcsLock  = CohortLock<TicketLock, McsLock>: C-TKT-MCS of the
//                    cohorting paper
//
// Lockable; waiting is the local and global locks' (spin, then park/sleep).

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/cpu_clusters.hpp"
#include "weft/sync/detail/lock_errors.hpp"
#include "weft/sync/locks/mcs_lock.hpp"
#include "weft/sync/locks/ticket_lock.hpp"

namespace weft::sync {

template <class Global, class Local>
class CohortLock {
 public:
  static constexpr std::uint32_t kDefaultMaxLocalHandoffs = 64;

  // Clusters are the sockets of the topology (the live weft::Runtime's, or
  // the discovered one).
  CohortLock() : CohortLock(detail::socket_of_each_cpu()) {}
  // Clusters given by hand: cluster_of_cpu[os_cpu] (>= 0; CPUs beyond the
  // table, and entries of -1, go to cluster 0). std::invalid_argument if it
  // names a cluster below -1 or max_local_handoffs is 0.
  explicit CohortLock(std::vector<int> cluster_of_cpu, std::uint32_t max_local_handoffs = kDefaultMaxLocalHandoffs)
      : cluster_of_cpu_(std::move(cluster_of_cpu)), max_handoffs_(max_local_handoffs) {
    if (max_handoffs_ == 0) throw std::invalid_argument("weft::sync::CohortLock: max_local_handoffs must be >= 1");
    int n = 1;
    for (int& c : cluster_of_cpu_) {
      if (c < -1) throw std::invalid_argument("weft::sync::CohortLock: cluster " + std::to_string(c) + " (must be >= -1)");
      if (c < 0) c = 0;
      n = c + 1 > n ? c + 1 : n;
    }
    clusters_ = std::make_unique<Cluster[]>(static_cast<std::size_t>(n));
    num_clusters_ = n;
  }
  CohortLock(const CohortLock&) = delete;
  CohortLock& operator=(const CohortLock&) = delete;

  void lock() {
    const int c = current_cluster();
    Cluster& cl = clusters_[c];
    cl.local.lock();
    if (!cl.global_owned) {
      global_.lock();
      cl.global_owned = true;
      cl.handoffs = 0;
    }
    holder_cluster_ = c;
  }
  bool try_lock() {
    const int c = current_cluster();
    Cluster& cl = clusters_[c];
    if (!cl.local.try_lock()) return false;
    if (!cl.global_owned) {
      if (!global_.try_lock()) {
        cl.local.unlock();
        return false;
      }
      cl.global_owned = true;
      cl.handoffs = 0;
    }
    holder_cluster_ = c;
    return true;
  }
  // Throws std::logic_error if the lock was not held (where Local can tell).
  void unlock() {
    const int c = holder_cluster_;
    if (c < 0) detail::throw_not_held("CohortLock");
    holder_cluster_ = -1;
    Cluster& cl = clusters_[c];
    if (cl.local.has_waiters() && ++cl.handoffs < max_handoffs_) {
      ++local_handoffs_;  // the global lock stays with this cluster
    } else {
      cl.global_owned = false;
      global_.unlock();
    }
    cl.local.unlock();
  }

  int num_clusters() const noexcept { return num_clusters_; }
  // Releases that passed the lock within a cluster (read while holding the
  // lock, or when no one uses it).
  std::uint64_t local_handoffs() const noexcept { return local_handoffs_; }

 private:
  struct alignas(cache_line_size) Cluster {
    Local local;
    bool global_owned = false;  // under `local`
    std::uint32_t handoffs = 0;  // under `local`
  };

  int current_cluster() const noexcept {
    const auto cpu = static_cast<std::size_t>(detail::current_cpu());
    return cpu < cluster_of_cpu_.size() ? cluster_of_cpu_[cpu] : 0;
  }

  std::vector<int> cluster_of_cpu_;
  std::uint32_t max_handoffs_;
  std::unique_ptr<Cluster[]> clusters_;
  int num_clusters_ = 1;
  Global global_;
  alignas(cache_line_size) int holder_cluster_ = -1;  // written and read by the holder
  std::uint64_t local_handoffs_ = 0;                 // by the holder
};

using HticketLock = CohortLock<TicketLock, TicketLock>;
using CohortMcsLock = CohortLock<TicketLock, McsLock>;

}  // namespace weft::sync
