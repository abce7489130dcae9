// weft-bench parallel: EPCC-style overheads (the syncbench/schedbench
// measures of the EPCC OpenMP microbenchmarks): the cost of one construct
// with (almost) no work in it, weft beside `#pragma omp ...` (libgomp) and
// oneTBB in the same run, on 1 and 2 workers.
//
//   region      an empty parallel region (weft::parallel / omp parallel /
//               tbb::parallel_for over one index per thread, static_partitioner)
//   barrier     one barrier inside a region (Team::barrier / omp barrier)
//   for/N       a parallel loop of N iterations of a tiny body
//               (benchmark::DoNotOptimize(i)) per schedule: weft::parallel_for
//               / omp parallel for / tbb::parallel_for with the matching
//               partitioner (auto / static / simple)
//   team-for    a worksharing loop inside a running region
//               (Team::for_each / omp for), N = 1000
//   reduce/N    a sum of N longs (parallel_reduce / reduction(+) /
//               tbb::parallel_reduce)
//
// weft's rows run on a ULT of a runtime of that many workers (a program
// written on weft); "weft from main()" rows call from the plain thread that
// owns the runtime (each construct is then a ULT hand-off and a blocking
// join). Each run first checks the construct did its work (every index once,
// the right sum), then times `reps` constructs back to back.
#include <benchmark/benchmark.h>
#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "parallel/cases.hpp"
#include <weft/weft.hpp>

