// `weft-bench locks`: the lock family of weft/sync/locks beside the locks a
// user would otherwise pick, each case's rows measured in the same run.
//
//  * locks/uncontended: one thread, lock + unlock in a loop (the thesis's
//    Table 5.2 setting without the critical section): ns per pair;
//  * locks/ssync/threads, locks/ssync/ults: SSYNC-style (thesis ch. 4): every
//    caller takes the one lock, writes kLines cache lines, releases, then
//    does random local work; on one pinned thread per core, and on k ULTs
//    per weft worker; std::mutex, pthread_spinlock_t, oneTBB spin_mutex /
//    queuing_mutex, weft::Mutex and the combining objects (CC-Synch, Osci)
//    on the same critical section;
//  * locks/oversub/x<m>: locks/ssync/threads with m pinned threads per core
//    (m = 1, 2, 4: more runnable kernel threads than cores);
//  * locks/pq: the QD paper's benchmark (§7.1): a shared priority queue
//    (binary heap), 50 % inserts / 50 % delete-mins, local work between
//    operations; QD and MRQD (inserts detached, delete-mins waited for)
//    beside std::mutex, MUTEXEE, CC-Synch and Osci.
// Summaries: each lock's ratio to std::mutex (uncontended, contended, pq),
// and each lock's throughput at 2x and 4x relative to its own 1x.
#include <pthread.h>
#include <tbb/queuing_mutex.h>
#include <tbb/spin_mutex.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../combining/common.hpp"
#include "weft/runtime/mutex.hpp"
#include "weft/sync/ccsynch.hpp"
#include "weft/sync/locks/array_lock.hpp"
#include "weft/sync/locks/clh_mutex.hpp"
#include "weft/sync/locks/cohort_lock.hpp"
#include "weft/sync/locks/mcs_lock.hpp"
#include "weft/sync/locks/mrqd_lock.hpp"
#include "weft/sync/locks/mutexee_lock.hpp"
#include "weft/sync/locks/qd_lock.hpp"
#include "weft/sync/locks/rw_lock.hpp"
#include "weft/sync/locks/tas_lock.hpp"
#include "weft/sync/locks/ticket_lock.hpp"
#include "weft/sync/locks/ttas_lock.hpp"
#include "weft/sync/locks/wait_budget.hpp"
#include "weft/sync/osci.hpp"

namespace weft::bench::locks {
namespace {

using namespace weft::bench::combining;

constexpr int kLines = 2;        // cache lines written per critical section
constexpr std::uint64_t kWork = 200;  // local work bound (iterations) after each release
constexpr const char* kStdMutex = "std::mutex";

// pthread_spinlock_t as a Lockable.
class PthreadSpinlock {
 public:
  PthreadSpinlock() { pthread_spin_init(&l_, PTHREAD_PROCESS_PRIVATE); }
  ~PthreadSpinlock() { pthread_spin_destroy(&l_); }
  void lock() { pthread_spin_lock(&l_); }
  void unlock() { pthread_spin_unlock(&l_); }

