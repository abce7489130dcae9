// Queues and stacks of `weft-bench combining` (see containers.hpp).
#include "containers.hpp"

#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/stack.hpp>
#include <oneapi/tbb/concurrent_queue.h>

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <weft/sync/bounded_queue.hpp>
#include <weft/sync/bounded_stack.hpp>
#include <weft/sync/ccsynch.hpp>
#include <weft/sync/combining.hpp>
#include <weft/sync/combining_queue.hpp>
#include <weft/sync/combining_stack.hpp>
#include <weft/sync/osci.hpp>
#include <weft/sync/psim_queue.hpp>
#include <weft/sync/psim_stack.hpp>
#include <weft/sync/wait.hpp>

#include "common.hpp"
#include "ms_queue.hpp"
#include "treiber_stack.hpp"

namespace weft::bench::combining {
namespace {

namespace ws = weft::sync;
using Item = std::uint64_t;

// Room for the prefill, one item per thread in flight, and slack.
constexpr std::size_t kCapacity = 1u << 15;

// Combiners (CombiningQueue/CombiningStack take a template <class Seq>).
template <class S>
using OsciYield = ws::Osci<S, ws::YieldWait>;
template <class S>
using CCSynchYield = ws::CCSynch<S, ws::YieldWait>;
template <class S>
using CCSynchSpin = ws::CCSynch<S, ws::SpinWait>;

// Adapters: Handle handle(); bool put(Handle&, Item); bool take(Handle&, Item&);
// optionally CombiningStats stats().
struct NoHandle {};

// The combining stats of a queue/stack object: its own stats(), or the sum of
// its two ends' (CombiningQueue), or its one object's (CombiningStack).
template <class Q>
concept HasCombiningStats = requires(Q& q) { q.stats(); } || requires(Q& q) {
  q.enqueue_object().stats();
  q.dequeue_object().stats();
} || requires(Q& q) { q.object().stats(); };

template <class Q>
ws::CombiningStats combining_stats(Q& q) {
  if constexpr (requires { q.stats(); }) {
    return q.stats();
  } else if constexpr (requires { q.enqueue_object().stats(); }) {
    const auto e = q.enqueue_object().stats(), d = q.dequeue_object().stats();
    return {e.rounds + d.rounds, e.requests + d.requests};
  } else {
    return q.object().stats();
  }
}

// Any queue or stack with per-caller handles: C(capacity), handle(),
// enqueue(h, v) or push(h, v) -> bool, dequeue(h) or pop(h) -> std::optional
// (CombiningQueue/CombiningStack with any combiner, and containers of the
// same shape, e.g. PSimStack).
template <class C, std::size_t Capacity = kCapacity>
struct HandleContainer {
  using Handle = typename C::Handle;
  C c{Capacity};
  Handle handle() { return c.handle(); }
  bool put(Handle& h, Item v) {
    if constexpr (requires { c.push(h, v); })
      return c.push(h, v);
    else
      return c.enqueue(h, v);
  }
  bool take(Handle& h, Item& out) {
    std::optional<Item> r;
    if constexpr (requires { c.pop(h); })
      r = c.pop(h);
    else
      r = c.dequeue(h);
    if (!r) return false;
    out = *r;
    return true;
  }
  ws::CombiningStats stats()
    requires HasCombiningStats<C>
  {
    return combining_stats(c);
  }
};

struct TbbQueue {
  using Handle = NoHandle;
  tbb::concurrent_queue<Item> q;
  Handle handle() { return {}; }
  bool put(Handle&, Item v) {
    q.push(v);
    return true;
  }
  bool take(Handle&, Item& out) { return q.try_pop(out); }
};

struct BoostQueue {
  using Handle = NoHandle;
  boost::lockfree::queue<Item> q{kCapacity};  // nodes preallocated; push allocates beyond
  Handle handle() { return {}; }
  bool put(Handle&, Item v) { return q.push(v); }
  bool take(Handle&, Item& out) { return q.pop(out); }
};

struct BoostStack {
  using Handle = NoHandle;
  boost::lockfree::stack<Item> s{kCapacity};
  Handle handle() { return {}; }
  bool put(Handle&, Item v) { return s.push(v); }
  bool take(Handle&, Item& out) { return s.pop(out); }
};

struct MsQueueA {
  using Handle = NoHandle;
  MsQueue q{kCapacity};
  Handle handle() { return {}; }
  bool put(Handle&, Item v) { return q.enqueue(v); }
  bool take(Handle&, Item& out) { return q.dequeue(out); }
};

struct TreiberA {
  using Handle = NoHandle;
  TreiberStack s{kCapacity};
  Handle handle() { return {}; }
  bool put(Handle&, Item v) { return s.push(v); }
  bool take(Handle&, Item& out) { return s.pop(out); }
};

struct MutexDeque {
  using Handle = NoHandle;
  std::mutex m;
  std::deque<Item> d;
  Handle handle() { return {}; }
  bool put(Handle&, Item v) {
    std::lock_guard lk(m);
    d.push_back(v);
    return true;
  }
  bool take(Handle&, Item& out) {
    std::lock_guard lk(m);
    if (d.empty()) return false;
    out = d.front();
    d.pop_front();
    return true;
  }
};

struct MutexVector {
  using Handle = NoHandle;
  std::mutex m;
  std::vector<Item> v;
  MutexVector() { v.reserve(kCapacity); }
  Handle handle() { return {}; }
  bool put(Handle&, Item x) {
    std::lock_guard lk(m);
    v.push_back(x);
    return true;
  }
  bool take(Handle&, Item& out) {
    std::lock_guard lk(m);
    if (v.empty()) return false;
    out = v.back();
    v.pop_back();
    return true;
  }
};

struct alignas(64) ThreadResult {
  Item sum_in = 0, sum_out = 0;
  long in = 0, out = 0;
  bool full = false, empty = false;
};

template <class A>
Measurement container_run(const std::string& row, const ContainerRun& r, bool ults) {
  Watchdog watchdog(row, kWatchdogSeconds);
  const int threads = r.cores * r.per_core;
  auto a = std::make_unique<A>();
  auto main_handle = a->handle();

  // Prefill (outside the measured region) with items no thread makes.
  Item sum_in = 0, sum_out = 0;
  long in = 0, out = 0;
  for (long i = 0; i < r.prefill; ++i) {
    const Item v = (Item{0xFFFFFF} << 40) | static_cast<Item>(i);
    if (!a->put(main_handle, v)) fail(row + ": full while prefilling");
    sum_in += mix(v);
    ++in;
  }

  // Combining stats of the measured region only (not the prefill, not the drain).
  ws::CombiningStats before{};
  if constexpr (requires { a->stats(); }) before = a->stats();

  std::vector<ThreadResult> res(static_cast<std::size_t>(threads));
  const std::uint64_t w = static_cast<std::uint64_t>(r.w);
  auto body = [&](int tid, Gate& gate) {
    auto h = a->handle();
    Rng rng(0xC0FFEEull + static_cast<std::uint64_t>(tid));
    ThreadResult t;
    const long n = share(r.pairs, threads, tid);
    long i = 0;
    gate.arrive_and_wait();
    for (; i < n && !gate.stopped(); ++i) {
      const Item v = (static_cast<Item>(tid + 1) << 40) | static_cast<Item>(i);
      if (!a->put(h, v)) {
        t.full = true;
        break;
      }
      t.sum_in += mix(v);
      ++t.in;
      local_work(local_work_draw(rng, w));
      Item got = 0;
      if (!a->take(h, got)) {  // after our own put: never empty if linearizable
        t.empty = true;
        break;
      }
      t.sum_out += mix(got);
      ++t.out;
      local_work(local_work_draw(rng, w));
    }
    gate.finish(i);
    res[static_cast<std::size_t>(tid)] = t;
  };
  const Timed run = ults ? run_ults(r.cores, r.per_core, body) : run_threads(r.cores, r.per_core, body);
  ws::CombiningStats during{};
  if constexpr (requires { a->stats(); }) {
    const ws::CombiningStats after = a->stats();
    during = {after.rounds - before.rounds, after.requests - before.requests};
  }

  bool full = false, empty = false;
  for (const auto& t : res) {
    sum_in += t.sum_in;
    sum_out += t.sum_out;
    in += t.in;
    out += t.out;
    full |= t.full;
    empty |= t.empty;
  }
  if (full) fail(row + ": put failed (full) with at most " + std::to_string(r.prefill + threads) + " items in");
  if (empty) fail(row + ": take found it empty right after the same thread's put (not linearizable)");
  for (Item v = 0; a->take(main_handle, v);) {  // the leftovers (the prefill, if all went well)
    sum_out += mix(v);
    ++out;
  }
  if (out != in || sum_out != sum_in)
    fail(row + ": " + std::to_string(in) + " items in, " + std::to_string(out) +
         " out, checksum " + (sum_out == sum_in ? "equal" : "differs") +
         " (an item was lost or duplicated)");

  Measurement m = with_throughput(run.ns, static_cast<double>(run.ops), "Mpairs/s");
  if constexpr (requires { a->stats(); }) {
    // Every put and take of the run is one request (a queue: on one of its two objects).
    if (during.requests != 2 * static_cast<std::uint64_t>(run.ops))
      fail(row + ": combining stats count " + std::to_string(during.requests) + " requests, " +
           std::to_string(2 * run.ops) + " were made");
    m.extra.push_back({"degree", "requests/round", during.degree(), true});
  }
  add_switch_profile(m, run, 2.0 * static_cast<double>(run.ops));
  return m;
}

template <class A>
std::function<Measurement(const ContainerRun&)> on_ults(std::string name) {
  return [name](const ContainerRun& r) {
    return container_run<A>(name + "-x" + std::to_string(r.per_core), r, true);
  };
}
template <class A>
std::function<Measurement(const ContainerRun&)> on_threads(std::string name) {
  return [name](const ContainerRun& r) { return container_run<A>(name, r, false); };
}

// PSimQueue-x: SimQueue's two PSim-x instances over a pooled linked list
// (unbounded; an operation copies a few words, never the queue). Handle
// slots for 64 ULTs per core and the run's main handle.
struct PSimQueueA {
  using Queue = ws::PSimQueue<Item>;
  using Handle = Queue::Handle;
  Queue q{ws::PSimConfig{.max_handles = 64 * static_cast<std::size_t>(bench_cores()) + 1}};
  Handle handle() { return q.handle(); }
  bool put(Handle& h, Item v) {
    q.enqueue(h, v);
    return true;
  }
  bool take(Handle& h, Item& out) {
    const std::optional<Item> r = q.dequeue(h);
    if (r) out = *r;
    return r.has_value();
  }
  ws::CombiningStats stats() { return q.stats(); }
};

// PSimStack-x: one PSim-x instance over a bounded inline stack, so every
// attempt copies the live elements: capacity 16384 holds any prefill.
constexpr std::size_t kPSimCapacity = 16384;
template <class C>
struct PSimSized : C {
  explicit PSimSized(std::size_t capacity)
      : C(capacity, ws::PSimConfig{.max_handles = 64 * static_cast<std::size_t>(bench_cores()) + 1}) {}
};
using PSimStackA = HandleContainer<PSimSized<ws::PSimStack<Item, kPSimCapacity>>, kPSimCapacity>;

template <template <class> class Combiner>
using CombQueue = HandleContainer<ws::CombiningQueue<Item, Combiner>>;
template <template <class> class Combiner>
using CombStack = HandleContainer<ws::CombiningStack<Item, Combiner>>;

}  // namespace

// One line per implementation: {name, on_ults<Adapter>(name) or {},
// on_threads<Adapter>(name) or {}}.
const std::vector<ContainerImpl>& queue_impls() {
  static const std::vector<ContainerImpl> v = {
      {"OsciQueue", on_ults<CombQueue<OsciYield>>("OsciQueue"), {}},  // first: the "weft" row
      {"PSimQueue", on_ults<PSimQueueA>("PSimQueue"), {}},
      {"CC-Queue", on_ults<CombQueue<CCSynchYield>>("CC-Queue"), on_threads<CombQueue<CCSynchSpin>>("CC-Queue")},
      {"tbb::concurrent_queue", {}, on_threads<TbbQueue>("tbb::concurrent_queue")},
      {"boost::lockfree::queue", {}, on_threads<BoostQueue>("boost::lockfree::queue")},
      {"MS queue", {}, on_threads<MsQueueA>("MS queue")},
      {"mutex+deque", {}, on_threads<MutexDeque>("mutex+deque")},
  };
  return v;
}

const std::vector<ContainerImpl>& stack_impls() {
  static const std::vector<ContainerImpl> v = {
      {"OsciStack", on_ults<CombStack<OsciYield>>("OsciStack"), {}},  // first: the "weft" row
      {"PSimStack", on_ults<PSimStackA>("PSimStack"), {}},
      {"CC-Stack", on_ults<CombStack<CCSynchYield>>("CC-Stack"), on_threads<CombStack<CCSynchSpin>>("CC-Stack")},
      {"boost::lockfree::stack", {}, on_threads<BoostStack>("boost::lockfree::stack")},
      {"Treiber stack", {}, on_threads<TreiberA>("Treiber stack")},
      {"mutex+vector", {}, on_threads<MutexVector>("mutex+vector")},
  };
  return v;
}

namespace {

template <class Seq, class Put, class Take>
Measurement sequential_ideal(const ContainerRun& r, const char* what, Put put, Take take) {
  Timed run;
  bool ok = true;
  run_pinned([&] {
    Seq seq(kCapacity);
    for (long i = 0; i < r.prefill; ++i) ok &= put(seq, static_cast<Item>(i));
    Rng rng(0xC0FFEEull);
    const std::uint64_t w = static_cast<std::uint64_t>(r.w);
    const long pairs = r.pairs / r.cores;  // one core's share
    Item sink = 0;
    const double t0 = now_ns();
    long i = 0;
    for (; i < pairs; ++i) {
      if ((i & 1023) == 0 && now_ns() - t0 >= kRunCapNs) break;
      ok &= put(seq, static_cast<Item>(i));
      local_work(local_work_draw(rng, w));
      Item v = 0;
      ok &= take(seq, v);
      sink += v;
      local_work(local_work_draw(rng, w));
    }
    run = {now_ns() - t0, i};
    benchmark::DoNotOptimize(sink);
  });
  if (!ok) fail(std::string("ideal: the sequential ") + what + " went wrong");
  return with_throughput(run.ns / r.cores, static_cast<double>(run.ops), "Mpairs/s");
}

}  // namespace

Measurement queue_ideal(const ContainerRun& r) {
  return sequential_ideal<ws::BoundedQueue<Item>>(
      r, "queue", [](auto& q, Item v) { return q.enqueue(v); }, [](auto& q, Item& v) { return q.dequeue(v); });
}

Measurement stack_ideal(const ContainerRun& r) {
  return sequential_ideal<ws::BoundedStack<Item>>(
      r, "stack", [](auto& s, Item v) { return s.push(v); }, [](auto& s, Item& v) { return s.pop(v); });
}

}  // namespace weft::bench::combining
