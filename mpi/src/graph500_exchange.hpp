#pragma once
// Bucketed all-to-all exchange for the Graph500 code (internal): elements
// grouped by destination rank go to their ranks through one ialltoall of the
// counts and one ialltoallv of the elements, both parking waits.

#include <mpi.h>

#include <array>
#include <numeric>
#include <span>
#include <vector>

#include "weft/mpi/collectives.hpp"

namespace weft::mpi::graph500::detail {

// `send` holds counts[0] elements for rank 0, then counts[1] for rank 1, ...;
// returns what all ranks sent to this one, in rank order.
template <class T>
std::vector<T> exchange(std::span<const T> send, const std::vector<int>& counts, MPI_Comm comm) {
  const std::size_t p = counts.size();
  std::vector<int> displs(p), recv_counts(p), recv_displs(p);
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  ialltoall(std::span<const int>(counts), std::span<int>(recv_counts), comm).wait();
  std::exclusive_scan(recv_counts.begin(), recv_counts.end(), recv_displs.begin(), 0);
  std::vector<T> received(static_cast<std::size_t>(recv_displs.back()) + static_cast<std::size_t>(recv_counts.back()));
  ialltoallv(send, std::span<const int>(counts), std::span<const int>(displs), std::span<T>(received),
             std::span<const int>(recv_counts), std::span<const int>(recv_displs), comm)
      .wait();
  return received;
}

// Groups `items` by destination(item) (a rank) and exchanges them.
template <class T, class Destination>
std::vector<T> exchange_by(const std::vector<T>& items, int ranks, Destination&& destination, MPI_Comm comm) {
  std::vector<int> counts(static_cast<std::size_t>(ranks), 0);
  for (const T& x : items) ++counts[static_cast<std::size_t>(destination(x))];
  std::vector<int> cursor(counts.size());
  std::exclusive_scan(counts.begin(), counts.end(), cursor.begin(), 0);
  std::vector<T> send(items.size());
  for (const T& x : items) send[static_cast<std::size_t>(cursor[static_cast<std::size_t>(destination(x))]++)] = x;
  return exchange(std::span<const T>(send), counts, comm);
}

// The sum (or max, ...) over ranks of each of `values`.
template <class T, std::size_t N>
std::array<T, N> all_reduce(std::array<T, N> values, MPI_Op op, MPI_Comm comm) {
  iallreduce(std::span<T>(values), op, comm).wait();
  return values;
}

}  // namespace weft::mpi::graph500::detail
