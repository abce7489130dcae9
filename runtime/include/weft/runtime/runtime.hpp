#pragma once
// Runtime: starts the workers (one pinned kernel thread per core) on
// construction and stops them on destruction. Construct one in main(), spawn
// ULTs onto it, and let it go out of scope:
//
//   weft::Runtime rt;                        // Config{} + WEFT_* overrides
//   int v = rt.run([] { return 6 * 7; });    // runs a ULT, waits for it
//
// Destruction (or shutdown()) waits until every ULT, detached ones included,
// has finished. ULTs that stay blocked with nothing left that could wake them
// (all workers asleep, no timers, for one second) are reported on stderr and
// abandoned, so a deadlocked program still exits.

#include <memory>
#include <utility>
#include <vector>

#include "weft/runtime/config.hpp"
#include "weft/runtime/future.hpp"
#include "weft/runtime/stats.hpp"
#include "weft/runtime/ult.hpp"

namespace weft {
namespace sched {
class Topology;
}

class Runtime {
 public:
  // `config`, then every WEFT_* environment variable that is set, applied on
  // top. Throws std::invalid_argument naming the bad setting (worker count
  // impossible here, unknown CPU, bad environment value).
  explicit Runtime(Config config = Config{});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  int num_workers() const;
  // The configuration in force (after environment overrides).
  const Config& config() const;
  // OS CPU each worker runs on (-1 where not pinned).
  std::vector<int> worker_cpus() const;
  // The machine model this runtime places its workers by: Config::topology_file
  // when set, else hwloc's view of this machine (loaded on first use, which
  // takes milliseconds; later calls return at once).
  const sched::Topology& topology() const;

  // The runtime of the calling ULT; on a plain thread, the most recently
  // started live Runtime (where weft::spawn would go); null when none is alive.
  static Runtime* current();

  // A stealable ULT (starts on some worker; idle workers may take it).
  template <class F>
  Ult<ult_result_t<F>> spawn(F&& f) {
    return detail::make_ult<ult_result_t<F>>(std::forward<F>(f), impl_.get(), -1);
  }
  // A ULT pinned to worker `worker`; never stolen.
  template <class F>
  Ult<ult_result_t<F>> spawn_on(int worker, F&& f) {
    return detail::make_ult<ult_result_t<F>>(std::forward<F>(f), impl_.get(), worker);
  }
  template <class F>
  Future<ult_result_t<F>> async(F&& f) {
    return Future<ult_result_t<F>>(spawn(std::forward<F>(f)));
  }
  // Runs f on a ULT and waits for it: the way in from a plain thread.
  template <class F>
  ult_result_t<F> run(F&& f) {
    return spawn(std::forward<F>(f)).join();
  }
  // The same four, with a name for the ULT's slices in a trace (trace.hpp).
  template <class F>
  Ult<ult_result_t<F>> spawn(label name, F&& f) {
    return detail::make_ult<ult_result_t<F>>(std::forward<F>(f), impl_.get(), -1, detail::label_id(name));
  }
  template <class F>
  Ult<ult_result_t<F>> spawn_on(int worker, label name, F&& f) {
    return detail::make_ult<ult_result_t<F>>(std::forward<F>(f), impl_.get(), worker, detail::label_id(name));
  }
  template <class F>
  Future<ult_result_t<F>> async(label name, F&& f) {
    return Future<ult_result_t<F>>(spawn(name, std::forward<F>(f)));
  }
  template <class F>
  ult_result_t<F> run(label name, F&& f) {
    return spawn(name, std::forward<F>(f)).join();
  }

  // With Config::hosted_worker: runs f as a ULT on worker 0 and lends that
  // worker the calling thread until f has finished, then returns f's result
  // (or rethrows its exception). Meanwhile the thread runs whatever worker 0
  // has to run, as any worker does: f, the ULTs f spawns that nobody steals,
  // work it steals from the others. So f and every ULT it starts on worker 0
  // run on the caller's kernel thread (its thread-local storage), and the
  // caller's CPU does a worker's share instead of waiting.
  //
  // Worker 0 runs only inside host(), and host() returns as soon as f has
  // finished: a ULT pinned to worker 0, or started there and not finished
  // with f, goes on in a later host() once worker 0 gets to it (f yields or
  // waits), or at shutdown, on a thread the runtime then starts for it.
  // Only one thread may ever host (a ULT never changes kernel thread), one
  // call at a time, and never from a ULT: each is a std::logic_error, as is
  // a runtime without Config::hosted_worker.
  template <class F>
  ult_result_t<F> host(F&& f) {
    HostLease lease(*this);  // the thread is worker 0's from here: f's block comes from its pool
    Ult<ult_result_t<F>> u = spawn_on(0, std::forward<F>(f));
    run_hosted(u.task_);
    return u.join();  // f has finished: no wait
  }

  Stats stats() const;
  // Waits for all ULTs and stops the workers; idempotent. Must not be called
  // from one of this runtime's own ULTs (that would wait for itself).
  void shutdown();

 private:
  // host()'s claim on worker 0: the calling thread is that worker's until
  // host() returns.
  struct HostLease {
    explicit HostLease(Runtime& rt);
    ~HostLease();
    HostLease(const HostLease&) = delete;
    HostLease& operator=(const HostLease&) = delete;
    Runtime& rt;
  };
  void run_hosted(detail::TaskBase* target);

  std::unique_ptr<detail::RuntimeImpl> impl_;
};

// Gives the memory of every cached, unused ULT stack back to the system now
// (their address space stays reserved for reuse). Idle workers do the same by
// themselves for stacks left unused for a second or two; this is for a
// program that wants the memory back at once, e.g. after a burst of ULTs
// when no runtime will go idle for a while. Stacks a live runtime's workers
// keep at hand (Config::stack_pool_limit each) are not touched.
void release_unused_stacks();

}  // namespace weft