namespace weft::bench::parallel {
namespace {

constexpr const char* kWeft = kReference;

// Repetitions of the construct in one measured run.
struct Sizes {
  long region, barrier, small_loop, big_loop, team_loop, reduce_small, reduce_big;
};
Sizes sizes(bool quick) {
  if (quick) return {2000, 4000, 2000, 20, 2000, 2000, 20};
  return {20000, 40000, 20000, 50, 20000, 20000, 50};
}
constexpr long kBigN = 1'000'000;

std::string workers_label(int w) { return std::to_string(w) + (w == 1 ? "-worker" : "-workers"); }

Config workers_config(int workers) {
  Config c;
  c.workers = workers;
  return c;
}

// Warm-up calls, then `reps` timed calls of op(); ns per call.
template <class Op>
Measurement time_reps(long reps, Op&& op) {
  for (long i = 0; i < std::min(reps, 50L); ++i) op();
  const double t0 = now_ns();
  for (long i = 0; i < reps; ++i) op();
  const double t1 = now_ns();
  return {t1 - t0, static_cast<double>(reps)};
}

// fn() on worker 0 of a fresh runtime of `workers` workers (started outside the timing).
template <class F>
Measurement on_weft(int workers, F fn) {
  Runtime rt(workers_config(workers));
  return rt.spawn_on(0, fn).join();
}

// Checks that a loop construct ran every index of [0, n) exactly once.
template <class Loop>
void check_every_index_once(long n, const char* what, Loop&& loop) {
  std::vector<unsigned char> hits(static_cast<std::size_t>(n), 0);
  loop([&](long i) { ++hits[static_cast<std::size_t>(i)]; });
  for (long i = 0; i < n; ++i)
    if (hits[static_cast<std::size_t>(i)] != 1)
      throw std::runtime_error(std::string(what) + ": index " + std::to_string(i) + " ran " +
                               std::to_string(hits[static_cast<std::size_t>(i)]) + " times");
}

void check_team(int got, int expected, const char* what) {
  if (got != expected)
    throw std::runtime_error(std::string(what) + ": a team of " + std::to_string(got) + ", asked for " +
                             std::to_string(expected));
}

const auto tiny = [](long i) { benchmark::DoNotOptimize(i); };

// ---------------------------------------------------------------- schedules

enum class Sched { adaptive, static_, dynamic1, guided1 };
const char* sched_name(Sched s) {
  switch (s) {
    case Sched::adaptive: return "adaptive";
    case Sched::static_: return "static";
    case Sched::dynamic1: return "dynamic,1";
    case Sched::guided1: return "guided,1";
  }
  return "?";
}
Schedule weft_schedule(Sched s) {
  switch (s) {
    case Sched::adaptive: return schedule_adaptive();
    case Sched::static_: return schedule_static();
    case Sched::dynamic1: return schedule_dynamic(1);
    case Sched::guided1: return schedule_guided(1);
  }
  return {};
}

// `#pragma omp parallel for` with the schedule written out (not
// schedule(runtime), which costs libgomp a little more).
template <class Body>
void omp_for(Sched s, long n, const Body& body) {
  switch (s) {
    case Sched::adaptive:
#pragma omp parallel for schedule(auto)
      for (long i = 0; i < n; ++i) body(i);
      break;
    case Sched::static_:
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; ++i) body(i);
      break;
    case Sched::dynamic1:
#pragma omp parallel for schedule(dynamic, 1)
      for (long i = 0; i < n; ++i) body(i);
      break;
    case Sched::guided1:
#pragma omp parallel for schedule(guided, 1)
      for (long i = 0; i < n; ++i) body(i);
      break;
  }
}

// tbb::parallel_for with the partitioner closest to the schedule (none for guided).
template <class Body>
void tbb_for(Sched s, long n, const Body& body) {
  switch (s) {
    case Sched::adaptive:
      tbb::parallel_for(0L, n, body, tbb::auto_partitioner());
      break;
    case Sched::static_:
      tbb::parallel_for(0L, n, body, tbb::static_partitioner());
      break;
    case Sched::dynamic1:
      tbb::parallel_for(0L, n, body, tbb::simple_partitioner());
      break;
    case Sched::guided1:
      throw std::logic_error("tbb has no guided partitioner");
  }
}
const char* tbb_partitioner(Sched s) {
  switch (s) {
    case Sched::adaptive: return "tbb auto_partitioner";
    case Sched::static_: return "tbb static_partitioner";
    default: return "tbb simple_partitioner";
  }
}

// ---------------------------------------------------------------- region, barrier

Measurement weft_region(int w, long reps) {
  return on_weft(w, [=] {
    int team = 0;
    weft::parallel([&](Team& t) { t.master([&] { team = t.num_threads(); }); });
    check_team(team, w, "weft region");
    return time_reps(reps, [] { weft::parallel([](Team&) {}); });
  });
}

Measurement weft_region_from_main(int w, long reps) {
  Runtime rt(workers_config(w));
  int team = 0;
  weft::parallel([&](Team& t) { t.master([&] { team = t.num_threads(); }); });
  check_team(team, w, "weft region from main()");
  return time_reps(reps, [] { weft::parallel([](Team&) {}); });
}

Measurement omp_region(int w, long reps) {
  omp_set_num_threads(w);
  int team = 0;
#pragma omp parallel
  {
#pragma omp master
    team = omp_get_num_threads();
  }
  check_team(team, w, "omp parallel");
  return time_reps(reps, [] {
#pragma omp parallel
    { benchmark::ClobberMemory(); }
  });
}

Measurement tbb_region(int w, long reps) {
  tbb::task_arena arena(w);
  Measurement m;
  arena.execute([&] {
    std::vector<std::atomic<int>> seen(static_cast<std::size_t>(w));
    tbb::parallel_for(0, w, [&](int i) { seen[static_cast<std::size_t>(i)]++; }, tbb::static_partitioner());
    for (auto& s : seen)
      if (s != 1) throw std::runtime_error("tbb region: an index did not run once");
    m = time_reps(reps, [w] { tbb::parallel_for(0, w, [](int i) { benchmark::DoNotOptimize(i); }, tbb::static_partitioner()); });
  });
  return m;
}

Measurement weft_barrier(int w, long reps) {
  return on_weft(w, [=] {
    double t0 = 0, t1 = 0;
    int team = 0;
    weft::parallel([&](Team& t) {
      for (int i = 0; i < 50; ++i) t.barrier();
      t.master([&] { t0 = now_ns(); });
      for (long i = 0; i < reps; ++i) t.barrier();
      t.master([&] {
        t1 = now_ns();
        team = t.num_threads();
      });
    });
    check_team(team, w, "weft barrier");
    return Measurement{t1 - t0, static_cast<double>(reps)};
  });
}

Measurement omp_barrier(int w, long reps) {
  omp_set_num_threads(w);
  double t0 = 0, t1 = 0;
  int team = 0;
#pragma omp parallel
  {
    for (int i = 0; i < 50; ++i) {
#pragma omp barrier
    }
#pragma omp master
    t0 = now_ns();
    for (long i = 0; i < reps; ++i) {
#pragma omp barrier
    }
#pragma omp master
    {
      t1 = now_ns();
      team = omp_get_num_threads();
    }
  }
  check_team(team, w, "omp barrier");
  return {t1 - t0, static_cast<double>(reps)};
}

// ---------------------------------------------------------------- loops

Measurement weft_loop(int w, Sched s, long n, long reps) {
  return on_weft(w, [=] {
    check_every_index_once(n, "weft parallel_for", [&](auto body) { parallel_for(0L, n, body, weft_schedule(s)); });
    return time_reps(reps, [&] { parallel_for(0L, n, tiny, weft_schedule(s)); });
  });
}

Measurement weft_loop_from_main(int w, Sched s, long n, long reps) {
  Runtime rt(workers_config(w));
  check_every_index_once(n, "weft parallel_for from main()", [&](auto body) { parallel_for(0L, n, body, weft_schedule(s)); });
  return time_reps(reps, [&] { parallel_for(0L, n, tiny, weft_schedule(s)); });
}

Measurement omp_loop(int w, Sched s, long n, long reps) {
  omp_set_num_threads(w);
  check_every_index_once(n, "omp parallel for", [&](auto body) { omp_for(s, n, body); });
  return time_reps(reps, [&] { omp_for(s, n, tiny); });
}

Measurement tbb_loop(int w, Sched s, long n, long reps) {
  tbb::task_arena arena(w);
  Measurement m;
  arena.execute([&] {
    check_every_index_once(n, "tbb::parallel_for", [&](auto body) { tbb_for(s, n, body); });
    m = time_reps(reps, [&] { tbb_for(s, n, tiny); });
  });
  return m;
}

// A worksharing loop inside one running region; member 0 times it.
Measurement weft_team_loop(int w, Sched s, long n, long reps) {
  return on_weft(w, [=] {
    check_every_index_once(n, "weft Team::for_each", [&](auto body) {
      weft::parallel([&](Team& t) { t.for_each(0L, n, body, weft_schedule(s)); });
    });
    double t0 = 0, t1 = 0;
    weft::parallel([&](Team& t) {
      for (int i = 0; i < 50; ++i) t.for_each(0L, n, tiny, weft_schedule(s));
      t.master([&] { t0 = now_ns(); });
      for (long i = 0; i < reps; ++i) t.for_each(0L, n, tiny, weft_schedule(s));
      t.master([&] { t1 = now_ns(); });
    });
    return Measurement{t1 - t0, static_cast<double>(reps)};
  });
}

template <class Body>
void omp_team_for(Sched s, long n, const Body& body) {
  if (s == Sched::static_) {
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i) body(i);
  } else {
#pragma omp for schedule(dynamic, 1)
    for (long i = 0; i < n; ++i) body(i);
  }
}

