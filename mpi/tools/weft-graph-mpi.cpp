// weft-graph-mpi: the Graph500 BFS benchmark across MPI ranks, on weft
// (weft::mpi::graph500) or on the MPI+OpenMP baseline.
//
//   mpirun -np 2 weft-graph-mpi bfs -g 20 -k 16            # 64 searches, validated
//   mpirun -np 4 weft-graph-mpi bfs -g 16 -n 8 -v          # and each level's traffic
//   mpirun -np 2 weft-graph-mpi bfs -g 20 --impl mpi-omp   # the baseline
//
// Builds the Kronecker graph (scale, edgefactor), picks the search keys, runs
// and validates one BFS per key (the specification's five checks), and
// prints the specification's output (rank 0). Exits 1 if a validation
// failed, 2 on bad arguments (before anything is allocated, on every rank).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "bfs_mpi_omp.hpp"
#include "weft/mpi.hpp"
#include "weft/mpi/graph500/bfs.hpp"
#include "weft/mpi/graph500/validation.hpp"
#include "weft/runtime.hpp"

namespace {

namespace g500 = weft::mpi::graph500;

constexpr const char* kUsage =
    "usage: mpirun -np N weft-graph-mpi bfs -g SCALE [-k EDGEFACTOR] [-n KEYS] [-v] [--impl weft|mpi-omp]\n"
    "                                      [--direction optimizing|top-down|bottom-up] [--workers W] [--seed S]\n"
    "  -g SCALE       2^SCALE vertices (1..30)\n"
    "  -k EDGEFACTOR  EDGEFACTOR * 2^SCALE input edges (default 16)\n"
    "  -n KEYS        searches, from distinct random keys with an edge (default 64)\n"
    "  -v             per level of the first search: direction, frontier, bytes and messages each rank sent\n"
    "  --impl I       weft (default: direction-optimizing, overlapped) or mpi-omp (the MPI+OpenMP baseline)\n"
    "  --direction D  weft only: optimizing (default), top-down or bottom-up only\n"
    "  --workers W    weft workers (and OpenMP threads for mpi-omp) per rank (default: one per CPU)\n"
    "  --seed S       the generator's and the keys' seed\n";

struct Options {
  g500::GraphOptions graph;
  int keys = 64;
  bool verbose = false;
  bool baseline = false;
  weft::graph::BfsDirection direction = weft::graph::BfsDirection::optimizing;
  int workers = 0;
};

long long parse_integer(const std::string& flag, const char* text, long long lo, long long hi) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0)
    throw std::invalid_argument(flag + " needs an integer, got '" + text + "'");
  if (v < lo || v > hi)
    throw std::invalid_argument(flag + " " + text + " is out of range (" + std::to_string(lo) + ".." +
                                std::to_string(hi) + ")");
  return v;
}

Options parse(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) != "bfs")
    throw std::invalid_argument(argc < 2 ? "no kernel given" : "unknown kernel '" + std::string(argv[1]) + "' (only bfs)");
  Options o;
  bool scale_given = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-v") {
      o.verbose = true;
      continue;
    }
    if (a != "-g" && a != "-k" && a != "-n" && a != "--impl" && a != "--direction" && a != "--workers" && a != "--seed")
      throw std::invalid_argument("unknown option " + a);
    if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
    const char* v = argv[++i];
    if (a == "-g") {
      o.graph.scale = static_cast<int>(parse_integer(a, v, 1, 30));
      scale_given = true;
    } else if (a == "-k") {
      o.graph.edgefactor = static_cast<int>(parse_integer(a, v, 1, 1 << 20));
    } else if (a == "-n") {
      o.keys = static_cast<int>(parse_integer(a, v, 1, 1 << 16));
    } else if (a == "--workers") {
      o.workers = static_cast<int>(parse_integer(a, v, 1, 1024));
    } else if (a == "--seed") {
      o.graph.seed = static_cast<std::uint64_t>(parse_integer(a, v, 0, INT64_MAX));
    } else if (a == "--impl") {
      const std::string s = v;
      if (s != "weft" && s != "mpi-omp") throw std::invalid_argument("--impl must be weft or mpi-omp, got '" + s + "'");
      o.baseline = s == "mpi-omp";
    } else {
      const std::string s = v;
      if (s == "optimizing") o.direction = weft::graph::BfsDirection::optimizing;
      else if (s == "top-down") o.direction = weft::graph::BfsDirection::top_down_only;
      else if (s == "bottom-up") o.direction = weft::graph::BfsDirection::bottom_up_only;
      else throw std::invalid_argument("--direction must be optimizing, top-down or bottom-up, got '" + s + "'");
    }
  }
  if (!scale_given) throw std::invalid_argument("-g SCALE is required");
  if (o.baseline && o.direction != weft::graph::BfsDirection::optimizing)
    throw std::invalid_argument("--direction applies to --impl weft only (the baseline is top-down)");
  return o;
}

