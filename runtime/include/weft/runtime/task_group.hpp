#pragma once
// TaskGroup: spawn any number of ULTs and wait for all of them (like
// tbb::task_group). wait() rethrows the first exception a ULT threw.
// run_n(n, f) is the bulk spawn: f(0) ... f(n-1), each on its own ULT.
// When a spawn throws (no runtime is running, or Config::max_ults is
// reached: UltLimitError), run throws it and the group does not count that
// ULT, so wait() and the destructor still return once the others are done.

#include <atomic>
#include <cstdint>
#include <exception>
#include <utility>

#include "weft/runtime/detail/wait_queue.hpp"
#include "weft/runtime/ult.hpp"

namespace weft {

class TaskGroup {
 public:
  TaskGroup() = default;
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;
  ~TaskGroup() { wait_quietly(); }

  template <class F>
  void run(F&& f) {
    counted([&] { spawn(wrap(std::forward<F>(f))).detach(); });
  }

  // The same, with a name for the ULT in a trace (trace.hpp).
  template <class F>
  void run(label name, F&& f) {
    counted([&] { spawn(name, wrap(std::forward<F>(f))).detach(); });
  }

  template <class F>
  void run_n(std::size_t n, F f) {
    for (std::size_t i = 0; i < n; ++i) run([f, i]() mutable { f(i); });
  }

  // Waits for every ULT run so far; rethrows the first exception.
  void wait();

 private:
  // Counts a member before spawning it (it may finish before spawn returns)
  // and takes the count back when the spawn throws.
  template <class Spawn>
  void counted(Spawn&& spawn_member) {
    pending_.fetch_add(1, std::memory_order_relaxed);
    try {
      spawn_member();
    } catch (...) {
      finish_one();
      throw;
    }
  }

  // The body of a member ULT: f, its exception recorded, then the count.
  template <class F>
  auto wrap(F&& f) {
    return [this, fn = std::forward<F>(f)]() mutable {
      try {
        fn();
      } catch (...) {
        record(std::current_exception());
      }
      finish_one();
    };
  }

  void wait_quietly();
  void finish_one();
  void record(std::exception_ptr e);
  std::atomic<std::int64_t> pending_{0};
  std::exception_ptr error_;
  detail::WaitQueue waiters_;
};

}  // namespace weft
