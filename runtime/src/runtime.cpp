// Runtime start-up and shutdown, and the entry points the public headers use:
// spawn submission, join, park/unpark, this_ult.

#include "weft/runtime/runtime.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "futex.hpp"
#include "stack_overflow.hpp"
#include "steal_order.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/sched/cpuset.hpp"
#include "worker.hpp"

namespace weft {
namespace detail {

namespace {

std::mutex registry_mutex;
std::vector<RuntimeImpl*> live_runtimes;  // most recent last

std::vector<int> choose_cpus(Config& config) {
  std::vector<int> allowed = sched::allowed_cpus();
  auto allowed_text = [&] {
    std::string s;
    for (int c : allowed) s += (s.empty() ? "" : ",") + std::to_string(c);
    return s;
  };
  if (config.workers < 0)
    throw std::invalid_argument("weft: Config::workers = " + std::to_string(config.workers) +
                                " is negative (0 means one worker per allowed CPU)");
  if (!config.cpus.empty()) {
    if (config.workers == 0) config.workers = static_cast<int>(config.cpus.size());
    if (static_cast<int>(config.cpus.size()) != config.workers)
      throw std::invalid_argument("weft: Config::cpus lists " + std::to_string(config.cpus.size()) +
                                  " CPUs but Config::workers is " + std::to_string(config.workers));
    for (int cpu : config.cpus)
      if (config.pin_workers && std::find(allowed.begin(), allowed.end(), cpu) == allowed.end())
        throw std::invalid_argument("weft: Config::cpus names CPU " + std::to_string(cpu) +
                                    ", which this process may not run on (allowed: " +
                                    allowed_text() + ")");
    return config.cpus;
  }
  if (config.workers == 0) config.workers = sched::default_worker_count();
  if (config.workers > static_cast<int>(allowed.size())) {
    if (config.pin_workers)
      throw std::invalid_argument(
          "weft: Config::workers = " + std::to_string(config.workers) + " but only " +
          std::to_string(allowed.size()) + " CPUs are allowed to this process (" + allowed_text() +
          "); use fewer workers, or set pin_workers = false (WEFT_PIN=0) to oversubscribe");
    std::vector<int> cpus(static_cast<std::size_t>(config.workers), -1);
    return cpus;
  }
  return place_workers(config, allowed);
}

}  // namespace

RuntimeImpl::RuntimeImpl(const Config& config, Runtime* owner_object)
    : owner(owner_object), config_(Config::from_env(config)) {
  if (config_.stack_size < 16 * 1024)
    throw std::invalid_argument("weft: Config::stack_size = " + std::to_string(config_.stack_size) +
                                " bytes is too small (at least 16K)");
  if (config_.idle_spin_us < 0)
    throw std::invalid_argument("weft: Config::idle_spin_us must not be negative");
  std::vector<int> cpus = choose_cpus(config_);
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
  set_steal_orders(load_later ? round_robin_orders(config_.workers) : steal_orders(config_, cpus));
  retain_overflow_handler();
  for (auto& w : workers_) w->start();
  if (load_later)
    topology_loader_ = std::thread([this, cpus] {
      // SCHED_IDLE: the load must not take a CPU from a worker that wakes up
      // (with normal priority it delayed the first tasks by milliseconds).
      sched_param idle{};
      pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
      try {
        set_steal_orders(steal_orders(config_, cpus));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "weft: no topology for the steal order (%s); workers steal round-robin\n", e.what());
      }
    });
  std::lock_guard lock(registry_mutex);
  live_runtimes.push_back(this);
}

void RuntimeImpl::set_steal_orders(const std::vector<std::vector<int>>& orders) {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    std::vector<Worker*> victims;
    for (int j : orders[i]) victims.push_back(workers_[static_cast<std::size_t>(j)].get());
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
    std::lock_guard lock(registry_mutex);
    live_runtimes.erase(std::remove(live_runtimes.begin(), live_runtimes.end(), this), live_runtimes.end());
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
  stopping.store(true, std::memory_order_seq_cst);
  for (auto& w : workers_) w->wake_up();
  for (auto& w : workers_) w->join_thread();
  if (topology_loader_.joinable()) topology_loader_.join();
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
  return s;
}

// ------------------------------------------------------------ entry points

RuntimeImpl* current_runtime_or_throw() {
  if (tls_worker) return tls_worker->runtime();
  std::lock_guard lock(registry_mutex);
  if (live_runtimes.empty())
    throw std::logic_error("weft::spawn called outside a ULT while no weft::Runtime is running; "
                           "construct a weft::Runtime first (or use Runtime::spawn)");
  return live_runtimes.back();
}

void check_worker_index(RuntimeImpl* rt, int pinned_worker) {
  if (pinned_worker < -1 || pinned_worker >= rt->num_workers())
    throw std::out_of_range("weft::spawn_on: worker " + std::to_string(pinned_worker) +
                            " does not exist (this runtime has workers 0.." +
                            std::to_string(rt->num_workers() - 1) + ")");
}

Task* allocate_task() {
  if (Worker* w = tls_worker) return w->allocate_task_block();
  return ::new (::operator new(kTaskBlockBytes, std::align_val_t{64})) Task{};
}

void free_task_block(Task* t) {
  t->~Task();
  if (Worker* w = tls_worker) {
    w->free_task_block(t);
    return;
  }
  ::operator delete(static_cast<void*>(t), std::align_val_t{64});
}

void submit_new(Task* t, RuntimeImpl* rt, int pinned) {
  t->pinned = pinned;
  t->runtime = rt;
  t->refs.store(2, std::memory_order_relaxed);  // the handle and the queue entry
  t->claim.store(pinned >= 0 ? 1 : 0, std::memory_order_relaxed);
  t->runner_ref = pinned >= 0;
  Worker* w = tls_worker;
  if (w && w->runtime() == rt) {
    t->id = w->next_id();
    ++w->spawned;
    if (pinned < 0) {
      w->push_new(t);
    } else if (pinned == w->index()) {
      t->home = w;
      w->make_ready(t);
    } else {
      t->home = &rt->worker(pinned);
      t->home->enqueue_remote(t);
    }
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

// The Task that stands for a plain (non-worker) thread when it blocks.
struct ExternalThread {
  Task* task;
  ExternalThread() : task(::new (::operator new(kTaskBlockBytes, std::align_val_t{64})) Task{}) {
    task->kind = TaskKind::external;
    task->refs.store(1, std::memory_order_relaxed);
  }
  ~ExternalThread() { release(task, 1); }
};

Task* current_task() {
  if (Worker* w = tls_worker) return w->current();
  thread_local ExternalThread self;
  return self.task;
}

void report_detached_exception(Task* t) {
  try {
    std::rethrow_exception(t->error);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft: ULT #%llu ended with an exception nobody joined: %s\n",
                 static_cast<unsigned long long>(t->id), e.what());
  } catch (...) {
    std::fprintf(stderr, "weft: ULT #%llu ended with a non-standard exception nobody joined\n",
                 static_cast<unsigned long long>(t->id));
  }
}

void release(Task* t, std::uint32_t n) {
  // Holding every reference means nobody else can touch it: skip the RMW.
  if (t->refs.load(std::memory_order_acquire) != n &&
      t->refs.fetch_sub(n, std::memory_order_acq_rel) != n)
    return;
  if (t->kind == TaskKind::external) {
    t->~Task();
    ::operator delete(static_cast<void*>(t), std::align_val_t{64});
    return;
  }
  if (t->error) report_detached_exception(t);
  if (t->drop_payload) t->drop_payload(t);
  free_task_block(t);
}

void retain(Task* t) { t->refs.fetch_add(1, std::memory_order_relaxed); }

}  // namespace detail

// ------------------------------------------------------------ park / unpark

namespace detail {
// park() for a plain thread: a futex on its stand-in task's wake word.
void park_external() {
  Task* self = current_task();
  if (self->wake.exchange(0, std::memory_order_acq_rel) == 1) return;
  std::uint32_t expected = 0;
  if (!self->wake.compare_exchange_strong(expected, 2, std::memory_order_acq_rel)) {
    self->wake.store(0, std::memory_order_relaxed);  // an unpark slipped in
    return;
  }
  while (self->wake.load(std::memory_order_acquire) == 2) futex_wait(&self->wake, 2);
  self->wake.store(0, std::memory_order_relaxed);
}

bool park_external_until(std::chrono::steady_clock::time_point deadline) {
  Task* self = current_task();
  if (self->wake.exchange(0, std::memory_order_acq_rel) == 1) return true;
  std::uint32_t expected = 0;
  if (!self->wake.compare_exchange_strong(expected, 2, std::memory_order_acq_rel)) {
    self->wake.store(0, std::memory_order_relaxed);  // an unpark slipped in
    return true;
  }
  while (self->wake.load(std::memory_order_acquire) == 2) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) {
      std::uint32_t parked = 2;
      if (self->wake.compare_exchange_strong(parked, 0, std::memory_order_acq_rel)) return false;
      break;  // unparked just now
    }
    futex_wait(&self->wake, 2, std::chrono::duration_cast<std::chrono::nanoseconds>(left));
  }
  self->wake.store(0, std::memory_order_relaxed);
  return true;
}
}  // namespace detail

