// A Runtime's life: start-up (workers, placement, steal order), shutdown, the
// registry of live runtimes, and spawn submission.

#include "weft/runtime/runtime.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "futex.hpp"
#include "runtime_impl.hpp"
#include "stack_overflow.hpp"
#include "machine_topology.hpp"
#include "steady_ns.hpp"
#include "steal_order.hpp"
#include "trace_session.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/sched/cpuset.hpp"
#include "weft/sched/numa_memory.hpp"
#include "worker.hpp"
#include "worker_placement.hpp"

namespace weft {
namespace detail {

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::vector<RuntimeImpl*>& live_runtimes() {
  static std::vector<RuntimeImpl*> runtimes;
  return runtimes;
}

namespace {
// Config::max_ults = 0: physical memory / 8 KiB, and no more stacks than fit
// in 2^46 bytes of address space.
std::uint64_t default_ult_limit(const Config& config) {
  const auto pages = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES));
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  const std::uint64_t by_memory = pages * page / 8192;
  const std::uint64_t per_stack = 2 * ((config.stack_size + page - 1) / page * page) + page;
  const std::uint64_t by_address_space = (std::uint64_t{1} << 46) / per_stack;
  return std::max<std::uint64_t>(1, std::min(by_memory, by_address_space));
}

// The machine model for the steal order, loaded in the background (see the
// constructor) by one detached thread at a time, which serves every runtime
// that asked while it was pending. It first waits kTopologyLoadDelay: a
// program that ends sooner never loads hwloc (a 16-worker cold process took
// 8.9 ms against oneTBB's 2.9 on a 16-core machine, most of it its exit
// waiting for a 4.5 ms hwloc load). The
// process waits at exit only for a load already under way: hwloc may then be
// inside another library (libX11, through its display plugins) whose
// destructors run after the atexit handlers. Never destroyed: the thread may
// outlive static destruction's start.
class TopologyOrderLoader {
 public:
  static TopologyOrderLoader& instance() {
    static auto* loader = new TopologyOrderLoader;
    return *loader;
  }

  // `rt` wants the topology's steal order for `cpus` once it is loaded.
  // Starts the loader's thread unless it runs or is promised.
  void request(RuntimeImpl* rt, const Config& config, std::vector<int> cpus) {
    std::lock_guard lock(mutex_);
    pending_.push_back({rt, config, std::move(cpus)});
    if (!running_ && !promised_) start_locked();
  }

  // A runtime about to create worker threads lets one of them start the
  // loader's thread (start_promised, through WorkerThreads): creating it
  // on the constructor's path cost a 16-worker cold start 50-100 us
  // (bench/results/16core-2026-11-27b.md); the thread first waits
  // kTopologyLoadDelay anyway.
  void promise() {
    std::lock_guard lock(mutex_);
    if (!running_) promised_ = true;
  }
  static void start_promised() {
    TopologyOrderLoader& l = instance();
    std::lock_guard lock(l.mutex_);
    if (!l.promised_) return;
    l.promised_ = false;
    if (!l.running_ && !l.exiting_) l.start_locked();
  }

  // `rt` is stopping: its order is never installed (after this returns, the
  // loader no longer touches it).
  void withdraw(RuntimeImpl* rt) {
    std::lock_guard lock(mutex_);
    std::erase_if(pending_, [rt](const Request& r) { return r.runtime == rt; });
  }

 private:
  static constexpr auto kTopologyLoadDelay = std::chrono::milliseconds(20);
  struct Request {
    RuntimeImpl* runtime;
    Config config;
    std::vector<int> cpus;
  };

  void start_locked() {
    static const bool registered = std::atexit(&TopologyOrderLoader::at_exit) == 0;
    (void)registered;
    running_ = true;
    std::thread([this] { run(); }).detach();
  }

