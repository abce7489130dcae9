#pragma once
// Typed non-blocking collectives (MPI-3) on Buffers (buffer.hpp: vectors,
// arrays, spans, C arrays), each completed by the parking Request::wait. As
// with MPI's own, every rank of `comm` must start the same collectives in the
// same order; start them from one ULT per rank (or order them yourself) when
// several ULTs use one communicator. Sizes that do not fit the communicator
// are std::invalid_argument, before any MPI call.

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "weft/mpi/buffer.hpp"
#include "weft/mpi/detail/datatype.hpp"
#include "weft/mpi/detail/post.hpp"
#include "weft/mpi/environment.hpp"

namespace weft::mpi {

namespace detail {
// A collective's send and result buffers as spans, of one element type.
template <class T>
struct SendResult {
  std::span<const T> send;
  std::span<T> result;
};
template <Buffer S, WritableBuffer R>
SendResult<buffer_element_t<R>> send_and_result(S&& send, R&& result) {
  static_assert(std::is_same_v<buffer_element_t<S>, buffer_element_t<R>>,
                "weft::mpi: a collective's send and result buffers hold the same element type");
  return {read_span(send), write_span(result)};
}
[[noreturn]] void throw_bad_argument(const char* call, const std::string& problem);
// Checks ialltoallv's counts and displacements (elements) against the
// communicator's size and the buffer, and returns them scaled to units:
// send counts, send displacements, receive counts, receive displacements.
std::vector<int> alltoallv_arguments(std::span<const int> send_counts, std::span<const int> send_displs,
                                     std::size_t send_size, std::span<const int> recv_counts,
                                     std::span<const int> recv_displs, std::size_t recv_size, int ranks,
                                     int units);
}  // namespace detail

// MPI_Ibarrier.
Request ibarrier(MPI_Comm comm = MPI_COMM_WORLD);

// MPI_Ibcast of `data` from `root` (every rank passes a buffer of the same size).
template <WritableBuffer R>
Request ibcast(R&& buffer, int root, MPI_Comm comm = MPI_COMM_WORLD) {
  const auto data = detail::write_span(buffer);
  const detail::ElementType t = detail::element_type<buffer_element_t<R>>();
  const int count = detail::to_count(data.size(), t, "ibcast");
  return detail::post(std::make_unique<detail::Operation>(), "MPI_Ibcast", [&](MPI_Request* h) {
    return MPI_Ibcast(data.data(), count, t.type, root, comm, h);
  });
}

// MPI_Iallreduce of `send` into `result` (same size) with `op` (MPI_SUM,
// MPI_MAX, ...); arithmetic T only.
template <Buffer S, WritableBuffer R>
Request iallreduce(S&& send_buffer, R&& result_buffer, MPI_Op op, MPI_Comm comm = MPI_COMM_WORLD) {
  using T = buffer_element_t<R>;
  static_assert(detail::has_builtin_datatype<T>, "iallreduce reduces arithmetic types (MPI's own datatypes)");
  const auto [send, result] = detail::send_and_result(send_buffer, result_buffer);
  if (send.size() != result.size()) {
    detail::throw_bad_argument("iallreduce", "send has " + std::to_string(send.size()) + " elements, result " +
                                                 std::to_string(result.size()));
  }
  const detail::ElementType t = detail::element_type<T>();
  const int count = detail::to_count(send.size(), t, "iallreduce");
  return detail::post(std::make_unique<detail::Operation>(), "MPI_Iallreduce", [&](MPI_Request* h) {
    return MPI_Iallreduce(send.data(), result.data(), count, t.type, op, comm, h);
  });
}
// In place: `data` holds this rank's contribution and receives the result.
template <WritableBuffer R>
Request iallreduce(R&& buffer, MPI_Op op, MPI_Comm comm = MPI_COMM_WORLD) {
  using T = buffer_element_t<R>;
  static_assert(detail::has_builtin_datatype<T>, "iallreduce reduces arithmetic types (MPI's own datatypes)");
  const auto data = detail::write_span(buffer);
  const detail::ElementType t = detail::element_type<T>();
  const int count = detail::to_count(data.size(), t, "iallreduce");
  return detail::post(std::make_unique<detail::Operation>(), "MPI_Iallreduce", [&](MPI_Request* h) {
    return MPI_Iallreduce(MPI_IN_PLACE, data.data(), count, t.type, op, comm, h);
  });
}

// MPI_Iallgather: every rank contributes `send` (the same size on all);
// `result` (size(comm) times that) receives rank r's block at r * send.size().
template <Buffer S, WritableBuffer R>
Request iallgather(S&& send_buffer, R&& result_buffer, MPI_Comm comm = MPI_COMM_WORLD) {
  using T = buffer_element_t<R>;
  const auto [send, result] = detail::send_and_result(send_buffer, result_buffer);
  const auto ranks = static_cast<std::size_t>(size(comm));
  if (result.size() != send.size() * ranks) {
    detail::throw_bad_argument("iallgather", "result has " + std::to_string(result.size()) +
                                                 " elements, not send's " + std::to_string(send.size()) + " times " +
                                                 std::to_string(ranks) + " ranks");
  }
  const detail::ElementType t = detail::element_type<T>();
  const int count = detail::to_count(send.size(), t, "iallgather");
  return detail::post(std::make_unique<detail::Operation>(), "MPI_Iallgather", [&](MPI_Request* h) {
    return MPI_Iallgather(send.data(), count, t.type, result.data(), count, t.type, comm, h);
  });
}

// MPI_Ialltoall: `send` holds size(comm) equal blocks, block r for rank r;
// `result` (the same size) receives block s from rank s.
template <Buffer S, WritableBuffer R>
Request ialltoall(S&& send_buffer, R&& result_buffer, MPI_Comm comm = MPI_COMM_WORLD) {
  using T = buffer_element_t<R>;
  const auto [send, result] = detail::send_and_result(send_buffer, result_buffer);
  const auto ranks = static_cast<std::size_t>(size(comm));
  if (send.size() % ranks != 0 || result.size() != send.size()) {
    detail::throw_bad_argument("ialltoall", "send (" + std::to_string(send.size()) + ") and result (" +
                                                std::to_string(result.size()) +
                                                ") must be the same multiple of the communicator's " +
                                                std::to_string(ranks) + " ranks");
  }
  const detail::ElementType t = detail::element_type<T>();
  const int block = detail::to_count(send.size() / ranks, t, "ialltoall");
  return detail::post(std::make_unique<detail::Operation>(), "MPI_Ialltoall", [&](MPI_Request* h) {
    return MPI_Ialltoall(send.data(), block, t.type, result.data(), block, t.type, comm, h);
  });
}

// MPI_Ialltoallv: to rank r go send_counts[r] elements of `send` from
// send_displs[r]; from rank s come recv_counts[s] elements into `result` at
// recv_displs[s]. Counts and displacements are in elements, one per rank;
// the request keeps its own copy of them.
template <Buffer S, WritableBuffer R>
Request ialltoallv(S&& send_buffer, std::span<const int> send_counts, std::span<const int> send_displs,
                   R&& result_buffer, std::span<const int> recv_counts, std::span<const int> recv_displs,
                   MPI_Comm comm = MPI_COMM_WORLD) {
  using T = buffer_element_t<R>;
  const auto [send, result] = detail::send_and_result(send_buffer, result_buffer);
  const detail::ElementType t = detail::element_type<T>();
  auto op = std::make_unique<detail::Operation>();
  op->arguments = detail::alltoallv_arguments(send_counts, send_displs, send.size(), recv_counts, recv_displs,
                                              result.size(), size(comm), t.units);
  const int* a = op->arguments.data();
  const std::size_t n = send_counts.size();
  return detail::post(std::move(op), "MPI_Ialltoallv", [&](MPI_Request* h) {
    return MPI_Ialltoallv(send.data(), a, a + n, t.type, result.data(), a + 2 * n, a + 3 * n, t.type, comm, h);
  });
}

}  // namespace weft::mpi
