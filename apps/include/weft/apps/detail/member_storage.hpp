#pragma once
// Per-member storage of a parallel construct (internal): a fixed-size array
// that lives inside the construct's frame when it is small (no allocation for
// the usual member counts) and on the heap otherwise, and a cache-line
// padded cell, so that members writing their own state do not invalidate
// each other's lines.

#include <cstddef>
#include <memory>
#include <new>

#include "weft/sched/cpu.hpp"

namespace weft::detail {

inline constexpr std::size_t kCacheLine = sched::cache_line_size;

template <class T>
struct alignas(kCacheLine) Padded {
  T value{};
};

// n value-initialized elements; inline when n <= N.
template <class T, std::size_t N>
class MemberArray {
 public:
  explicit MemberArray(std::size_t n) : size_(n) {
    data_ = n <= N ? reinterpret_cast<T*>(inline_)
                   : static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{alignof(T)}));
    std::uninitialized_value_construct_n(data_, n);
  }
  ~MemberArray() {
    std::destroy_n(data_, size_);
    if (size_ > N) ::operator delete(data_, std::align_val_t{alignof(T)});
  }
  MemberArray(const MemberArray&) = delete;
  MemberArray& operator=(const MemberArray&) = delete;

  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

 private:
  std::size_t size_;
  T* data_;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace weft::detail
