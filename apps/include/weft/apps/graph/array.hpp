#pragma once
// Array<T>: a fixed-size heap array of a trivial type whose elements start
// uninitialised (GAPBS's pvector). Large arrays are fresh, untouched pages, so
// the first loop that writes them decides which NUMA node each page lives on:
// Array(n, value) fills with a static parallel loop, so block k of the array
// is first touched by worker k, the worker that static loops over the same
// indices run on later (docs/graph.md, "Memory").

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

#include "weft/apps/graph/detail/parallel.hpp"

namespace weft::graph {

template <class T>
class Array {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "weft::graph::Array holds trivial types only");

 public:
  Array() = default;
  // n elements, uninitialised.
  explicit Array(std::size_t n) : data_(allocate(n)), size_(n) {}
  // n copies of `value`, written by a static parallel loop (first touch).
  Array(std::size_t n, const T& value) : Array(n) { detail::parallel_fill(data_.get(), n, value); }

  Array(Array&& other) noexcept : data_(std::move(other.data_)), size_(std::exchange(other.size_, 0)) {}
  Array& operator=(Array&& other) noexcept {
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T* data() noexcept { return data_.get(); }
  const T* data() const noexcept { return data_.get(); }
  T* begin() noexcept { return data_.get(); }
  T* end() noexcept { return data_.get() + size_; }
  const T* begin() const noexcept { return data_.get(); }
  const T* end() const noexcept { return data_.get() + size_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  operator std::span<T>() noexcept { return {data_.get(), size_}; }
  operator std::span<const T>() const noexcept { return {data_.get(), size_}; }

  // Sets every element to `value` (a static parallel loop).
  void fill(const T& value) { detail::parallel_fill(data_.get(), size_, value); }
  // Frees the memory now (size 0).
  void release() noexcept { *this = Array(); }
  // A parallel copy.
  Array clone() const {
    Array copy(size_);
    detail::parallel_copy(data_.get(), size_, copy.data());
    return copy;
  }
  std::size_t memory_bytes() const noexcept { return size_ * sizeof(T); }

 private:
  struct Free {
    void operator()(T* p) const noexcept { ::operator delete(p, std::align_val_t{kAlign}); }
  };
  static constexpr std::size_t kAlign = 64;
  static T* allocate(std::size_t n) {
    if (n == 0) return nullptr;
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kAlign}));
  }

  std::unique_ptr<T[], Free> data_;
  std::size_t size_ = 0;
};

// An element-wise comparison (tests).
template <class T>
bool operator==(const Array<T>& a, const Array<T>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace weft::graph
