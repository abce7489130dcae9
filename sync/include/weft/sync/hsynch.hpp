#pragma once
// H-Synch (Fatourou & Kallimanis, PPoPP 2012, §4; Osci paper §2, Table 2):
// hierarchical CC-Synch for clustered machines. Each cluster has its own
// CC-Synch list; a cluster's combiner takes a global CLH lock, serves up to
// h requests of its cluster, releases the lock and hands its role to the next
// node of its list. Requests of one cluster are combined with local traffic
// only; clusters compete for the global lock once per batch.
//
// Which cluster a caller joins is decided when its handle is made:
// HSynchConfig::cluster_of maps the current worker index
// (weft::sync::current_worker_index(), the runtime's this_ult::worker_index())
// to a cluster; for plain threads (index -1) the thread's ordinal is used.
// handle_in_cluster(c) chooses explicitly. The choice affects only speed.
// H-Synch's clusters are the machine's sockets (PPoPP'12 §4: requests of one
// socket are combined without crossing the interconnect): build the config
// with HSynchConfig::sockets(topology, runtime.worker_cpus()). The default,
// one cluster per worker, is what the Osci paper's many-ULTs-per-core
// variant (Table 2, "H-Synch-x") uses.

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "weft/sync/clh_lock.hpp"
#include "weft/sync/combining.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/handle_base.hpp"
#include "weft/sync/detail/node_arena.hpp"
#include "weft/sync/wait.hpp"
#include "weft/sched/topology.hpp"

namespace weft::sync {

struct HSynchConfig {
  std::size_t max_combine = 0;  // h, as in CombiningConfig
  // Number of clusters; 0 = std::thread::hardware_concurrency() (one per core,
  // i.e. one per worker when workers are pinned one per core).
  int clusters = 0;
  // worker index (or thread ordinal for plain threads) -> cluster; taken
  // modulo `clusters`. Empty = identity.
  std::function<int(int worker)> cluster_of;

  // One cluster per socket of `topology`: worker w joins the socket of the
  // OS CPU worker_cpus[w] (weft::Runtime::worker_cpus()). Workers whose CPU
  // is unknown (-1: unpinned) and plain threads join socket 0's cluster.
  static HSynchConfig sockets(const sched::Topology& topology, std::vector<int> worker_cpus) {
    std::vector<int> socket_of_worker;
    for (int cpu : worker_cpus) {
      const int ctx = cpu < 0 ? -1 : topology.context_of_os_cpu(cpu);
      socket_of_worker.push_back(ctx < 0 ? 0 : topology.socket_of(ctx));
    }
    HSynchConfig c;
    c.clusters = topology.num_sockets();
    c.cluster_of = [map = std::move(socket_of_worker)](int w) {
      return w >= 0 && static_cast<std::size_t>(w) < map.size() ? map[static_cast<std::size_t>(w)] : 0;
    };
    return c;
  }
};

template <SequentialObject Seq, WaitPolicy Wait = SpinWait>
class HSynch {
 public:
  using Sequential = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;

 private:
  struct alignas(cache_line_size) Node {
    std::atomic<Node*> next{nullptr};
    std::atomic<bool> wait{false};
    bool completed = false;
    Op op{};
    Result ret{};
  };
  struct alignas(cache_line_size) ClusterTail {
    std::atomic<Node*> tail{nullptr};
  };

 public:
  // Per-caller state: the caller's spare node, its cluster and its handle of
  // the global lock.
  class Handle : public detail::HandleBase<Handle, HSynch> {
   public:
    Handle() = default;
    Handle(Handle&&) noexcept = default;
    Handle& operator=(Handle&&) noexcept = default;
    ~Handle() { this->release(); }
    int cluster() const noexcept { return cluster_; }