 private:
  pthread_spinlock_t l_;
};

// The shared data of the SSYNC-style critical section.
struct alignas(64) Line {
  std::uint64_t words[8] = {};
};
struct Shared {
  Line lines[kLines];
  void write() noexcept {
    for (Line& l : lines) ++l.words[0];
  }
};

// How a row enters its critical section: a Lockable, oneTBB's queuing
// mutex (a scoped lock with its own node), or QD's detached delegation.
template <class L>
struct Plain {
  L lock;
  template <class F>
  void critical(F&& f) {
    lock.lock();
    f();
    lock.unlock();
  }
};
struct TbbQueuing {
  tbb::queuing_mutex m;
  template <class F>
  void critical(F&& f) {
    tbb::queuing_mutex::scoped_lock g(m);
    f();
  }
};
template <class Qd>
struct Delegated {
  Qd qd;
  template <class F>
  void critical(F&& f) {
    qd.delegate(f);
  }
};

// The critical section as a sequential object, for the combining objects.
struct SharedSeq {
  struct Op {
    int unused = 0;
  };
  using Result = int;
  std::unique_ptr<Shared> s = std::make_unique<Shared>();
  Result apply(const Op&) {
    s->write();
    return 0;
  }
};
template <class Obj>
struct Combined {
  Obj obj{SharedSeq{}};
};

// One SSYNC-style run of `ops` critical sections; on ULTs (ults_per_worker >
// 0) or on `per_cpu` pinned threads per core.
template <class Row>
Measurement ssync_run(const std::string& row, long ops, int per_cpu, int ults_per_worker) {
  Watchdog watchdog(row, kWatchdogSeconds);
  auto r = std::make_unique<Row>();
  Shared local_shared;
  Shared* shared = &local_shared;
  if constexpr (requires { r->obj; }) shared = r->obj.unsafe_object().s.get();
  const int cores = bench_cores();
  const int threads = cores * (ults_per_worker > 0 ? ults_per_worker : per_cpu);
  const Body body = [&](int tid, Gate& gate) {
    Rng rng(static_cast<std::uint64_t>(tid) + 1);
    const long n = share(ops, threads, tid);
    long i = 0;
    if constexpr (requires { r->obj; }) {
      auto h = r->obj.handle();
      gate.arrive_and_wait();
      for (; i < n && !gate.stopped(); ++i) {
        r->obj.apply(h, SharedSeq::Op{});
        local_work(local_work_draw(rng, kWork));
      }
    } else {
      gate.arrive_and_wait();
      for (; i < n && !gate.stopped(); ++i) {
        r->critical([shared] { shared->write(); });
        local_work(local_work_draw(rng, kWork));
      }
    }
    gate.finish(i);
  };
  const Timed run = ults_per_worker > 0 ? run_ults(cores, ults_per_worker, body) : run_threads(cores, per_cpu, body);
  // QD's detached operations all ran: each was accepted by a helper that
  // flushed before its own delegate returned.
  for (const Line& l : shared->lines)
    if (l.words[0] != static_cast<std::uint64_t>(run.ops))
      fail(row + ": " + std::to_string(l.words[0]) + " writes for " + std::to_string(run.ops) +
           " critical sections (lost or doubled)");
  return with_throughput(run.ns, static_cast<double>(run.ops));
}

// Lock + unlock on one pinned thread, `ops` times.
template <class Row>
Measurement uncontended_run(long ops) {
  auto r = std::make_unique<Row>();
  std::uint64_t sink = 0;
  double ns = 0;
  run_pinned([&] {
    for (int i = 0; i < 1000; ++i) r->critical([&] { ++sink; });  // warm: nodes, caches
    const double t0 = now_ns();
    for (long i = 0; i < ops; ++i) r->critical([&] { benchmark::DoNotOptimize(++sink); });
    ns = now_ns() - t0;
  });
  if (sink != static_cast<std::uint64_t>(ops) + 1000) fail("uncontended: lost critical sections");
  return with_throughput(ns, static_cast<double>(ops));
}

// Every Lockable row: name and the row type, listed once.
template <class F>
void for_each_lock(F&& f) {
  f.template operator()<Plain<std::mutex>>(kStdMutex);
  f.template operator()<Plain<PthreadSpinlock>>("pthread_spinlock_t");
  f.template operator()<Plain<tbb::spin_mutex>>("tbb::spin_mutex");
  f.template operator()<TbbQueuing>("tbb::queuing_mutex");
  f.template operator()<Plain<weft::Mutex>>("weft::Mutex");
  f.template operator()<Plain<sync::TasLock>>("TAS");
  f.template operator()<Plain<sync::TtasLock>>("TTAS");
  f.template operator()<Plain<sync::TicketLock>>("ticket");
  f.template operator()<Plain<sync::McsLock>>("MCS");
  f.template operator()<Plain<sync::ClhMutex>>("CLH");
  f.template operator()<Plain<sync::ArrayLock>>("array");
  f.template operator()<Plain<sync::HticketLock>>("HTICKET");
  f.template operator()<Plain<sync::CohortMcsLock>>("cohort(TKT,MCS)");
  f.template operator()<Plain<sync::MutexeeLock>>("MUTEXEE");
  f.template operator()<Plain<sync::RwLock>>("rw (writer)");
  f.template operator()<Plain<sync::QdLock<>>>("QD lock()");
  f.template operator()<Delegated<sync::QdLock<>>>("QD delegate");
}

// --------------------------------------------------------------- priority queue

// The QD paper's §7.1 object: a sequential priority queue (a binary heap on
// a reserved vector: no allocation once warm), pre-filled.
struct PqSeq {
  struct Op {
    bool insert = false;
    std::uint32_t value = 0;
  };
  using Result = std::uint32_t;
  static constexpr Result kEmpty = ~0u;
  std::vector<std::uint32_t> heap;
  PqSeq() {
    heap.reserve(1 << 16);
    for (std::uint32_t i = 0; i < 1000; ++i) insert(i * 2654435761u >> 8);
  }
  void insert(std::uint32_t v) {
    heap.push_back(v);
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
  }
  Result delete_min() {
    if (heap.empty()) return kEmpty;
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    const Result v = heap.back();
    heap.pop_back();
    return v;
  }
  Result apply(const Op& op) {
    if (op.insert) {
      insert(op.value);
      return 0;
    }
    return delete_min();
  }
};

// The paper's local work unit: two random slots of a thread-local 64-int
// array get +I and -I.
void pq_local_work(Rng& rng, int (&arr)[64], int units) {
  for (int u = 0; u < units; ++u) {
    const std::uint64_t r = rng.next();
    const int i = static_cast<int>(r >> 58), j = static_cast<int>((r >> 52) & 63), v = static_cast<int>(r & 1023);
    arr[i] += v;
    arr[j] -= v;
  }
  benchmark::DoNotOptimize(arr);
}

// One priority-queue run; `apply(op)` runs one operation through the row's
// synchronization (on pinned threads, or on ULTs for Osci).
template <class MakeHandle, class Apply>
Timed pq_run(long ops, int units, bool on_ults, MakeHandle make_handle, Apply apply) {
  const int cores = bench_cores();
  const int per = on_ults ? 8 : 1;
  const int threads = cores * per;
  const Body body = [&](int tid, Gate& gate) {
    auto h = make_handle();
    Rng rng(static_cast<std::uint64_t>(tid) + 77);
    int arr[64] = {};
    const long n = share(ops, threads, tid);
    long i = 0;
    gate.arrive_and_wait();
    for (; i < n && !gate.stopped(); ++i) {
      const std::uint64_t r = rng.next();
      apply(h, PqSeq::Op{(r & 1) != 0, static_cast<std::uint32_t>(r >> 40)});
      pq_local_work(rng, arr, units);
    }
    gate.finish(i);
  };
  return on_ults ? run_ults(cores, per, body) : run_threads(cores, 1, body);
}

template <class L>
Measurement pq_locked(long ops, int units) {
  L lock;
  PqSeq pq;
  std::uint64_t sink = 0;
  const Timed run = pq_run(ops, units, false, [] { return 0; }, [&](int, const PqSeq::Op& op) {
    lock.lock();
    sink += pq.apply(op);
    lock.unlock();
  });
  benchmark::DoNotOptimize(sink);
  return with_throughput(run.ns, static_cast<double>(run.ops));
}

template <class Qd>
Measurement pq_delegated(long ops, int units) {
  auto qd = std::make_unique<Qd>();
  PqSeq pq;
  std::uint64_t sink = 0;
  const Timed run = pq_run(ops, units, false, [] { return 0; }, [&](int, const PqSeq::Op& op) {
    if (op.insert)
      qd->delegate([&pq, v = op.value] { pq.insert(v); });  // detached
    else
      sink += qd->delegate_wait([&pq] { return pq.delete_min(); });
  });
  benchmark::DoNotOptimize(sink);
  return with_throughput(run.ns, static_cast<double>(run.ops));
}

template <class Obj>
Measurement pq_combined(long ops, int units, bool on_ults) {
  auto obj = std::make_unique<Obj>(PqSeq{});
  std::uint64_t sink = 0;
  const Timed run = pq_run(ops, units, on_ults, [&] { return obj->handle(); },
                           [&](auto& h, const PqSeq::Op& op) { sink += obj->apply(h, op); });
  benchmark::DoNotOptimize(sink);
  return with_throughput(run.ns, static_cast<double>(run.ops));
}

// ------------------------------------------------------------------- cases

struct Sizes {
  long uncontended_ops = 2'000'000;
  long ssync_ops = 1'000'000;
  long pq_ops = 1'000'000;
  int ults_per_worker = 4;
  std::vector<int> oversub = {1, 2, 4};
  std::vector<int> pq_units = {0, 32, 128};
};

Sizes sizes(bool quick) {
  Sizes s;
  if (quick) {
    s.uncontended_ops = 300'000;
    s.ssync_ops = 100'000;
    s.pq_ops = 100'000;
    s.pq_units = {32};
  }
  return s;
}

std::vector<Case> locks_cases(const Options& o) {
  const Sizes z = sizes(o.quick);
  (void)sync::wait_budget();  // measure the spin budgets outside every timed region
  std::vector<Case> cases;
  const std::string cores = std::to_string(bench_cores());

  Case unc("locks/uncontended", "one pinned thread: lock + unlock (empty critical section), " +
                                    std::to_string(z.uncontended_ops) + " pairs",
           "ns/pair");
  for_each_lock([&]<class Row>(const char* name) {
    unc.add(name, [ops = z.uncontended_ops] { return uncontended_run<Row>(ops); });
  });
  cases.push_back(std::move(unc));

  auto ssync = [&](const std::string& name, const std::string& what, int per_cpu, int ults) {
    Case c(name, what, "ns/cs");
    const long ops = z.ssync_ops;
    for_each_lock([&]<class Row>(const char* row) {
      c.add(row, [=] { return ssync_run<Row>(row, ops, per_cpu, ults); });
    });
    if (ults > 0) {
      c.add("CC-Synch (YieldWait)", [=] {
        return ssync_run<Combined<sync::CCSynch<SharedSeq, sync::YieldWait>>>("CC-Synch", ops, 1, ults);
      });
      c.add("Osci", [=] { return ssync_run<Combined<sync::Osci<SharedSeq>>>("Osci", ops, 1, ults); });
    } else {
      c.add("CC-Synch (SpinWait)", [=] {
        return ssync_run<Combined<sync::CCSynch<SharedSeq, sync::SpinWait>>>("CC-Synch", ops, per_cpu, 0);
      });
    }
    cases.push_back(std::move(c));
  };
  const std::string cs = "lock, write " + std::to_string(kLines) + " lines, unlock, local work in [1, " +
                         std::to_string(kWork) + "]; " + std::to_string(z.ssync_ops) + " critical sections";
  ssync("locks/ssync/threads", cs + "; one pinned thread per core (" + cores + ")", 1, 0);
  ssync("locks/ssync/ults", cs + "; " + std::to_string(z.ults_per_worker) + " ULTs per worker (" + cores + " workers)",
        1, z.ults_per_worker);
  for (int m : z.oversub)
    ssync("locks/oversub/x" + std::to_string(m),
          cs + "; " + std::to_string(m) + " pinned threads per core (" + cores + " cores)", m, 0);

  for (int units : z.pq_units) {
    Case c("locks/pq/work" + std::to_string(units),
           "QD paper §7.1: binary heap (1000 items), 50% insert / 50% delete-min, " + std::to_string(units) +
               " local work units; one pinned thread per core (Osci: 8 ULTs per worker); " +
               std::to_string(z.pq_ops) + " operations",
           "ns/op");
    const long ops = z.pq_ops;
    c.add(kStdMutex, [=] { return pq_locked<std::mutex>(ops, units); });
    c.add("MUTEXEE", [=] { return pq_locked<sync::MutexeeLock>(ops, units); });
    c.add("TTAS", [=] { return pq_locked<sync::TtasLock>(ops, units); });
    c.add("QD", [=] { return pq_delegated<sync::QdLock<>>(ops, units); });
    c.add("MRQD", [=] { return pq_delegated<sync::MrqdLock<>>(ops, units); });
    c.add("CC-Synch", [=] { return pq_combined<sync::CCSynch<PqSeq, sync::SpinWait>>(ops, units, false); });
    c.add("Osci (ULTs)", [=] { return pq_combined<sync::Osci<PqSeq>>(ops, units, true); });
    cases.push_back(std::move(c));
  }
  return cases;
}

// Ratios to std::mutex per case, and each lock at 2x/4x vs its 1x.
std::vector<SummaryTable> locks_summary(const std::vector<RowResult>& results, const Options&) {
  using Cell = SummaryTable::Cell;
  std::map<std::string, std::map<std::string, double>> per_op;  // case -> impl -> ns/op
  std::vector<std::string> impl_order;
  for (const RowResult& r : results) {
    if (!r.ok) continue;
    per_op[r.case_name][r.impl] = r.per_op;
    if (std::find(impl_order.begin(), impl_order.end(), r.impl) == impl_order.end()) impl_order.push_back(r.impl);
  }
  auto get = [&](const std::string& c, const std::string& i) -> double {
    auto ci = per_op.find(c);
    if (ci == per_op.end()) return NAN;
    auto ii = ci->second.find(i);
    return ii == ci->second.end() ? NAN : ii->second;
  };
  std::vector<SummaryTable> tables;

  SummaryTable vs;
  vs.name = "locks/vs-std-mutex";
  vs.what = "throughput relative to std::mutex in the same run (std::mutex ns / row ns: > 1 is faster); "
            "uncontended: row ns / std::mutex ns (target <= 1.2)";
  vs.columns = {"lock", "uncontended cost", "ssync threads", "ssync ULTs"};
  for (const auto& c : per_op)
    if (c.first.rfind("locks/pq/", 0) == 0) vs.columns.push_back(c.first.substr(6));
  for (const auto& i : impl_order) {
    std::vector<Cell> row{Cell{i, NAN}};
    row.push_back(Cell{"", get("locks/uncontended", i) / get("locks/uncontended", kStdMutex)});
    row.push_back(Cell{"", get("locks/ssync/threads", kStdMutex) / get("locks/ssync/threads", i)});
    row.push_back(Cell{"", get("locks/ssync/ults", kStdMutex) / get("locks/ssync/ults", i)});
    for (const auto& c : per_op)
      if (c.first.rfind("locks/pq/", 0) == 0) row.push_back(Cell{"", get(c.first, kStdMutex) / get(c.first, i)});
    vs.rows.push_back(std::move(row));
  }
  tables.push_back(std::move(vs));

  if (per_op.count("locks/oversub/x1")) {
    SummaryTable ov;
    ov.name = "locks/oversubscription";
    ov.what = "throughput at m pinned threads per core relative to the same lock at 1 per core (target >= 0.8)";
    ov.columns = {"lock", "x2 / x1", "x4 / x1"};
    for (const auto& i : impl_order) {
      const double x1 = get("locks/oversub/x1", i);
      if (std::isnan(x1)) continue;
      ov.rows.push_back({Cell{i, NAN}, Cell{"", x1 / get("locks/oversub/x2", i)},
                         Cell{"", x1 / get("locks/oversub/x4", i)}});
    }
    tables.push_back(std::move(ov));
  }
  return tables;
}

}  // namespace

WEFT_BENCH_SUITE_WITH_SUMMARY("locks",
                              "lock family: uncontended, SSYNC-style contended (threads, ULTs), "
                              "oversubscription 1x/2x/4x, QD paper's priority queue; vs std::mutex, "
                              "pthread spinlock, oneTBB",
                              locks_cases, locks_summary);

}  // namespace weft::bench::locks
