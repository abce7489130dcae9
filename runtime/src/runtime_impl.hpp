#pragma once
// The shared part of one weft::Runtime (internal): its workers, the counters
// idle workers and shutdown coordinate through, and start-up / shutdown.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "weft/runtime/config.hpp"
#include "weft/runtime/stats.hpp"
#include "weft/sched/cpu.hpp"
#include "steal_order.hpp"
#include "worker.hpp"

namespace weft {
class Runtime;
}

namespace weft::detail {

class RuntimeImpl {
 public:
  RuntimeImpl(const Config& config, Runtime* owner);
  ~RuntimeImpl();

  void shutdown();
  int num_workers() const { return static_cast<int>(workers_.size()); }
  Worker& worker(int i) { return *workers_[static_cast<std::size_t>(i)]; }
  const Config& config() const { return config_; }
  Stats stats() const;
  // steady_clock ns when the constructor began (Stats' start-up times count from it).
  std::uint64_t constructed_at_ns() const { return constructed_at_ns_; }

  // Wakes one sleeping worker if nobody is already looking for work.
  void wake_idle_worker(const Worker* near);
  bool any_stealable_work() const;
  // Whether some deque holds more than one entry (work a thief takes at
  // once; a lone entry it takes only once it settles: Worker::steal).
  bool any_deque_holds_several() const;
  std::uint64_t live_ults() const;
  std::uint64_t ult_limit() const { return ult_limit_; }  // Config::max_ults, resolved
  void note_finished();  // a ULT finished: shutdown() may be waiting

  // Config::hosted_worker: Runtime::host's claim on worker 0 (throws
  // std::logic_error naming what is wrong), and its release.
  void begin_hosting();
  void end_hosting();

  // The shared counters, grouped by who writes them, a cache line per group:
  // a write from one group must not take the line of another away from the
  // workers that read it on every spawn or finish. (A plain thread's spawns
  // shared a line with `sleepers`, which every worker spawn reads: an OpenMP
  // team's initial thread creating tasks moved that line twice per task.)
  //
  // Read on every spawn (push_new); written when a worker starts or stops
  // looking for work, or sleeps.
  alignas(sched::cache_line_size) std::atomic<int> searching{0};  // workers spinning for work
  std::atomic<int> sleepers{0};
  // Written by every spawn from a plain thread (submit_new) and every unpark from one.
  alignas(sched::cache_line_size) std::atomic<std::uint64_t> external_spawns{0};
  std::atomic<std::uint64_t> external_unparks{0};  // statistics: unparks of ULTs from plain threads
  std::atomic<std::uint32_t> round_robin{0};
  // Written by timers and by shutdown's wake-ups.
  alignas(sched::cache_line_size) std::atomic<std::int64_t> pending_timers{0};
  std::atomic<std::uint32_t> quiesce_word{0};
  // Written once or twice per runtime; read on every finish (shutdown_waiting)
  // and by idle workers (stopping).
  alignas(sched::cache_line_size) std::atomic<bool> stopping{false};
  std::atomic<bool> shutdown_waiting{false};
  Runtime* const owner;  // the public object

  // Replaces every worker's victim list (the background topology loader,
  // once the machine model is loaded; runtime.cpp).
  void set_steal_orders(const StealOrders& orders);

 private:
  Config config_;
  std::uint64_t ult_limit_;
  std::vector<std::unique_ptr<Worker>> workers_;
  // Whether the constructor asked the background loader for the topology's
  // steal order (runtime.cpp); shutdown withdraws the request, and does not
  // wait for a load under way.
  bool topology_requested_ = false;
  std::uint64_t constructed_at_ns_ = 0;
  StartupStats startup_;
  bool shut_down_ = false;
  // Worker 0 is hosted (Config::hosted_worker): claimed by a host() call or,
  // for good, by shutdown; the one thread that hosts it (set by the first
  // host(), read and written only while claimed).
  std::atomic<bool> host_claimed_{false};
  std::thread::id host_thread_;
};

// Every live runtime, most recently started last (where weft::spawn from a
// plain thread goes).
std::mutex& registry_mutex();
std::vector<RuntimeImpl*>& live_runtimes();

}  // namespace weft::detail
