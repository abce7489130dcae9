#pragma once
// Typed non-blocking point-to-point calls: the spans' elements travel as
// MPI's datatype for arithmetic T, as bytes for other trivially copyable T.
// The span must stay alive until the request completes (Request::wait).

#include <span>

#include "weft/mpi/detail/datatype.hpp"
#include "weft/mpi/detail/post.hpp"

namespace weft::mpi {

// MPI_Isend of `data` to rank `dest` with `tag`.
template <class T>
Request isend(std::span<const T> data, int dest, int tag, MPI_Comm comm = MPI_COMM_WORLD) {
  const detail::ElementType t = detail::element_type<T>();
  const int count = detail::to_count(data.size(), t, "isend");
  auto op = std::make_unique<detail::Operation>();
  return detail::post(std::move(op), "MPI_Isend", [&](MPI_Request* h) {
    return MPI_Isend(data.data(), count, t.type, dest, tag, comm, h);
  });
}
template <class T>
Request isend(std::span<T> data, int dest, int tag, MPI_Comm comm = MPI_COMM_WORLD) {
  return isend(std::span<const T>(data), dest, tag, comm);
}

// MPI_Irecv into `data` (at most data.size() elements; a longer message is an
// MPI_ERR_TRUNCATE error at wait) from `source` (or MPI_ANY_SOURCE) with `tag`
// (or MPI_ANY_TAG). Status::count says how many elements arrived.
template <class T>
Request irecv(std::span<T> data, int source, int tag, MPI_Comm comm = MPI_COMM_WORLD) {
  static_assert(!std::is_const_v<T>, "irecv writes into its span");
  const detail::ElementType t = detail::element_type<T>();
  const int count = detail::to_count(data.size(), t, "irecv");
  auto op = std::make_unique<detail::Operation>();
  op->type = t.type;
  op->units_per_element = t.units;
  return detail::post(std::move(op), "MPI_Irecv", [&](MPI_Request* h) {
    return MPI_Irecv(data.data(), count, t.type, source, tag, comm, h);
  });
}

}  // namespace weft::mpi