  void run() {
    // SCHED_IDLE: the load must not take a CPU from a worker that wakes up
    // (with normal priority it delayed the first tasks by milliseconds).
    sched_param idle{};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
    std::this_thread::sleep_for(kTopologyLoadDelay);  // the exit does not wake it (at_exit)
    std::unique_lock lock(mutex_);
    working_ = !exiting_;
    if (!exiting_) {
      // Loaded even when every runtime that asked has stopped: a process that
      // lives this long is likely to start more, and they find it loaded.
      const std::string file = pending_.empty() ? std::string() : pending_.front().config.topology_file;
      lock.unlock();
      try {
        (void)machine_topology(file);
      } catch (const std::exception&) {
        // reported below, to a runtime that still wants the order
      }
      lock.lock();
    }
    while (!pending_.empty() && !exiting_) {
      const Request r = pending_.front();
      lock.unlock();
      std::string error;
      StealOrders orders;
      try {
        orders = steal_orders_with_distances(r.config, r.cpus);  // the model is loaded by now (or fails again)
      } catch (const std::exception& e) {
        error = e.what();
      }
      lock.lock();
      auto still = std::find_if(pending_.begin(), pending_.end(), [&](const Request& p) { return p.runtime == r.runtime; });
      if (still == pending_.end()) continue;  // withdrawn meanwhile
      if (error.empty())
        r.runtime->set_steal_orders(orders);
      else
        std::fprintf(stderr, "weft: no topology for the steal order (%s); workers steal round-robin\n", error.c_str());
      pending_.erase(still);
    }
    running_ = false;
    working_ = false;
    done_.notify_all();
  }

  // Waits only for a thread past its delay (loading, or installing orders).
  // One still in it is left asleep: the process's exit ends it there, and if
  // it wakes first (a long exit) it sees exiting_ and ends without touching
  // hwloc. Waiting for it to wake took a thread's wake-up from every short
  // program's exit, and so did waking it: on its way out it mapped a malloc
  // arena beside the exit (strace, bench/results/16core-2026-11-27c.md).
  static void at_exit() {
    TopologyOrderLoader& l = instance();
    std::unique_lock lock(l.mutex_);
    l.exiting_ = true;
    l.done_.wait(lock, [&l] { return !l.running_ || !l.working_; });
  }

  std::mutex mutex_;
  std::condition_variable done_;  // the thread is done
  std::vector<Request> pending_;
  bool running_ = false;
  bool promised_ = false;  // a worker thread will start the thread (start_promised)
  bool working_ = false;   // the thread is past its delay
  bool exiting_ = false;
};
}  // namespace

