#pragma once
// Relaxed atomic access to plain array elements (internal). The kernels share
// plain arrays (parents, distances, labels) between workers the way GAPBS
// does, but every concurrent access goes through std::atomic_ref, so the code
// is race-free (ThreadSanitizer-clean) and a relaxed load or store is still
// one plain instruction on x86. Ordering between phases comes from the
// parallel layer's joins and barriers, not from these.

#include <atomic>

namespace weft::graph::detail {

template <class T>
inline T load(const T& x) noexcept {
  return std::atomic_ref<T>(const_cast<T&>(x)).load(std::memory_order_relaxed);
}

template <class T>
inline void store(T& x, T value) noexcept {
  std::atomic_ref<T>(x).store(value, std::memory_order_relaxed);
}

// Compare-and-swap: true if x was `expected` and is now `desired`.
template <class T>
inline bool compare_and_swap(T& x, T expected, T desired) noexcept {
  return std::atomic_ref<T>(x).compare_exchange_strong(expected, desired, std::memory_order_relaxed);
}

template <class T>
inline T fetch_add(T& x, T delta) noexcept {
  return std::atomic_ref<T>(x).fetch_add(delta, std::memory_order_relaxed);
}

// Lowers x to `value` if it is smaller; returns true if it did.
template <class T>
inline bool fetch_min(T& x, T value) noexcept {
  std::atomic_ref<T> a(x);
  T old = a.load(std::memory_order_relaxed);
  while (value < old)
    if (a.compare_exchange_weak(old, value, std::memory_order_relaxed)) return true;
  return false;
}

}  // namespace weft::graph::detail
