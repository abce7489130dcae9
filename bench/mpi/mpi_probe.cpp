// weft-mpi-probe: weft::mpi's waits beside plain blocking MPI, between two
// ranks, in the same job (bench/mpi/run.sh runs it under mpirun -np 2).
//
//   pingpong  round trips of one 8-byte message: rank 0 sends, rank 1 echoes.
//             blocking: MPI_Send/MPI_Recv from main(), no weft runtime;
//             weft:     one ULT per rank, isend + irecv + parking waits.
//   rate      one-way messages of 8 bytes from rank 0 to rank 1.
//             blocking: one thread per rank, MPI_Send / MPI_Recv in a loop;
//             weft:     U ULTs per rank, each sending (receiving) its share,
//                       each message waited for by its ULT, so up to U in
//                       flight. All on one tag: a receive takes the next
//                       message whichever ULT sent it (with a tag per ULT,
//                       a sender ULT whose sends complete without parking
//                       sends its whole share before the next one runs, and
//                       every receive then scans a long unexpected-message
//                       queue for its tag: a benchmark of Open MPI's
//                       matching, not of the waits).
//
// Prints one line per row (rank 0): name, median over --reps runs, min, max,
// and weft's ratio to the blocking row. Exits 2 on bad arguments.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/mpi.hpp"
#include "weft/runtime.hpp"