RuntimeImpl::RuntimeImpl(const Config& config, Runtime* owner_object)
    : owner(owner_object), config_(Config::from_env(config)), constructed_at_ns_(steady_ns()) {
  if (config_.stack_size < 16 * 1024)
    throw std::invalid_argument("weft: Config::stack_size = " + std::to_string(config_.stack_size) +
                                " bytes is too small (at least 16K)");
  if (config_.idle_spin_us < 0)
    throw std::invalid_argument("weft: Config::idle_spin_us must not be negative");
  if (config_.max_ults < 0)
    throw std::invalid_argument("weft: Config::max_ults = " + std::to_string(config_.max_ults) +
                                " is negative (0 means derived from this machine's memory)");
  ult_limit_ = config_.max_ults > 0 ? static_cast<std::uint64_t>(config_.max_ults) : default_ult_limit(config_);
  std::vector<int> cpus = worker_cpus_for(config_);
  if (config_.hosted_worker && config_.workers < 2)
    throw std::invalid_argument("weft: Config::hosted_worker needs at least 2 workers (this configuration has " +
                                std::to_string(config_.workers) + "): worker 0 runs only inside Runtime::host");
  // The workers' threads first: new ones come up (in parallel) while the
  // workers are constructed, which on 16 CPUs took as long as creating them
  // (bench/results/16core-2026-11-27b.md).
  std::vector<int> thread_cpus;
  for (int i = config_.hosted_worker ? 1 : 0; i < config_.workers; ++i)
    thread_cpus.push_back(config_.pin_workers ? cpus[static_cast<std::size_t>(i)] : -1);
  // The steal order wants the machine model. hwloc takes milliseconds to load
  // (`weft-bench startup`), so unless it is already loaded (an earlier
  // Runtime, a placement policy, a topology file), the workers start with a
  // round-robin order and a helper thread installs the topology's order.
  const bool load_later = steal_order_uses_topology(cpus) && !machine_topology_loaded(config_.topology_file);
  if (load_later) TopologyOrderLoader::instance().promise();
  WorkerThreads threads(thread_cpus, load_later ? &TopologyOrderLoader::start_promised : nullptr);
  startup_.threads_taken_ns = steady_ns() - constructed_at_ns_;
  for (int i = 0; i < config_.workers; ++i) {
    const int cpu = cpus[static_cast<std::size_t>(i)];
    const int node = config_.pin_workers ? sched::os_node_of_cpu(cpu) : -1;
    workers_.emplace_back(new (Worker::OnNode{node}) Worker(this, i, cpu, node));
  }
  startup_.workers_built_ns = steady_ns() - constructed_at_ns_;
  set_steal_orders(load_later ? round_robin_orders_with_distances(config_.workers)
                              : steal_orders_with_distances(config_, cpus));
  retain_overflow_handler();
  if (config_.hosted_worker) workers_[0]->become_hosted();
  for (std::size_t i = config_.hosted_worker ? 1 : 0, t = 0; i < workers_.size(); ++i, ++t)
    threads.start(t, workers_[i].get());
  startup_.workers_handed_ns = steady_ns() - constructed_at_ns_;
  if (load_later) {
    TopologyOrderLoader::instance().request(this, config_, std::move(cpus));
    topology_requested_ = true;
  }
  try {
    trace_runtime_started(*this, [](RuntimeImpl& rt) {
      std::lock_guard lock(registry_mutex());
      live_runtimes().push_back(&rt);
    });
  } catch (...) {
    shutdown();  // a bad trace setting: the workers stop again
    release_overflow_handler();
    throw;
  }
  startup_.constructor_ns = steady_ns() - constructed_at_ns_;
}

void RuntimeImpl::set_steal_orders(const StealOrders& orders) {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    Worker::VictimList victims;
    for (int j : orders.victims[i]) victims.workers.push_back(workers_[static_cast<std::size_t>(j)].get());
    victims.distance_class = orders.distance_class[i];
    workers_[i]->set_victims(std::move(victims));
  }
}

RuntimeImpl::~RuntimeImpl() {
  shutdown();
  release_overflow_handler();
}

std::uint64_t RuntimeImpl::live_ults() const {
  // Finished counts first: a ULT spawned after they are read is still counted
  // as live, so zero really means quiescent.
  std::uint64_t finished = 0, spawned = 0;
  for (auto& w : workers_) finished += w->finished.get();
  spawned = external_spawns.load(std::memory_order_acquire);
  for (auto& w : workers_) spawned += w->spawned.get();
  return spawned - finished;
}

void RuntimeImpl::note_finished() {
  quiesce_word.fetch_add(1, std::memory_order_seq_cst);
  futex_wake(&quiesce_word, 1);
}

