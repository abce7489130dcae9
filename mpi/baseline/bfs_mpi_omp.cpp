// The MPI+OpenMP baseline BFS (bfs_mpi_omp.hpp).
#include "bfs_mpi_omp.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/mpi/error.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace weft::mpi::graph500 {

namespace {

struct Claim {
  NodeId vertex;
  NodeId parent;
};

int thread_count() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

int thread_id() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

}  // namespace

BfsResult bfs_mpi_omp(const DistributedGraph& g, NodeId root, int threads_asked) {
#ifdef _OPENMP
  if (threads_asked > 0) omp_set_num_threads(threads_asked);
#else
  (void)threads_asked;
#endif
  const Partition& part = g.partition;
  if (root < 0 || root >= part.num_vertices)
    throw std::invalid_argument("graph500 bfs_mpi_omp: root " + std::to_string(root) + " is not a vertex");
  const std::int64_t n = part.local_count(), first = part.first();
  const int p = part.ranks, threads = thread_count();
  BfsResult result;
  result.parent = weft::graph::Array<NodeId>(static_cast<std::size_t>(n));
  NodeId* parent = result.parent.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t l = 0; l < n; ++l) parent[l] = -1;
  std::vector<NodeId> frontier, next;  // local ids
  if (part.is_local(root)) {
    parent[part.to_local(root)] = root;
    frontier.push_back(static_cast<NodeId>(part.to_local(root)));
  }
  auto claim = [&](std::int64_t l, NodeId from) {
    std::atomic_ref<NodeId> slot(parent[l]);
    NodeId unset = -1;
    return slot.load(std::memory_order_relaxed) == -1 && slot.compare_exchange_strong(unset, from);
  };
  // Per thread: remote claims per destination, and the vertices it woke.
  std::vector<std::vector<std::vector<Claim>>> out(static_cast<std::size_t>(threads),
                                                   std::vector<std::vector<Claim>>(static_cast<std::size_t>(p)));
  std::vector<std::vector<NodeId>> woke(static_cast<std::size_t>(threads));
  std::vector<int> send_counts(static_cast<std::size_t>(p)), send_displs(static_cast<std::size_t>(p)),
      recv_counts(static_cast<std::size_t>(p)), recv_displs(static_cast<std::size_t>(p));
  std::vector<Claim> send, received;
  std::int64_t global_frontier = 1;
  while (global_frontier > 0) {
    LevelStats& stats = result.levels.emplace_back();
    stats.frontier = global_frontier;
    const auto frontier_size = static_cast<std::int64_t>(frontier.size());
#pragma omp parallel
    {
      auto& mine = out[static_cast<std::size_t>(thread_id())];
      auto& mine_woke = woke[static_cast<std::size_t>(thread_id())];
#pragma omp for schedule(dynamic, 64)
      for (std::int64_t i = 0; i < frontier_size; ++i) {
        const std::int64_t u = frontier[static_cast<std::size_t>(i)];
        const NodeId ug = part.to_global(u);
        for (std::int64_t e = g.offsets[static_cast<std::size_t>(u)]; e < g.offsets[static_cast<std::size_t>(u) + 1]; ++e) {
          const NodeId v = g.neighbours[static_cast<std::size_t>(e)];
          if (part.is_local(v)) {
            if (claim(v - first, ug)) mine_woke.push_back(static_cast<NodeId>(v - first));
          } else {
            mine[static_cast<std::size_t>(part.owner(v))].push_back({v, ug});
          }
        }
      }
    }
    // Pack by destination, then the two blocking all-to-alls (pairs as 2 ints).
    for (int d = 0; d < p; ++d) {
      std::size_t c = 0;
      for (auto& t : out) c += t[static_cast<std::size_t>(d)].size();
      send_counts[static_cast<std::size_t>(d)] = static_cast<int>(2 * c);
    }
    std::exclusive_scan(send_counts.begin(), send_counts.end(), send_displs.begin(), 0);
    send.resize(static_cast<std::size_t>(send_displs.back() + send_counts.back()) / 2);
    for (int d = 0; d < p; ++d) {
      auto at = send.begin() + send_displs[static_cast<std::size_t>(d)] / 2;
      for (auto& t : out) {
        at = std::copy(t[static_cast<std::size_t>(d)].begin(), t[static_cast<std::size_t>(d)].end(), at);
        t[static_cast<std::size_t>(d)].clear();
      }
    }
    stats.bytes_sent = send.size() * sizeof(Claim);
    stats.messages_sent = static_cast<std::uint64_t>(p - 1);
    check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, g.comm), "MPI_Alltoall");
    std::exclusive_scan(recv_counts.begin(), recv_counts.end(), recv_displs.begin(), 0);
    received.resize(static_cast<std::size_t>(recv_displs.back() + recv_counts.back()) / 2);
    check(MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_INT, received.data(),
                        recv_counts.data(), recv_displs.data(), MPI_INT, g.comm),
          "MPI_Alltoallv");
    const auto received_size = static_cast<std::int64_t>(received.size());
#pragma omp parallel
    {
      auto& mine_woke = woke[static_cast<std::size_t>(thread_id())];
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < received_size; ++i) {
        const Claim c = received[static_cast<std::size_t>(i)];
        if (claim(c.vertex - first, c.parent)) mine_woke.push_back(static_cast<NodeId>(c.vertex - first));
      }
    }
    next.clear();
    for (auto& w : woke) {
      next.insert(next.end(), w.begin(), w.end());
      w.clear();
    }
    frontier.swap(next);
    std::int64_t size = static_cast<std::int64_t>(frontier.size());
    check(MPI_Allreduce(&size, &global_frontier, 1, MPI_INT64_T, MPI_SUM, g.comm), "MPI_Allreduce");
  }
  return result;
}

}  // namespace weft::mpi::graph500