namespace {

struct Options {
  int round_trips = 20000;
  int messages = 200000;
  int ults = 256;
  int workers = 1;
  int reps = 5;
};

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void check(int rc, const char* what) { weft::mpi::check(rc, what); }

double pingpong_blocking(int me, int n) {
  long x = 0;
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  const double t = now();
  for (int i = 0; i < n; ++i) {
    if (me == 0) {
      check(MPI_Send(&x, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD), "MPI_Send");
      check(MPI_Recv(&x, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    } else {
      check(MPI_Recv(&x, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
      ++x;
      check(MPI_Send(&x, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD), "MPI_Send");
    }
  }
  const double seconds = now() - t;
  if (me == 0 && x != n) throw std::runtime_error("pingpong: the echo counted " + std::to_string(x));
  return seconds / n * 1e6;  // us per round trip
}

double pingpong_weft(weft::Runtime& rt, int me, int n) {
  return rt.run([&] {
    long x = 0;
    weft::mpi::ibarrier().wait();
    const double t = now();
    const int peer = 1 - me;
    for (int i = 0; i < n; ++i) {
      if (me == 0) {
        weft::mpi::isend(std::span<const long>(&x, 1), peer, 0).wait();
        weft::mpi::irecv(std::span<long>(&x, 1), peer, 0).wait();
      } else {
        weft::mpi::irecv(std::span<long>(&x, 1), peer, 0).wait();
        ++x;
        weft::mpi::isend(std::span<const long>(&x, 1), peer, 0).wait();
      }
    }
    const double seconds = now() - t;
    if (me == 0 && x != n) throw std::runtime_error("pingpong: the echo counted " + std::to_string(x));
    return seconds / n * 1e6;
  });
}

double rate_blocking(int me, int n) {
  long x = 0, sum = 0;
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  const double t = now();
  for (int i = 0; i < n; ++i) {
    if (me == 0) {
      x = i;
      check(MPI_Send(&x, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD), "MPI_Send");
    } else {
      check(MPI_Recv(&x, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
      sum += x;
    }
  }
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  const double seconds = now() - t;
  if (me == 1 && sum != static_cast<long>(n) * (n - 1) / 2) throw std::runtime_error("rate: wrong payloads");
  return n / seconds;  // messages per second
}

double rate_weft(weft::Runtime& rt, int me, int n, int ults) {
  return rt.run([&] {
    std::vector<long> sums(static_cast<std::size_t>(ults), 0);
    weft::mpi::ibarrier().wait();
    const double t = now();
    std::vector<weft::Ult<void>> workers;
    for (int u = 0; u < ults; ++u) {
      workers.push_back(weft::spawn([&, u] {
        // ULT u sends (receives) messages u, u + ults, ...: its share.
        for (int i = u; i < n; i += ults) {
          long x = i;
          if (me == 0) {
            weft::mpi::isend(std::span<const long>(&x, 1), 1, 0).wait();
          } else {
            weft::mpi::irecv(std::span<long>(&x, 1), 0, 0).wait();
            sums[static_cast<std::size_t>(u)] += x;
          }
        }
      }));
    }
    for (auto& w : workers) w.join();
    weft::mpi::ibarrier().wait();
    const double seconds = now() - t;
    long sum = 0;
    for (long s : sums) sum += s;
    if (me == 1 && sum != static_cast<long>(n) * (n - 1) / 2) throw std::runtime_error("rate: wrong payloads");
    return n / seconds;
  });
}

int parse(const char* flag, const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 100000000)
    throw std::invalid_argument(std::string(flag) + " needs a positive integer, got '" + text + "'");
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  weft::mpi::Environment env(argc, argv);
  const int me = weft::mpi::rank();
  Options o;
  try {
    if (weft::mpi::size() != 2) throw std::invalid_argument("run it on exactly 2 ranks (mpirun -np 2)");
    for (int i = 1; i < argc; i += 2) {
      const std::string a = argv[i];
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      if (a == "--round-trips") o.round_trips = parse(argv[i], argv[i + 1]);
      else if (a == "--messages") o.messages = parse(argv[i], argv[i + 1]);
      else if (a == "--ults") o.ults = parse(argv[i], argv[i + 1]);
      else if (a == "--workers") o.workers = parse(argv[i], argv[i + 1]);
      else if (a == "--reps") o.reps = parse(argv[i], argv[i + 1]);
      else throw std::invalid_argument("unknown option " + a);
    }
  } catch (const std::invalid_argument& e) {
    if (me == 0)
      std::fprintf(stderr, "weft-mpi-probe: %s\nusage: mpirun -np 2 weft-mpi-probe [--round-trips N] [--messages N] "
                   "[--ults U] [--workers W] [--reps R]\n", e.what());
    return 2;
  }
  weft::Config config;
  config.workers = o.workers;
  config.pin_workers = false;
  weft::Runtime rt(config);
  std::vector<double> pb, pw, rb, rw;
  pingpong_blocking(me, 1000);  // warm-up
  pingpong_weft(rt, me, 1000);
  for (int r = 0; r < o.reps; ++r) {
    pb.push_back(pingpong_blocking(me, o.round_trips));
    pw.push_back(pingpong_weft(rt, me, o.round_trips));
    rb.push_back(rate_blocking(me, o.messages));
    rw.push_back(rate_weft(rt, me, o.messages, o.ults));
  }
  if (me == 0) {
    auto row = [](const char* name, const std::vector<double>& v, const char* unit, double ratio) {
      std::printf("%-44s %10.3f %s  (min %.3f, max %.3f)", name, median(v), unit, *std::min_element(v.begin(), v.end()),
                  *std::max_element(v.begin(), v.end()));
      if (ratio > 0) std::printf("  weft/blocking %.2fx", ratio);
      std::printf("\n");
    };
    std::printf("# weft-mpi-probe: 2 ranks, %d weft worker(s) per rank, %d reps (median), 8-byte messages\n", o.workers,
                o.reps);
    row("pingpong blocking MPI_Send/MPI_Recv", pb, "us/round trip", 0);
    row("pingpong weft ULT isend/irecv + wait", pw, "us/round trip", median(pw) / median(pb));
    std::string ults = "rate weft " + std::to_string(o.ults) + " ULTs/rank, wait per message";
    for (double& x : rb) x /= 1e6;
    for (double& x : rw) x /= 1e6;
    row("rate blocking MPI_Send/MPI_Recv", rb, "Mmsg/s", 0);
    row(ults.c_str(), rw, "Mmsg/s", median(rw) / median(rb));
  }
  return 0;
}
