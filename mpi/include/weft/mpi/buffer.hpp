#pragma once
// What weft::mpi's calls take as a message buffer: any contiguous, sized
// range that outlives the call's request: a std::vector or std::array (as an
// lvalue), a std::span, a C array. A temporary container is refused at
// compile time (std::ranges::borrowed_range), since the request would read
// or write it after it is gone. A buffer a call writes into must not be const.

#include <cstddef>
#include <ranges>
#include <span>
#include <type_traits>

namespace weft::mpi {

template <class R>
concept Buffer = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> && std::ranges::borrowed_range<R>;

template <class R>
concept WritableBuffer = Buffer<R> && !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

// A buffer's element type, without const.
template <Buffer R>
using buffer_element_t = std::ranges::range_value_t<R>;

namespace detail {
template <Buffer R>
std::span<const buffer_element_t<R>> read_span(R&& r) {
  return {std::ranges::data(r), static_cast<std::size_t>(std::ranges::size(r))};
}
template <WritableBuffer R>
std::span<buffer_element_t<R>> write_span(R&& r) {
  return {std::ranges::data(r), static_cast<std::size_t>(std::ranges::size(r))};
}
}  // namespace detail

}  // namespace weft::mpi
