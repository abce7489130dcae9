// Parallel Sorting by Regular Sampling (Shi & Schaeffer 1992), on weft::mpi's
// parking non-blocking collectives and weft::parallel_sort.
#include "weft/mpi/sample_sort.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <span>
#include <string>

#include "weft/apps/sort.hpp"
#include "weft/mpi/collectives.hpp"
#include "weft/mpi/environment.hpp"

namespace weft::mpi {

namespace {

// Every rank's `mine` (the same length on all), rank r's at [r * n, (r+1) * n):
// an allgather through ialltoall, each rank sending `mine` to every rank.
template <class T>
std::vector<T> gather_to_all(const std::vector<T>& mine, int ranks, MPI_Comm comm) {
  std::vector<T> send;
  send.reserve(mine.size() * static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) send.insert(send.end(), mine.begin(), mine.end());
  std::vector<T> all(send.size());
  ialltoall(std::span<const T>(send), std::span<T>(all), comm).wait();
  return all;
}

// Merges the sorted runs [bounds[i], bounds[i+1]) of `v` pairwise, log2(runs) rounds.
void merge_runs(std::vector<std::uint64_t>& v, std::vector<std::size_t> bounds) {
  while (bounds.size() > 2) {
    std::vector<std::size_t> next{bounds.front()};
    for (std::size_t i = 0; i + 2 < bounds.size(); i += 2) {
      std::inplace_merge(v.begin() + bounds[i], v.begin() + bounds[i + 1], v.begin() + bounds[i + 2]);
      next.push_back(bounds[i + 2]);
    }
    if (bounds.size() % 2 == 0) next.push_back(bounds.back());  // an odd run out: carried to the next round
    bounds = std::move(next);
  }
}

// Two different 64-bit mixers (splitmix64's finalizer with two constants).
std::uint64_t mix(std::uint64_t x, std::uint64_t k) {
  x += k;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Count and two order-independent hash sums of a multiset, summed over ranks.
std::array<std::uint64_t, 3> multiset_digest(const std::vector<std::uint64_t>& keys, MPI_Comm comm) {
  std::array<std::uint64_t, 3> d{keys.size(), 0, 0};
  for (std::uint64_t k : keys) {
    d[1] += mix(k, 0x9e3779b97f4a7c15ULL);
    d[2] += mix(k, 0x2545f4914f6cdd1dULL);
  }
  iallreduce(std::span<std::uint64_t>(d), MPI_SUM, comm).wait();  // unsigned: sums wrap mod 2^64 alike
  return d;
}

}  // namespace

std::vector<std::uint64_t> sample_sort(std::vector<std::uint64_t> keys, MPI_Comm comm, SampleSortStats* stats) {
  const int p = size(comm);
  const auto pz = static_cast<std::size_t>(p);
  // Phase 1: local sort, then p regular samples at positions i*n/p (§2).
  weft::parallel_sort(keys.begin(), keys.end());
  std::vector<std::uint64_t> samples(pz, UINT64_MAX);  // a rank without keys samples +inf (balance only)
  for (std::size_t i = 0; i < pz && !keys.empty(); ++i) samples[i] = keys[i * keys.size() / pz];
  // Phase 2: all p^2 samples on every rank, sorted; pivots at i*p + p/2,
  // i = 1..p-1 (the paper gathers to one processor and broadcasts; every
  // rank computing the same pivots from the same samples is equivalent).
  std::vector<std::uint64_t> all_samples = gather_to_all(samples, p, comm);
  std::sort(all_samples.begin(), all_samples.end());
  std::vector<std::uint64_t> pivots;
  for (std::size_t i = 1; i < pz; ++i) pivots.push_back(all_samples[i * pz + pz / 2]);
  // Phase 3: partition by the pivots (keys <= pivot i go to rank i), exchange.
  std::vector<int> send_counts(pz), send_displs(pz), recv_counts(pz), recv_displs(pz);
  std::size_t begin = 0;
  for (std::size_t r = 0; r < pz; ++r) {
    const std::size_t end =
        r + 1 < pz ? std::upper_bound(keys.begin() + begin, keys.end(), pivots[r]) - keys.begin() : keys.size();
    send_displs[r] = static_cast<int>(begin);
    send_counts[r] = static_cast<int>(end - begin);
    begin = end;
  }
  ialltoall(std::span<const int>(send_counts), std::span<int>(recv_counts), comm).wait();
  std::exclusive_scan(recv_counts.begin(), recv_counts.end(), recv_displs.begin(), 0);
  std::vector<std::uint64_t> mine(static_cast<std::size_t>(recv_displs.back()) +
                                  static_cast<std::size_t>(recv_counts.back()));
  ialltoallv(std::span<const std::uint64_t>(keys), std::span<const int>(send_counts),
             std::span<const int>(send_displs), std::span<std::uint64_t>(mine), std::span<const int>(recv_counts),
             std::span<const int>(recv_displs), comm)
      .wait();
  // Phase 4: merge the p sorted runs received.
  std::vector<std::size_t> bounds(recv_displs.begin(), recv_displs.end());
  bounds.push_back(mine.size());
  merge_runs(mine, std::move(bounds));
  if (stats != nullptr) {
    std::array<std::uint64_t, 2> s{mine.size(), mine.size()};
    iallreduce(std::span<const std::uint64_t>(s.data(), 1), std::span<std::uint64_t>(&stats->total_keys, 1),
               MPI_SUM, comm)
        .wait();
    iallreduce(std::span<const std::uint64_t>(s.data() + 1, 1), std::span<std::uint64_t>(&stats->largest_share, 1),
               MPI_MAX, comm)
        .wait();
  }
  return mine;
}

Verification verify_sorted(const std::vector<std::uint64_t>& input, const std::vector<std::uint64_t>& output,
                          MPI_Comm comm) {
  const int p = size(comm);
  // Each rank's {has keys, first, last}, on every rank.
  const std::vector<std::uint64_t> ends{output.empty() ? 0u : 1u, output.empty() ? 0 : output.front(),
                                        output.empty() ? 0 : output.back()};
  const std::vector<std::uint64_t> all = gather_to_all(ends, p, comm);
  long locally_unsorted = std::is_sorted(output.begin(), output.end()) ? 0 : 1;
  iallreduce(std::span<long>(&locally_unsorted, 1), MPI_SUM, comm).wait();
  const auto before = multiset_digest(input, comm);
  const auto after = multiset_digest(output, comm);
  if (locally_unsorted != 0)
    return Verification::fail(std::to_string(locally_unsorted) + " rank(s) hold unsorted keys");
  bool have_prev = false;
  std::uint64_t prev_last = 0;
  for (int r = 0; r < p; ++r) {
    const std::uint64_t* e = &all[3 * static_cast<std::size_t>(r)];
    if (e[0] == 0) continue;
    if (have_prev && prev_last > e[1]) {
      return Verification::fail("rank " + std::to_string(r) + "'s first key " + std::to_string(e[1]) +
                                " is below the previous rank's last " + std::to_string(prev_last));
    }
    have_prev = true;
    prev_last = e[2];
  }
  if (before[0] != after[0]) {
    return Verification::fail("key count changed: " + std::to_string(before[0]) + " before, " +
                              std::to_string(after[0]) + " after");
  }
  if (before[1] != after[1] || before[2] != after[2])
    return Verification::fail("the multiset of keys changed (hash sums differ)");
  return Verification::pass();
}

}  // namespace weft::mpi
