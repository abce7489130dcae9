#pragma once
// Typed non-blocking point-to-point calls on any Buffer (buffer.hpp: a
// vector, array, span, C array): its elements travel as MPI's datatype for
// arithmetic types, as bytes for other trivially copyable types. The buffer
// must stay alive until the request completes (Request::wait).

#include "weft/mpi/buffer.hpp"
#include "weft/mpi/detail/datatype.hpp"
#include "weft/mpi/detail/post.hpp"

namespace weft::mpi {

// MPI_Isend of `data` to rank `dest` with `tag`.
template <Buffer R>
Request isend(R&& data, int dest, int tag, MPI_Comm comm = MPI_COMM_WORLD) {
  const auto buf = detail::read_span(data);
  const detail::ElementType t = detail::element_type<buffer_element_t<R>>();
  const int count = detail::to_count(buf.size(), t, "isend");
  auto op = std::make_unique<detail::Operation>();
  return detail::post(std::move(op), "MPI_Isend", [&](MPI_Request* h) {
    return MPI_Isend(buf.data(), count, t.type, dest, tag, comm, h);
  });
}

// MPI_Irecv into `data` (at most data.size() elements; a longer message is an
// MPI_ERR_TRUNCATE error at wait) from `source` (or MPI_ANY_SOURCE) with `tag`
// (or MPI_ANY_TAG). Status::count says how many elements arrived.
template <WritableBuffer R>
Request irecv(R&& data, int source, int tag, MPI_Comm comm = MPI_COMM_WORLD) {
  const auto buf = detail::write_span(data);
  const detail::ElementType t = detail::element_type<buffer_element_t<R>>();
  const int count = detail::to_count(buf.size(), t, "irecv");
  auto op = std::make_unique<detail::Operation>();
  op->type = t.type;
  op->units_per_element = t.units;
  return detail::post(std::move(op), "MPI_Irecv", [&](MPI_Request* h) {
    return MPI_Irecv(buf.data(), count, t.type, source, tag, comm, h);
  });
}

}  // namespace weft::mpi