void RuntimeImpl::shutdown() {
  if (shut_down_) return;
  if (tls_worker && tls_worker->runtime() == this) {
    std::fprintf(stderr, "weft: a Runtime was shut down from one of its own ULTs; it would wait for itself\n");
    std::abort();
  }
  shut_down_ = true;
  {
    std::lock_guard lock(registry_mutex());
    auto& live = live_runtimes();
    live.erase(std::remove(live.begin(), live.end(), this), live.end());
  }
  if (config_.hosted_worker) {
    // Worker 0 gets a thread of its own from here on, so that ULTs left
    // there by the last host() call finish too (Runtime::host).
    while (host_claimed_.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
    workers_[0]->start();
  }
  shutdown_waiting.store(true, std::memory_order_seq_cst);
  using clock = std::chrono::steady_clock;
  auto stuck_since = clock::time_point::max();
  while (true) {
    std::uint32_t seq = quiesce_word.load(std::memory_order_seq_cst);
    std::uint64_t live = live_ults();
    if (live == 0) break;
    bool all_asleep = sleepers.load(std::memory_order_seq_cst) == num_workers() &&
                      pending_timers.load(std::memory_order_relaxed) == 0;
    if (!all_asleep) {
      stuck_since = clock::time_point::max();
    } else if (stuck_since == clock::time_point::max()) {
      stuck_since = clock::now();
    } else if (clock::now() - stuck_since > std::chrono::seconds(1)) {
      std::fprintf(stderr,
                   "weft: shutting down with %llu ULT(s) blocked and nothing left to wake them "
                   "(deadlock?); they are abandoned without being unwound\n",
                   static_cast<unsigned long long>(live));
      break;
    }
    futex_wait(&quiesce_word, seq, std::chrono::milliseconds(50));
  }
  if (topology_requested_) TopologyOrderLoader::instance().withdraw(this);
  stopping.store(true, std::memory_order_seq_cst);
  for (auto& w : workers_) w->stop();  // lets go of sleeping workers, wakes the others
  for (auto& w : workers_) w->join_thread();
  trace_runtime_stopped(*this);
  if (config_.print_stats) std::fprintf(stderr, "weft: statistics at shutdown\n%s", stats().to_string().c_str());
}

void RuntimeImpl::begin_hosting() {
  if (!config_.hosted_worker)
    throw std::logic_error("weft::Runtime::host: this runtime has no hosted worker (Config::hosted_worker is off)");
  if (tls_worker)
    throw std::logic_error("weft::Runtime::host called from a ULT: only a plain thread can lend worker 0 its thread");
  if (host_claimed_.exchange(true, std::memory_order_acquire))
    throw std::logic_error("weft::Runtime::host: worker 0 is already hosted (a call under way, or the runtime "
                           "is shutting down)");
  const std::thread::id me = std::this_thread::get_id();
  if (host_thread_ == std::thread::id{}) host_thread_ = me;
  if (host_thread_ != me) {
    host_claimed_.store(false, std::memory_order_release);
    throw std::logic_error("weft::Runtime::host: another thread hosts worker 0 (the ULTs started there keep "
                           "their kernel thread, so one thread only may ever host it)");
  }
}

void RuntimeImpl::end_hosting() { host_claimed_.store(false, std::memory_order_release); }

void RuntimeImpl::wake_idle_worker(const Worker* near) {
  for (Worker* w : near->victims())
    if (w->sleeping()) {
      w->wake_up();
      return;
    }
}

bool RuntimeImpl::any_stealable_work() const {
  for (auto& w : workers_)
    if (w->has_stealable_work()) return true;
  return false;
}

bool RuntimeImpl::any_deque_holds_several() const {
  for (auto& w : workers_)
    if (w->deque_entries() > 1) return true;
  return false;
}

Stats RuntimeImpl::stats() const {
  Stats s;
  for (auto& w : workers_) s.workers.push_back(w->stats());
  s.startup = startup_;
  s.external_spawns = external_spawns.load(std::memory_order_relaxed);
  s.external_unparks = external_unparks.load(std::memory_order_relaxed);
  return s;
}

// ------------------------------------------------------------ spawn submission

RuntimeImpl* current_runtime_or_throw() {
  if (tls_worker) return tls_worker->runtime();
  std::lock_guard lock(registry_mutex());
  if (live_runtimes().empty())
    throw std::logic_error("weft::spawn called outside a ULT while no weft::Runtime is running; "
                           "construct a weft::Runtime first (or use Runtime::spawn)");
  return live_runtimes().back();
}

void check_worker_index(RuntimeImpl* rt, int pinned_worker) {
  if (pinned_worker < -1 || pinned_worker >= rt->num_workers())
    throw std::out_of_range("weft::spawn_on: worker " + std::to_string(pinned_worker) +
                            " does not exist (this runtime has workers 0.." +
                            std::to_string(rt->num_workers() - 1) + ")");
}

namespace {
// A new ULT spawned on worker w (its own): on w's deque, or where it is pinned.
__attribute__((always_inline)) inline void submit_local(Worker* w, Task* t, RuntimeImpl* rt, int pinned) {
  if (pinned < 0) {
    w->push_new(t);
  } else if (pinned == w->index()) {
    t->home = w;
    w->make_ready(t);
  } else {
    t->home = &rt->worker(pinned);
    t->home->enqueue_remote(t);
  }
}
[[gnu::noinline]] void submit_local_traced(Worker* w, Task* t, RuntimeImpl* rt, int pinned) {
  w->trace_spawn(t);
  submit_local(w, t, rt, pinned);
}
}  // namespace

void submit_new(TaskBase* base, RuntimeImpl* rt, int pinned) {
  Task* t = as_task(base);
  t->pinned = static_cast<std::int16_t>(pinned);
  t->runtime = rt;
  t->refs.store(2, std::memory_order_relaxed);  // the handle and the queue entry
  t->claim.store(pinned >= 0 ? 1 : 0, std::memory_order_relaxed);
  t->runner_ref = pinned >= 0;
  Worker* w = tls_worker;
  if (w && w->runtime() == rt) {
    t->id = w->next_id();
    ++w->spawned;
    // A tail call when tracing: the untraced path keeps no frame for it.
    if (w->tracing()) [[unlikely]] return submit_local_traced(w, t, rt, pinned);
    submit_local(w, t, rt, pinned);
    return;
  }
  static std::atomic<std::uint64_t> external_ids{0};
  t->id = external_ids.fetch_add(1, std::memory_order_relaxed) + 1;
  rt->external_spawns.fetch_add(1, std::memory_order_acq_rel);
  // Round robin over the workers that have a thread (a hosted worker 0 may
  // be away for good).
  const int first = rt->config().hosted_worker ? 1 : 0;
  int target = pinned >= 0 ? pinned
                           : first + static_cast<int>(rt->round_robin.fetch_add(1, std::memory_order_relaxed) %
                                                      static_cast<std::uint32_t>(rt->num_workers() - first));
  t->home = &rt->worker(target);
  t->home->enqueue_remote(t);
}

}  // namespace detail