Measurement omp_team_loop(int w, Sched s, long n, long reps) {
  omp_set_num_threads(w);
  check_every_index_once(n, "omp for", [&](auto body) {
#pragma omp parallel
    omp_team_for(s, n, body);
  });
  double t0 = 0, t1 = 0;
#pragma omp parallel
  {
    for (int i = 0; i < 50; ++i) omp_team_for(s, n, tiny);
#pragma omp master
    t0 = now_ns();
    for (long i = 0; i < reps; ++i) omp_team_for(s, n, tiny);
#pragma omp master
    t1 = now_ns();
  }
  return {t1 - t0, static_cast<double>(reps)};
}

// ---------------------------------------------------------------- reductions

long expected_sum(long n) { return n * (n - 1) / 2; }
void check_sum(long got, long n, const char* what) {
  if (got != expected_sum(n))
    throw std::runtime_error(std::string(what) + ": sum " + std::to_string(got) + ", expected " +
                             std::to_string(expected_sum(n)));
}

Measurement weft_reduce(int w, Sched s, long n, long reps) {
  return on_weft(w, [=] {
    auto sum = [&] {
      return parallel_reduce(0L, n, 0L, [](long i) { return i; }, [](long a, long b) { return a + b; },
                             weft_schedule(s));
    };
    check_sum(sum(), n, "weft parallel_reduce");
    return time_reps(reps, [&] { benchmark::DoNotOptimize(sum()); });
  });
}

Measurement omp_reduce(int w, long n, long reps) {
  omp_set_num_threads(w);
  auto sum = [n] {
    long total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (long i = 0; i < n; ++i) total += i;
    return total;
  };
  check_sum(sum(), n, "omp reduction");
  return time_reps(reps, [&] { benchmark::DoNotOptimize(sum()); });
}

