#pragma once
// Element-level steps of parallel_sort for any element type and comparator:
// the merge-path split that lets several workers share one merge, a stable
// merge by move-assignment that undoes itself when the comparator throws,
// and the stable chunk sort (a bottom-up mergesort that uses the sort's one
// buffer, so that parallel_stable_sort needs no memory beyond it).
//
// "Undoes itself": for element types whose moves cannot throw, after an
// exception every element consumed so far is back in one of the source
// slots it came from (not in its old order), so the two buffers still hold
// each element exactly once. For other types the guarantee is the basic one.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <type_traits>
#include <utility>

namespace weft::detail::sort_merge {

// True when moving a T cannot throw: the sort can then always put every
// element back after an exception.
template <class T>
inline constexpr bool kNothrowMovable = std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T>;

// Small trivially copyable elements merge branch-free (a conditional move
// per element instead of a mispredicted branch).
template <class T>
inline constexpr bool kBranchFreeMerge = std::is_trivially_copyable_v<T> && sizeof(T) <= 16;

// The merge path (Odeh et al.; Green et al.'s co-rank): how many of the first
// k elements of the stable merge of x[0, nx) and y[0, ny) come from x. Ties
// go to x, as in merge_move. O(log min(nx, ny)) comparisons.
template <class It, class Comp>
std::size_t split(It x, std::size_t nx, It y, std::size_t ny, std::size_t k, Comp& comp) {
  std::size_t lo = k > ny ? k - ny : 0;
  std::size_t hi = std::min(k, nx);
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    // x[mid] is among the first k iff it goes before y[k - mid - 1].
    if (comp(y[k - mid - 1], x[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// Merges x[0, nx) and y[0, ny) into out[0, nx + ny) by move-assignment
// (out must hold live objects). Stable: of equal elements, x's come first.
// If comp throws, the elements written so far are moved back into the
// source slots consumed (x's first, then y's) before the exception leaves
// (when kNothrowMovable).
template <class Src, class Dst, class Comp>
void merge_move(Src x, std::size_t nx, Src y, std::size_t ny, Dst out, Comp& comp) {
  using T = std::iter_value_t<Src>;
  std::size_t i = 0, j = 0;
  try {
    if constexpr (kBranchFreeMerge<T>) {
      while (i < nx && j < ny) {
        const bool take_y = comp(y[j], x[i]);
        out[i + j] = take_y ? y[j] : x[i];
        j += take_y;
        i += !take_y;
      }
    } else {
      while (i < nx && j < ny) {
        if (comp(y[j], x[i])) {
          out[i + j] = std::move(y[j]);
          ++j;
        } else {
          out[i + j] = std::move(x[i]);
          ++i;
        }
      }
    }
  } catch (...) {
    if constexpr (kNothrowMovable<T>) {
      std::move(out, out + i, x);
      std::move(out + i, out + i + j, y);
    }
    throw;
  }
  std::move(x + i, x + nx, out + i + j);
  std::move(y + j, y + ny, out + nx + j);
}

// Whether a range is already in order: non-decreasing, or strictly
// decreasing (reversing it then sorts it, stably, as no two are equal), or
// neither. Stops at the first element that says "neither", so a random range
// costs a few comparisons.
enum class Presorted { No, Ascending, Descending };
template <class It, class Comp>
Presorted presorted(It a, std::size_t n, Comp& comp) {
  if (n < 2) return Presorted::Ascending;
  if (!comp(a[1], a[0])) return std::is_sorted(a, a + n, std::ref(comp)) ? Presorted::Ascending : Presorted::No;
  for (std::size_t i = 2; i < n; ++i)
    if (!comp(a[i], a[i - 1])) return Presorted::No;
  return Presorted::Descending;
}

// Stable binary insertion sort. The comparator runs only before an element
// is taken out, so a throwing comparator leaves the range a permutation.
template <class It, class Comp>
void insertion_sort(It first, It last, Comp& comp) {
  if (first == last) return;
  for (It i = std::next(first); i != last; ++i) {
    const It pos = std::upper_bound(first, i, *i, std::ref(comp));
    if (pos == i) continue;
    std::iter_value_t<It> held = std::move(*i);
    std::move_backward(pos, i, std::next(i));
    *pos = std::move(held);
  }
}

// One pass of the chunk mergesort: runs of `run` elements of src merged in
// pairs into dst (a last unpaired run moved over). If comp throws, the
// merges done in this pass are moved back, so all of [0, n) is in src.
template <class Src, class Dst, class Comp>
void merge_pass(Src src, Dst dst, std::size_t n, std::size_t run, Comp& comp) {
  std::size_t s = 0;
  try {
    for (; s < n; s += 2 * run) {
      const std::size_t mid = std::min(s + run, n), end = std::min(s + 2 * run, n);
      if (mid == end)
        std::move(src + s, src + end, dst + s);
      else
        merge_move(src + s, mid - s, src + mid, end - mid, dst + s, comp);
    }
  } catch (...) {
    if constexpr (kNothrowMovable<std::iter_value_t<Src>>) std::move(dst, dst + s, src);
    throw;
  }
}

// Stable sort of a[0, n), with b[0, n) (live objects) as the other buffer
// of a bottom-up mergesort: runs of kRun by insertion sort, then merge
// passes, started in the buffer from which the passes end in b when
// `result_in_b`, else in a. `data_in_b` always says where the elements are,
// so that after an exception the caller can gather them.
template <class A, class B, class Comp>
void stable_sort_chunk(A a, B b, std::size_t n, bool result_in_b, Comp& comp, bool& data_in_b) {
  constexpr std::size_t kRun = 16;
  int passes = 0;
  while ((kRun << passes) < n) ++passes;
  data_in_b = (passes % 2 == 0) ? result_in_b : !result_in_b;
  if (data_in_b) std::move(a, a + n, b);
  for (std::size_t s = 0; s < n; s += kRun) {
    const std::size_t e = std::min(s + kRun, n);
    if (data_in_b)
      insertion_sort(b + s, b + e, comp);
    else
      insertion_sort(a + s, a + e, comp);
  }
  for (std::size_t run = kRun; run < n; run *= 2) {
    if (data_in_b)
      merge_pass(b, a, n, run, comp);
    else
      merge_pass(a, b, n, run, comp);
    data_in_b = !data_in_b;
  }
}

// Constructs b[0, n) from a[0, n) without changing a: a[0] is moved along
// the chain b[0], b[1], ..., b[n-1] and back, so that b holds moved-from
// objects (live, as merges by move-assignment need). On an exception (only
// from a throwing move constructor) nothing is left constructed.
template <class A, class T>
void construct_by_rotation(A a, T* b, std::size_t n) {
  if (n == 0) return;
  std::size_t built = 0;
  try {
    ::new (static_cast<void*>(b)) T(std::move(a[0]));
    for (built = 1; built < n; ++built) ::new (static_cast<void*>(b + built)) T(std::move(b[built - 1]));
    a[0] = std::move(b[n - 1]);
  } catch (...) {
    if (built > 0) {
      try {
        a[0] = std::move(b[built - 1]);
      } catch (...) {
        // Basic guarantee only: a[0] keeps a valid, unspecified value.
      }
    }
    std::destroy(b, b + built);
    throw;
  }
}

}  // namespace weft::detail::sort_merge