// ------------------------------------------------------------ Runtime

Runtime::Runtime(Config config) : impl_(std::make_unique<detail::RuntimeImpl>(config, this)) {}
Runtime::~Runtime() = default;
int Runtime::num_workers() const { return impl_->num_workers(); }
const Config& Runtime::config() const { return impl_->config(); }
std::vector<int> Runtime::worker_cpus() const {
  std::vector<int> cpus;
  for (int i = 0; i < impl_->num_workers(); ++i)
    cpus.push_back(impl_->config().pin_workers ? impl_->worker(i).os_cpu() : -1);
  return cpus;
}
Stats Runtime::stats() const { return impl_->stats(); }
Runtime::HostLease::HostLease(Runtime& r) : rt(r) {
  rt.impl_->begin_hosting();
  rt.impl_->worker(0).enter_hosted();
}
Runtime::HostLease::~HostLease() {
  rt.impl_->worker(0).leave_hosted();
  rt.impl_->end_hosting();
}
void Runtime::run_hosted(detail::TaskBase* target) { impl_->worker(0).run_hosted(detail::as_task(target)); }
const sched::Topology& Runtime::topology() const { return detail::machine_topology(impl_->config().topology_file); }
void Runtime::shutdown() { impl_->shutdown(); }

void release_unused_stacks() { detail::StackCache::trim_all_depots(); }

Runtime* Runtime::current() {
  if (detail::tls_worker) return detail::tls_worker->runtime()->owner;
  std::lock_guard lock(detail::registry_mutex());
  auto& live = detail::live_runtimes();
  return live.empty() ? nullptr : live.back()->owner;
}

}  // namespace weft