Measurement tbb_reduce(int w, long n, long reps) {
  tbb::task_arena arena(w);
  Measurement m;
  arena.execute([&] {
    auto sum = [n] {
      return tbb::parallel_reduce(
          tbb::blocked_range<long>(0, n), 0L,
          [](const tbb::blocked_range<long>& r, long acc) {
            for (long i = r.begin(); i != r.end(); ++i) acc += i;
            return acc;
          },
          [](long a, long b) { return a + b; });
    };
    check_sum(sum(), n, "tbb::parallel_reduce");
    m = time_reps(reps, [&] { benchmark::DoNotOptimize(sum()); });
  });
  return m;
}

}  // namespace

std::vector<Case> overhead_cases(const Options& options) {
  const Sizes s = sizes(options.quick);
  std::vector<Case> cases;
  for (int w : {1, 2}) {
    const std::string on = workers_label(w);
    {
      Case c("overhead/region/" + on, "an empty parallel region, " + std::to_string(s.region) + " in a row", "ns/region");
      c.add(kWeft, [=] { return weft_region(w, s.region); });
      c.add("weft from main()", [=] { return weft_region_from_main(w, s.region); });
      c.add("omp parallel", [=] { return omp_region(w, s.region); });
      c.add("tbb parallel_for(0,P) static (no team: may run on one thread)", [=] { return tbb_region(w, s.region); });
      cases.push_back(std::move(c));
    }
    {
      Case c("overhead/barrier/" + on, std::to_string(s.barrier) + " barriers in one region", "ns/barrier");
      c.add(kWeft, [=] { return weft_barrier(w, s.barrier); });
      c.add("omp barrier", [=] { return omp_barrier(w, s.barrier); });
      cases.push_back(std::move(c));
    }
    for (long n : {static_cast<long>(w), 1000L, kBigN}) {
      for (Sched sched : {Sched::adaptive, Sched::static_, Sched::dynamic1, Sched::guided1}) {
        // dynamic,1 claims every iteration on a shared counter: 10x fewer loops.
        const long reps = std::max(2L, (n == kBigN ? s.big_loop : s.small_loop) / (sched == Sched::dynamic1 ? 10 : 1));
        const std::string name = sched_name(sched);
        Case c("overhead/for-" + std::to_string(n) + "/" + name + "/" + on,
               "parallel loop of " + std::to_string(n) + " tiny iterations, schedule " + name + ", " +
                   std::to_string(reps) + " loops in a row",
               "ns/loop");
        c.add(kWeft, [=] { return weft_loop(w, sched, n, reps); });
        if (sched == Sched::static_ || sched == Sched::adaptive)
          c.add("weft from main()", [=] { return weft_loop_from_main(w, sched, n, reps); });
        c.add(std::string("omp parallel for ") + (sched == Sched::adaptive ? "auto" : name),
              [=] { return omp_loop(w, sched, n, reps); });
        if (sched != Sched::guided1) c.add(tbb_partitioner(sched), [=] { return tbb_loop(w, sched, n, reps); });
        cases.push_back(std::move(c));
      }
    }
    for (Sched sched : {Sched::static_, Sched::dynamic1}) {
      const std::string name = sched_name(sched);
      const long reps = s.team_loop / (sched == Sched::dynamic1 ? 10 : 1);
      Case c("overhead/team-for-1000/" + name + "/" + on,
             "worksharing loop of 1000 tiny iterations inside a running region, schedule " + name + ", " +
                 std::to_string(reps) + " in a row",
             "ns/loop");
      c.add(kWeft, [=] { return weft_team_loop(w, sched, 1000, reps); });
      c.add("omp for " + name, [=] { return omp_team_loop(w, sched, 1000, reps); });
      cases.push_back(std::move(c));
    }
    for (long n : {1000L, kBigN}) {
      const long reps = n == kBigN ? s.reduce_big : s.reduce_small;
      Case c("overhead/reduce-" + std::to_string(n) + "/" + on,
             "sum of " + std::to_string(n) + " longs, " + std::to_string(reps) + " in a row", "ns/reduce");
      c.add(kWeft, [=] { return weft_reduce(w, Sched::adaptive, n, reps); });
      c.add("weft static", [=] { return weft_reduce(w, Sched::static_, n, reps); });
      c.add("omp reduction(+) static", [=] { return omp_reduce(w, n, reps); });
      c.add("tbb::parallel_reduce auto", [=] { return tbb_reduce(w, n, reps); });
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace weft::bench::parallel
