// The Fetch&Multiply sweep of `weft-bench combining` (see fetch_multiply.hpp).
#include "fetch_multiply.hpp"

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>

#include <weft/runtime.hpp>
#include <weft/sync/ccsynch.hpp>
#include <weft/sync/clh_lock.hpp>
#include <weft/sync/dsmsynch.hpp>
#include <weft/sync/fetch_multiply.hpp>
#include <weft/sync/flat_combining.hpp>
#include <weft/sync/hsynch.hpp>
#include <weft/sync/lock_free_object.hpp>
#include <weft/sync/mutex_object.hpp>
#include <weft/sync/osci.hpp>
#include <weft/sync/oyama.hpp>
#include <weft/sync/psim.hpp>
#include <weft/sync/wait.hpp>

#include "common.hpp"

namespace weft::bench::combining {
namespace {

namespace ws = weft::sync;
using Fm = ws::FetchMultiply<std::uint64_t>;
using Word = std::uint64_t;

template <class Obj>
Word final_value(Obj& obj) {
  if constexpr (requires { obj.unsafe_object(); })
    return obj.unsafe_object().value;
  else
    return obj.load().value;  // LockFreeObject
}

template <class Obj>
std::optional<ws::CombiningStats> stats_of(const Obj& obj) {
  if constexpr (requires { obj.stats(); })
    return obj.stats();
  else
    return std::nullopt;
}

std::uint64_t seed_of(int tid) { return 0x5eed0000ull + static_cast<std::uint64_t>(tid); }

std::string hex(Word v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%016" PRIx64, v);
  return b;
}

// One run of Obj: threads = cores * k, k ULTs per worker.
template <class Obj>
Measurement fm_run(const std::string& row, const FmRun& r, int k) {
  Watchdog watchdog(row, kWatchdogSeconds);
  const int threads = r.cores * k;
  auto obj = std::make_unique<Obj>();
  struct alignas(64) PerThread {
    Word product = 1;  // of the multipliers this thread drew
  };
  std::vector<PerThread> res(static_cast<std::size_t>(threads));
  const std::uint64_t w = static_cast<std::uint64_t>(r.w);

  const Timed run = run_ults(r.cores, k, [&](int tid, Gate& gate) {
    auto h = obj->handle();  // on the ULT's own worker (H-Synch picks its cluster here)
    Rng rng(seed_of(tid));
    const long n = share(r.ops, threads, tid);
    PerThread t;
    Word sink = 0;
    long i = 0;
    gate.arrive_and_wait();
    for (; i < n && !gate.stopped(); ++i) {
      const Word m = rng.next() | 1u;  // odd: the product never becomes 0
      t.product *= m;
      sink += obj->apply(h, m);
      local_work(local_work_draw(rng, w));
    }
    gate.finish(i);
    benchmark::DoNotOptimize(sink);
    res[static_cast<std::size_t>(tid)] = t;
  });

  Word expected = 1;
  for (const PerThread& t : res) expected *= t.product;
  const Word got = final_value(*obj);
  if (got != expected)
    fail(row + ": wrong final value " + hex(got) + ", expected " + hex(expected) +
         " (an update was lost or applied twice)");

  Measurement m = with_throughput(run.ns, static_cast<double>(run.ops));
  if (auto st = stats_of(*obj)) {
    if (st->requests != static_cast<std::uint64_t>(run.ops))
      fail(row + ": combining stats count " + std::to_string(st->requests) + " requests, " +
           std::to_string(run.ops) + " were applied");
    m.extra.push_back({"degree", "requests/round", st->degree(), true});
  }
  // Little's law: `threads` operations are always in progress, one per thread.
  m.extra.push_back({"lat ns", "ns", threads * run.ns / static_cast<double>(run.ops)});
  add_switch_profile(m, run, static_cast<double>(run.ops));
  return m;
}

template <class Yielding, class Spinning>
FmAlgo fm_algo(std::string name) {
  FmAlgo a;
  a.name = name;
  a.yielding = [name](const FmRun& r) { return fm_run<Yielding>(name + "-x" + std::to_string(r.k), r, r.k); };
  a.original = [name](const FmRun& r) { return fm_run<Spinning>(name, r, 1); };
  return a;
}

// One line per algorithm: Algo<Seq, Wait> with Wait = YieldWait for the
// -x<k> rows, SpinWait for the original.
#define WEFT_FM_ALGO(Algo, name) fm_algo<Algo<Fm, ws::YieldWait>, Algo<Fm, ws::SpinWait>>(name)

// The mutex baseline has no wait policy: the -x<k> rows use weft::Mutex (a
// contended lock parks the ULT), the original std::mutex.
template <class Seq, class Wait>
using MutexAlgo = ws::MutexObject<Seq, std::conditional_t<Wait::yields, weft::Mutex, std::mutex>>;

// PSim sized for the largest sweep point (128 ULTs on every core): its
// announce array is fixed at construction. The -x<k> rows are PSim-x (one
// yield after announcing), the original is plain PSim.
template <class Seq, class Wait>
struct PSimAlgo : ws::PSim<Seq, Wait> {
  PSimAlgo()
      : ws::PSim<Seq, Wait>(Seq{}, ws::PSimConfig{.max_handles = 128 * static_cast<std::size_t>(bench_cores()),
                                                  .yield_after_announce = Wait::yields}) {}
};

}  // namespace

const std::vector<FmAlgo>& fm_algorithms() {
  static const std::vector<FmAlgo> algos = {
      WEFT_FM_ALGO(ws::Osci, "Osci"),  // first: the "weft" row of every case
      WEFT_FM_ALGO(PSimAlgo, "PSim"),
      WEFT_FM_ALGO(ws::CCSynch, "CC-Synch"),
      WEFT_FM_ALGO(ws::DSMSynch, "DSM-Synch"),
      WEFT_FM_ALGO(ws::HSynch, "H-Synch"),
      WEFT_FM_ALGO(ws::FlatCombining, "flat-combining"),
      WEFT_FM_ALGO(ws::Oyama, "OyamaAlg"),
      WEFT_FM_ALGO(ws::ClhObject, "CLH"),
      WEFT_FM_ALGO(ws::LockFreeObject, "Lock-Free"),
      WEFT_FM_ALGO(MutexAlgo, "mutex"),
  };
  return algos;
}

namespace {

// One pinned core runs the loop body with the sequential Fetch&Multiply, up
// to `ops` times or until kRunCapNs; `sink` keeps the results alive.
Timed sequential_run(int w, long ops) {
  Timed run;
  bool ok = true;
  run_pinned([&] {  // on a std::thread: no throwing in here
    Rng rng(seed_of(0));
    Fm seq;
    Word prod = 1, sink = 0;
    const std::uint64_t ww = static_cast<std::uint64_t>(w);
    const double t0 = now_ns();
    long i = 0;
    for (; i < ops; ++i) {
      if ((i & 1023) == 0 && now_ns() - t0 >= kRunCapNs) break;
      const Word m = rng.next() | 1u;
      prod *= m;
      sink += seq.apply(m);
      local_work(local_work_draw(rng, ww));
    }
    const double t1 = now_ns();
    benchmark::DoNotOptimize(sink);
    benchmark::DoNotOptimize(prod);
    ok = seq.value == prod;
    run = {t1 - t0, i};
  });
  if (!ok) fail("ideal: the sequential Fetch&Multiply went wrong");
  return run;
}

}  // namespace

Measurement fm_ideal(int cores, int w, long ops) {
  const Timed run = sequential_run(w, ops / cores);  // one core's share
  return with_throughput(run.ns / cores, static_cast<double>(run.ops));
}

}  // namespace weft::bench::combining