// The specification's statistics of n samples (as its reference code
// reports them): quartiles between the two middle samples, sample stddev.
struct Stats {
  double min, q1, median, q3, max, mean, stddev;
};

Stats statistics(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  auto quantile = [&](double f) {
    const double t = f * static_cast<double>(n - 1);
    const auto k = static_cast<std::size_t>(t);
    return t == static_cast<double>(k) ? x[k] : (x[k] + x[k + 1]) / 2;
  };
  double sum = 0;
  for (double v : x) sum += v;
  const double mean = sum / static_cast<double>(n);
  double sq = 0;
  for (double v : x) sq += (v - mean) * (v - mean);
  return {x.front(), quantile(.25), quantile(.5), quantile(.75), x.back(), mean,
          n > 1 ? std::sqrt(sq / static_cast<double>(n - 1)) : 0.0};
}

void print_quartiles(const char* name, const Stats& s) {
  std::printf("min_%s: %.6g\nfirstquartile_%s: %.6g\nmedian_%s: %.6g\nthirdquartile_%s: %.6g\nmax_%s: %.6g\n", name,
              s.min, name, s.q1, name, s.median, name, s.q3, name, s.max);
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Every rank's value of x, on every rank.
template <class T>
std::vector<T> from_all(T x) {
  std::vector<T> all(static_cast<std::size_t>(weft::mpi::size()));
  weft::mpi::iallgather(std::span<const T>(&x, 1), std::span<T>(all)).wait();
  return all;
}

void print_levels(const g500::BfsResult& r) {
  const int me = weft::mpi::rank();
  if (me == 0) std::printf("# levels of the first search: bytes (messages) sent by each rank\n");
  for (std::size_t l = 0; l < r.levels.size(); ++l) {
    const auto bytes = from_all<unsigned long long>(r.levels[l].bytes_sent);
    const auto messages = from_all<unsigned long long>(r.levels[l].messages_sent);
    if (me != 0) continue;
    std::printf("level %zu %s frontier %lld:", l, r.levels[l].bottom_up ? "bottom-up" : "top-down",
                static_cast<long long>(r.levels[l].frontier));
    for (std::size_t k = 0; k < bytes.size(); ++k) std::printf(" %llu (%llu)", bytes[k], messages[k]);
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  weft::mpi::Environment env(argc, argv);
  const int me = weft::mpi::rank(), ranks = weft::mpi::size();
  Options opt;
  try {
    opt = parse(argc, argv);
  } catch (const std::invalid_argument& e) {
    if (me == 0) std::fprintf(stderr, "weft-graph-mpi: %s\n%s", e.what(), kUsage);
    return 2;
  }
  weft::Config config;
  config.workers = opt.workers;
  config.pin_workers = ranks == 1;  // ranks on one node share its CPUs
  weft::Runtime rt(config);
  g500::DistributedGraph graph;
  std::vector<g500::NodeId> keys;
  try {
    rt.run([&] {
      g500::check_graph_options(opt.graph);
      graph = g500::build_kronecker_graph(opt.graph);
      keys = g500::pick_search_keys(graph, opt.keys, opt.graph.seed);
    });
  } catch (const std::invalid_argument& e) {  // the same verdict on every rank
    if (me == 0) std::fprintf(stderr, "weft-graph-mpi: %s\n", e.what());
    return 2;
  }
  std::vector<double> times, edges, teps, validate;
  std::string failed;
  g500::BfsOptions bfs_options;
  bfs_options.direction = opt.direction;
  for (std::size_t k = 0; k < keys.size() && failed.empty(); ++k) {
    g500::BfsResult result;
    double seconds = 0;
    if (opt.baseline) {
      // A plain thread, OpenMP inside, blocking MPI calls: weft's workers idle.
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = now();
      result = g500::bfs_mpi_omp(graph, keys[k], opt.workers);
      seconds = now() - start;
    } else {
      rt.run([&] {
        weft::mpi::ibarrier().wait();
        const double start = now();
        result = g500::bfs(graph, keys[k], bfs_options);
        seconds = now() - start;
      });
    }
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);  // the slowest rank's time
    rt.run([&] {
      if (opt.verbose && k == 0) print_levels(result);
      const double start = now();
      const g500::Validation v = g500::validate_bfs(graph, keys[k], result.parent);
      validate.push_back(now() - start);
      if (!v) failed = "search " + std::to_string(k) + " from " + std::to_string(keys[k]) + ": " + v.problem;
      times.push_back(seconds);
      edges.push_back(static_cast<double>(v.edges_traversed));
      teps.push_back(static_cast<double>(v.edges_traversed) / seconds);
    });
  }
  if (!failed.empty()) {
    if (me == 0) std::printf("weft-graph-mpi: validation FAILED: %s\n", failed.c_str());
    return 1;
  }
  if (me != 0) return 0;
  std::printf("SCALE: %d\nedgefactor: %d\nNBFS: %zu\ngraph_generation: %.6g\nnum_mpi_processes: %d\n"
              "implementation: %s\nworkers_per_rank: %d\nconstruction_time: %.6g\n",
              opt.graph.scale, opt.graph.edgefactor, keys.size(), graph.generation_seconds, ranks,
              opt.baseline ? "mpi-omp (MPI+OpenMP baseline, top-down, MPI_Alltoallv per level)"
                           : "weft (direction-optimizing, overlapped)",
              rt.num_workers(), graph.construction_seconds);
  const Stats t = statistics(times);
  std::printf("bfs_min_time: %.6g\nbfs_firstquartile_time: %.6g\nbfs_median_time: %.6g\nbfs_thirdquartile_time: %.6g\n"
              "bfs_max_time: %.6g\nbfs_mean_time: %.6g\nbfs_stddev_time: %.6g\n",
              t.min, t.q1, t.median, t.q3, t.max, t.mean, t.stddev);
  const Stats e = statistics(edges);
  print_quartiles("nedge", e);
  std::printf("mean_nedge: %.6g\nstddev_nedge: %.6g\n", e.mean, e.stddev);
  print_quartiles("TEPS", statistics(teps));
  // The harmonic mean of the rates (the mean time per edge, inverted) and
  // its standard error: sqrt(sum (1/x - 1/H)^2) / (n - 1) * H^2.
  double inv = 0;
  for (double x : teps) inv += 1 / x;
  const double hmean = static_cast<double>(teps.size()) / inv;
  double sq = 0;
  for (double x : teps) sq += (1 / x - 1 / hmean) * (1 / x - 1 / hmean);
  const double hstd = teps.size() > 1 ? std::sqrt(sq) / static_cast<double>(teps.size() - 1) * hmean * hmean : 0.0;
  std::printf("harmonic_mean_TEPS: %.6g\nharmonic_stddev_TEPS: %.6g\n", hmean, hstd);
  const Stats v = statistics(validate);
  print_quartiles("validate", v);
  std::printf("mean_validate: %.6g\nstddev_validate: %.6g\n", v.mean, v.stddev);
  return 0;
}
