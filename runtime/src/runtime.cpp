// A Runtime's life: start-up (workers, placement, steal order), shutdown, the
// registry of live runtimes, and spawn submission.

#include "weft/runtime/runtime.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
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

// Topology loaders still running. They are detached, so a runtime's shutdown
// does not wait for them, but the process does, at exit: hwloc may be inside
// another library (libX11, through its display plugins) whose destructors run
// after the atexit handlers, and a loader still in there would race with them.
// Never destroyed: a loader may finish during static destruction.
struct RunningLoaders {
  std::mutex mutex;
  std::condition_variable done;
  int count = 0;
};
RunningLoaders& running_loaders() {
  static auto* loaders = new RunningLoaders;
  return *loaders;
}
void wait_for_topology_loaders() {
  RunningLoaders& l = running_loaders();
  std::unique_lock lock(l.mutex);
  l.done.wait(lock, [&l] { return l.count == 0; });
}
// Counts one loader thread from its start to its end.
class LoaderTicket {
 public:
  LoaderTicket() {
    static const bool registered = std::atexit(wait_for_topology_loaders) == 0;
    (void)registered;
    std::lock_guard lock(running_loaders().mutex);
    ++running_loaders().count;
  }
  LoaderTicket(LoaderTicket&& other) noexcept : owns_(std::exchange(other.owns_, false)) {}
  LoaderTicket& operator=(LoaderTicket&&) = delete;
  ~LoaderTicket() {
    if (!owns_) return;
    RunningLoaders& l = running_loaders();
    std::lock_guard lock(l.mutex);
    if (--l.count == 0) l.done.notify_all();
  }

 private:
  bool owns_ = true;
};
}  // namespace

// The loader thread and the runtime share this; whichever is left last frees it.
struct RuntimeImpl::TopologyLoad {
  std::mutex mutex;
  RuntimeImpl* runtime;  // null once the runtime has stopped
};

RuntimeImpl::RuntimeImpl(const Config& config, Runtime* owner_object)
    : owner(owner_object), config_(Config::from_env(config)) {
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
  for (int i = 0; i < config_.workers; ++i) {
    const int cpu = cpus[static_cast<std::size_t>(i)];
    const int node = config_.pin_workers ? sched::os_node_of_cpu(cpu) : -1;
    workers_.emplace_back(new (Worker::OnNode{node}) Worker(this, i, cpu, node));
  }
  // The steal order wants the machine model. hwloc takes milliseconds to load
  // (`weft-bench startup`), so unless it is already loaded (an earlier
  // Runtime, a placement policy, a topology file), the workers start with a
  // round-robin order and a helper thread installs the topology's order.
  const bool load_later = steal_order_uses_topology(cpus) && !machine_topology_loaded(config_.topology_file);
  set_steal_orders(load_later ? round_robin_orders_with_distances(config_.workers)
                              : steal_orders_with_distances(config_, cpus));
  retain_overflow_handler();
  for (auto& w : workers_) w->start();
  if (load_later) start_topology_loader(std::move(cpus));
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
}

void RuntimeImpl::start_topology_loader(std::vector<int> cpus) {
  topology_load_ = std::make_shared<TopologyLoad>();
  topology_load_->runtime = this;
  // Detached: a runtime that stops first only tells it so (shutdown()); the
  // machine model it loads stays cached for the process (steal_order.cpp).
  // The process waits for it at exit (LoaderTicket).
  std::thread([ticket = LoaderTicket{}, load = topology_load_, config = config_, cpus = std::move(cpus)] {
    // SCHED_IDLE: the load must not take a CPU from a worker that wakes up
    // (with normal priority it delayed the first tasks by milliseconds).
    sched_param idle{};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
    try {
      auto orders = steal_orders_with_distances(config, cpus);
      std::lock_guard lock(load->mutex);
      if (load->runtime) load->runtime->set_steal_orders(orders);
    } catch (const std::exception& e) {
      std::lock_guard lock(load->mutex);
      if (load->runtime)
        std::fprintf(stderr, "weft: no topology for the steal order (%s); workers steal round-robin\n", e.what());
    }
  }).detach();
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
  if (topology_load_) {
    std::lock_guard lock(topology_load_->mutex);
    topology_load_->runtime = nullptr;  // the loader may finish later; it will not touch us
  }
  stopping.store(true, std::memory_order_seq_cst);
  for (auto& w : workers_) w->wake_up();
  for (auto& w : workers_) w->join_thread();
  trace_runtime_stopped(*this);
  if (config_.print_stats) std::fprintf(stderr, "weft: statistics at shutdown\n%s", stats().to_string().c_str());
}

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

Stats RuntimeImpl::stats() const {
  Stats s;
  for (auto& w : workers_) s.workers.push_back(w->stats());
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
  int target = pinned >= 0 ? pinned
                           : static_cast<int>(rt->round_robin.fetch_add(1, std::memory_order_relaxed) %
                                              static_cast<std::uint32_t>(rt->num_workers()));
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
