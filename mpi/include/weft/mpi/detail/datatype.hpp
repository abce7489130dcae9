#pragma once
// How a C++ element type travels through MPI (internal). Arithmetic types use
// MPI's own datatype (reductions need it); any other trivially copyable T
// travels as sizeof(T) MPI_BYTEs per element.

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace weft::mpi::detail {

template <class T>
constexpr MPI_Datatype builtin_datatype() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, char>) return MPI_CHAR;
  else if constexpr (std::is_same_v<U, signed char>) return MPI_SIGNED_CHAR;
  else if constexpr (std::is_same_v<U, unsigned char>) return MPI_UNSIGNED_CHAR;
  else if constexpr (std::is_same_v<U, short>) return MPI_SHORT;
  else if constexpr (std::is_same_v<U, unsigned short>) return MPI_UNSIGNED_SHORT;
  else if constexpr (std::is_same_v<U, int>) return MPI_INT;
  else if constexpr (std::is_same_v<U, unsigned>) return MPI_UNSIGNED;
  else if constexpr (std::is_same_v<U, long>) return MPI_LONG;
  else if constexpr (std::is_same_v<U, unsigned long>) return MPI_UNSIGNED_LONG;
  else if constexpr (std::is_same_v<U, long long>) return MPI_LONG_LONG;
  else if constexpr (std::is_same_v<U, unsigned long long>) return MPI_UNSIGNED_LONG_LONG;
  else if constexpr (std::is_same_v<U, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<U, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<U, long double>) return MPI_LONG_DOUBLE;
  else return MPI_DATATYPE_NULL;
}

template <class T>
constexpr bool has_builtin_datatype = std::is_arithmetic_v<T> && !std::is_same_v<std::remove_cv_t<T>, bool>;

// The datatype and the number of its units per element of T.
struct ElementType {
  MPI_Datatype type;
  int units;
};

template <class T>
ElementType element_type() {
  static_assert(std::is_trivially_copyable_v<T>, "weft::mpi sends trivially copyable types only");
  if constexpr (has_builtin_datatype<T>) {
    return {builtin_datatype<T>(), 1};
  } else {
    return {MPI_BYTE, static_cast<int>(sizeof(T))};
  }
}

// `elements` of an element type as an MPI count (an int); a message too large
// for one is a clear error, not a wrapped count.
inline int to_count(std::size_t elements, ElementType t, const char* call) {
  if (elements > static_cast<std::size_t>(INT_MAX) / static_cast<std::size_t>(t.units)) {
    throw std::invalid_argument(std::string("weft::mpi::") + call + ": " + std::to_string(elements) +
                                " elements exceed MPI's int count");
  }
  return static_cast<int>(elements) * t.units;
}

}  // namespace weft::mpi::detail
