#pragma once
// weft::mpi::sample_sort: a distributed sort of 64-bit keys by regular
// sampling (PSRS: Shi & Schaeffer, "Parallel Sorting by Regular Sampling",
// JPDC 14(4), 1992, §2's four phases). Each rank sorts its keys with
// weft::parallel_sort, picks p regular samples, every rank gets all p^2
// samples and takes the same p-1 pivots from them, one ialltoallv sends
// each rank the keys between its pivots, and each rank merges the p sorted
// runs it received. Afterwards the ranks' keys, taken in rank order, are the
// sorted multiset of all ranks' input keys.
//
// Shi & Schaeffer's bound (§3, Theorem 1): with distinct keys and n/p keys
// per rank, no rank ends with more than 2n/p keys; SampleSortStats reports
// the largest share so callers (weft-sort-mpi, its test) can check it.
//
// Collective over `comm`: every rank calls it, from a ULT or a plain thread
// (parallel_sort then uses the most recent live weft::Runtime).

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "weft/apps/verification.hpp"

namespace weft::mpi {

// What sample_sort saw, the same on every rank.
struct SampleSortStats {
  std::uint64_t total_keys = 0;    // over all ranks
  std::uint64_t largest_share = 0; // most keys any rank ends with
};

// Sorts the keys of all ranks of `comm` (see above); returns this rank's
// share of the result. `stats`, if given, receives the totals.
std::vector<std::uint64_t> sample_sort(std::vector<std::uint64_t> keys, MPI_Comm comm = MPI_COMM_WORLD,
                                       SampleSortStats* stats = nullptr);

// Checks a result of sample_sort against its input, collectively: each
// rank's share sorted, shares in rank order (the last key of a rank <= the
// first of the next non-empty one), and the multiset of keys unchanged (the
// same count and the same two order-independent 64-bit hash sums, before and
// after). True when all hold; otherwise `problem` says what failed.
Verification verify_sorted(const std::vector<std::uint64_t>& input, const std::vector<std::uint64_t>& output,
                          MPI_Comm comm = MPI_COMM_WORLD);

}  // namespace weft::mpi