void unpark(UltRef ref) {
  using namespace detail;
  auto* t = static_cast<Task*>(ref.raw());
  if (t->kind == TaskKind::external) {
    if (t->wake.exchange(1, std::memory_order_acq_rel) == 2) futex_wake(&t->wake, 1);
    return;
  }
  std::uint32_t v = t->wake.load(std::memory_order_acquire);
  for (;;) {
    if (v == 1) return;  // a token is already pending
    if (v == 0) {
      if (t->wake.compare_exchange_weak(v, 1, std::memory_order_acq_rel)) return;
      continue;
    }
    if (t->wake.compare_exchange_weak(v, 0, std::memory_order_acq_rel)) break;  // parked: ours to resume
  }
  Worker* home = t->home;
  if (tls_worker == home)
    home->make_ready(t);
  else
    home->enqueue_remote(t);
}

namespace this_ult {

void sleep_for(std::chrono::nanoseconds d) {
  detail::Worker* w = detail::tls_worker;
  if (!w) {
    std::this_thread::sleep_for(d);
    return;
  }
  detail::TimerEntry entry{std::chrono::steady_clock::now() + d, w->current()};
  w->add_timer(&entry);
  while (!entry.fired) park();
}

bool inside() { return detail::tls_worker != nullptr; }
int worker_index() { return detail::tls_worker ? detail::tls_worker->index() : -1; }
int num_workers() { return detail::tls_worker ? detail::tls_worker->runtime()->num_workers() : 0; }
std::uint64_t id() { return detail::tls_worker ? detail::tls_worker->current()->id : 0; }
UltRef ref() { return UltRef(detail::current_task()); }

}  // namespace this_ult

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

Runtime* Runtime::current() {
  if (detail::tls_worker) return detail::tls_worker->runtime()->owner;
  std::lock_guard lock(detail::registry_mutex);
  return detail::live_runtimes.empty() ? nullptr : detail::live_runtimes.back()->owner;
}
void Runtime::shutdown() { impl_->shutdown(); }

}  // namespace weft
