#pragma once
// weft::parallel_sort and weft::parallel_stable_sort: the thesis's
// topology-aware parallel mergesort (§7.7.2, mctop_sort and mctop_sort_sse)
// on weft's workers.
//
//   std::vector<int> v = ...;
//   weft::parallel_sort(v.begin(), v.end());                        // like std::sort
//   weft::parallel_stable_sort(people.begin(), people.end(),
//                              [](const Person& a, const Person& b) { return a.age < b.age; });
//
// The algorithm: one chunk per worker, each sorted sequentially by its
// worker; then the sorted chunks are merged along the machine's reduction
// tree (§7.5): inside a socket all its workers share each merge (split by
// the merge path, every worker writing a disjoint part of the output),
// across sockets a binary tree rooted at the caller's socket, pairing the
// closest sockets. For 32- and 64-bit integer keys under std::less or
// std::greater, chunks are sorted and merged with a bitonic merge network in
// AVX2 or AVX-512 registers, chosen at run time (scalar code elsewhere).
// detail/sort_plan.hpp and detail/sort_parallel.hpp give the details.
//
// Where it runs: called from a ULT, on that ULT's runtime; from a plain
// thread, on the most recently started live weft::Runtime, or else on the
// process-wide default runtime (weft/apps/default_runtime.hpp).
//
// Serial cutoff: no worker gets a chunk shorter than 4096 elements (8192
// for integer keys sorted by a SIMD kernel), so inputs shorter than twice
// that, 8192 elements (16384 integer keys), sort serially on the calling
// thread without touching a runtime (std::sort, std::stable_sort, or the
// SIMD chunk sort), and e.g. 8192..12287 elements use two workers.
//
// Requirements, as for std::sort: random-access iterators; the element type
// move-constructible and move-assignable; `comp` a strict weak ordering.
// Each worker calls its own copy of `comp`, concurrently with the others.
//
// Memory: one buffer of last - first elements (1x the input) for the
// duration of the call; nothing else grows with the input.
//
// Exceptions: the first exception thrown by `comp` or by an element's move
// reaches the caller; the workers stop at their next merge share. If the
// buffer cannot be allocated, std::bad_alloc leaves the range untouched.
// Otherwise, when the element type's moves are noexcept:
//  * parallel_stable_sort leaves [first, last) a permutation of its
//    elements (in an unspecified order);
//  * parallel_sort gives std::sort's guarantee (the basic one: every
//    element valid, values unspecified), as its chunks are sorted by
//    std::sort; every element that std::sort itself did not lose is in the
//    range.
// With moves that may throw, both give the basic guarantee. In every case
// the buffer's objects are destroyed and its memory freed.
//
// `last` before `first` throws std::invalid_argument.

#include <functional>

#include "weft/apps/detail/sort_parallel.hpp"

namespace weft {

// Sorts [first, last) by `comp` (not stable), in parallel.
template <std::random_access_iterator RandomIt, class Compare = std::less<>>
void parallel_sort(RandomIt first, RandomIt last, Compare comp = {}) {
  detail::sort_entry(first, last, std::move(comp), false, "weft::parallel_sort");
}

// Sorts [first, last) by `comp`, keeping equal elements in their order, in
// parallel. For integer keys under std::less / std::greater (where equal
// elements cannot be told apart) this is parallel_sort.
template <std::random_access_iterator RandomIt, class Compare = std::less<>>
void parallel_stable_sort(RandomIt first, RandomIt last, Compare comp = {}) {
  detail::sort_entry(first, last, std::move(comp), true, "weft::parallel_stable_sort");
}

}  // namespace weft
