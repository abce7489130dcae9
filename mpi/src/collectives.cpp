#include "weft/mpi/collectives.hpp"

namespace weft::mpi {

namespace detail {

void throw_bad_argument(const char* call, const std::string& problem) {
  throw std::invalid_argument(std::string("weft::mpi::") + call + ": " + problem);
}

std::vector<int> alltoallv_arguments(std::span<const int> send_counts, std::span<const int> send_displs,
                                     std::size_t send_size, std::span<const int> recv_counts,
                                     std::span<const int> recv_displs, std::size_t recv_size, int ranks,
                                     int units) {
  const auto n = static_cast<std::size_t>(ranks);
  const std::span<const int> lists[4] = {send_counts, send_displs, recv_counts, recv_displs};
  const char* names[4] = {"send_counts", "send_displs", "recv_counts", "recv_displs"};
  for (int k = 0; k < 4; ++k) {
    if (lists[k].size() != n) {
      throw_bad_argument("ialltoallv", std::string(names[k]) + " has " + std::to_string(lists[k].size()) +
                                           " entries for a communicator of " + std::to_string(n) + " ranks");
    }
  }
  std::vector<int> scaled;
  scaled.reserve(4 * n);
  for (int side = 0; side < 2; ++side) {  // send, then receive
    const std::span<const int> counts = lists[2 * side];
    const std::span<const int> displs = lists[2 * side + 1];
    const std::size_t buffer = side == 0 ? send_size : recv_size;
    for (std::size_t r = 0; r < n; ++r) {
      if (counts[r] < 0 || displs[r] < 0 ||
          static_cast<std::size_t>(counts[r]) + static_cast<std::size_t>(displs[r]) > buffer) {
        throw_bad_argument("ialltoallv", std::string(names[2 * side]) + "[" + std::to_string(r) + "] = " +
                                             std::to_string(counts[r]) + " at " + names[2 * side + 1] + "[" +
                                             std::to_string(r) + "] = " + std::to_string(displs[r]) +
                                             " does not fit a buffer of " + std::to_string(buffer) + " elements");
      }
    }
    const ElementType t{MPI_BYTE, units};
    for (std::size_t r = 0; r < n; ++r) scaled.push_back(to_count(static_cast<std::size_t>(counts[r]), t, "ialltoallv"));
    for (std::size_t r = 0; r < n; ++r) scaled.push_back(to_count(static_cast<std::size_t>(displs[r]), t, "ialltoallv"));
  }
  return scaled;
}

}  // namespace detail

Request ibarrier(MPI_Comm comm) {
  return detail::post(std::make_unique<detail::Operation>(), "MPI_Ibarrier",
                      [&](MPI_Request* h) { return MPI_Ibarrier(comm, h); });
}

}  // namespace weft::mpi