   private:
    friend class HSynch;
    Handle(HSynch* obj, Node* n, int cluster, typename ClhLock<Wait>::Handle lock)
        : detail::HandleBase<Handle, HSynch>(obj, &obj->bound_), node_(n), cluster_(cluster), lock_(std::move(lock)) {}
    Node* node_ = nullptr;
    int cluster_ = 0;
    typename ClhLock<Wait>::Handle lock_;
  };

  HSynch() : HSynch(Seq{}) {}
  explicit HSynch(Seq seq, HSynchConfig cfg = {})
      : seq_(std::move(seq)),
        bound_(cfg.max_combine),
        nclusters_(cfg.clusters > 0 ? cfg.clusters : default_clusters()),
        cluster_of_(cfg.cluster_of),
        tails_(std::make_unique<ClusterTail[]>(static_cast<std::size_t>(nclusters_))) {
    for (int c = 0; c < nclusters_; ++c) tails_[c].tail.store(arena_.make(), std::memory_order_relaxed);
  }
  explicit HSynch(Seq seq, CombiningConfig cfg) : HSynch(std::move(seq), HSynchConfig{.max_combine = cfg.max_combine, .clusters = 0, .cluster_of = {}}) {}
  HSynch(const HSynch&) = delete;
  HSynch& operator=(const HSynch&) = delete;

  int clusters() const noexcept { return nclusters_; }

  // A handle in the cluster of the calling worker (or plain thread).
  Handle handle() {
    int w = current_worker_index();
    if (w < 0) w = current_thread_ordinal();
    int c = cluster_of_ ? cluster_of_(w) : w;
    return handle_in_cluster(c);
  }
  Handle handle_in_cluster(int c) {
    c %= nclusters_;
    if (c < 0) c += nclusters_;
    return Handle(this, arena_.acquire(), c, global_.handle());
  }

  Result apply(Handle& h, const Op& op) {
    // CC-Synch within the cluster ...
    Node* next = h.node_;
    next->next.store(nullptr, std::memory_order_relaxed);
    next->wait.store(true, std::memory_order_relaxed);
    next->completed = false;
    Node* cur = tails_[h.cluster_].tail.exchange(next, std::memory_order_acq_rel);
    cur->op = op;
    cur->next.store(next, std::memory_order_release);
    h.node_ = cur;
    const std::uint64_t pauses = wait_until<Wait>([&] { return !cur->wait.load(std::memory_order_acquire); });
    if (cur->completed) return cur->ret;

    // ... and the cluster's combiner serializes with other clusters' combiners
    // through the global CLH lock.
    global_.lock(h.lock_);
    detail::CombineRound round(stats_);
    round.waited<Wait>(pauses);
    const std::size_t h_bound = bound_.get();
    std::size_t counter = 0;
    Node* p = cur;
    Node* pn;
    while ((pn = p->next.load(std::memory_order_acquire)) != nullptr && counter < h_bound) {
      ++counter;
      p->ret = seq_.apply(p->op);
      p->completed = true;
      p->wait.store(false, std::memory_order_release);
      p = pn;
    }
    round.served(counter);
    global_.unlock(h.lock_);
    p->wait.store(false, std::memory_order_release);
    return cur->ret;
  }

  CombiningStats stats() const noexcept { return stats_.get(); }
  Seq& unsafe_object() noexcept { return seq_; }

 private:
  friend class detail::HandleBase<Handle, HSynch>;
  void release_handle(Handle& h) noexcept { arena_.recycle(h.node_); }

  static int default_clusters() noexcept {
    const unsigned n = std::thread::hardware_concurrency();
    return n ? static_cast<int>(n) : 1;
  }

  alignas(cache_line_size) Seq seq_;
  detail::CombineBound bound_;
  detail::StatsCounter stats_;
  int nclusters_;
  std::function<int(int)> cluster_of_;
  std::unique_ptr<ClusterTail[]> tails_;
  ClhLock<Wait> global_;
  detail::NodeArena<Node> arena_;
};

}  // namespace weft::sync
