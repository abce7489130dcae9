// weft-sort-mpi: the distributed sample sort (weft::mpi::sample_sort) of
// 64-bit keys, verified.
//
//   mpirun -np 4 weft-sort-mpi -n 1000000     # one million keys per rank
//
// Each rank generates KEYS_PER_RANK keys (--keys: `random`, distinct keys,
// splitmix64 of the global index, a bijection; `blocked`, distinct keys with
// rank r holding the block that belongs on rank p-1-r, so nearly every key
// moves; `few`, 16 distinct values, many equal keys on every rank), sorts all
// ranks' keys together, and checks that the result is globally ordered and
// holds the same multiset of keys, and, for distinct keys, that no rank ended
// with more than 2n/p keys (Shi & Schaeffer's bound). Prints one line (rank
// 0); exits 1 if a check failed, 2 on bad arguments.
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/mpi.hpp"
#include "weft/runtime.hpp"

namespace {

constexpr const char* kUsage =
    "usage: mpirun -np N weft-sort-mpi -n KEYS_PER_RANK [--keys random|blocked|few] [--workers W]\n"
    "  -n KEYS_PER_RANK  keys generated on each rank (1 .. 2^31-1 / N)\n"
    "  --keys KIND       random (default), blocked (every key moves), few (16 values)\n"
    "  --workers W       weft workers per rank (default: one per allowed CPU)\n";

struct Options {
  std::uint64_t keys_per_rank = 0;
  std::string keys = "random";
  int workers = 0;
};

std::uint64_t parse_count(const std::string& flag, const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (text[0] == '-' || end == text || *end != '\0' || errno != 0) {
    throw std::invalid_argument(flag + " needs a non-negative integer, got '" + text + "'");
  }
  return v;
}

Options parse(int argc, char** argv, int ranks) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") throw std::invalid_argument("");
    if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value (or is not an option)");
    if (a == "-n") {
      o.keys_per_rank = parse_count(a, argv[++i]);
    } else if (a == "--keys") {
      o.keys = argv[++i];
      if (o.keys != "random" && o.keys != "blocked" && o.keys != "few") {
        throw std::invalid_argument("--keys must be random, blocked or few, got '" + o.keys + "'");
      }
    } else if (a == "--workers") {
      o.workers = static_cast<int>(parse_count(a, argv[++i]));
    } else {
      throw std::invalid_argument("unknown option " + a);
    }
  }
  if (o.keys_per_rank == 0) throw std::invalid_argument("-n KEYS_PER_RANK is required and must be at least 1");
  // ialltoallv counts and displacements are ints: keep all ranks' keys within int range.
  if (o.keys_per_rank > static_cast<std::uint64_t>(INT32_MAX) / static_cast<std::uint64_t>(ranks)) {
    throw std::invalid_argument("-n " + std::to_string(o.keys_per_rank) + " times " + std::to_string(ranks) +
                                " ranks exceeds MPI's int counts (2^31-1 keys in all)");
  }
  return o;
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

int main(int argc, char** argv) {
  weft::mpi::Environment env(argc, argv);
  const int me = weft::mpi::rank(), ranks = weft::mpi::size();
  Options opt;
  try {
    opt = parse(argc, argv, ranks);
  } catch (const std::invalid_argument& e) {
    if (me == 0) std::fprintf(stderr, "%s%s%s", e.what(), *e.what() ? "\n" : "", kUsage);
    return 2;
  }
  weft::Config config;
  config.workers = opt.workers;
  weft::Runtime rt(config);
  return rt.run([&] {
    const std::uint64_t n = opt.keys_per_rank;
    std::vector<std::uint64_t> keys(n);
    const auto r = static_cast<std::uint64_t>(me), p = static_cast<std::uint64_t>(ranks);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (opt.keys == "random") keys[i] = splitmix64(r * n + i);
      else if (opt.keys == "blocked") keys[i] = (p - 1 - r) * n + (n - 1 - i);
      else keys[i] = splitmix64(r * n + i) % 16;
    }
    weft::mpi::ibarrier().wait();
    const auto start = std::chrono::steady_clock::now();
    weft::mpi::SampleSortStats stats;
    const std::vector<std::uint64_t> sorted = weft::mpi::sample_sort(keys, MPI_COMM_WORLD, &stats);
    weft::mpi::ibarrier().wait();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string problem = weft::mpi::verify_sorted(keys, sorted).problem;
    const double share = double(stats.largest_share) / double(n);  // in units of n/p
    if (problem.empty() && opt.keys != "few" && share > 2.0) {
      problem = "a rank ended with " + std::to_string(stats.largest_share) + " keys, over 2n/p = " +
                std::to_string(2 * n) + " (Shi & Schaeffer's bound)";
    }
    if (me == 0) {
      std::printf("weft-sort-mpi: %d ranks x %llu keys: %.3f s, %.1f Mkeys/s, largest share %.3f n/p, %s\n", ranks,
                  static_cast<unsigned long long>(n), seconds, double(stats.total_keys) / seconds / 1e6, share,
                  problem.empty() ? "verified" : ("FAILED: " + problem).c_str());
    }
    return problem.empty() ? 0 : 1;
  });
}
