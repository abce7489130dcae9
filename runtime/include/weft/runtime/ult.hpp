#pragma once
// Ult<T>: the handle of one user-level thread, like std::jthread with a
// result. join() returns what the ULT's function returned (or rethrows what it
// threw); from a ULT it parks only that ULT, from a plain thread it blocks the
// thread. A handle destroyed while joinable joins first (the result is
// discarded). detach() lets the ULT run on unobserved.

#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "weft/runtime/detail/task.hpp"
#include "weft/runtime/label.hpp"

namespace weft {

template <class T>
class Ult;

// Thrown by spawn when the runtime already has Config::max_ults live ULTs
// (the message says how many, the stack size, and the setting to change).
class UltLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
template <class T, class F>
Ult<T> make_ult(F&& f, RuntimeImpl* rt, int pinned_worker, std::uint16_t label = 0);
}

template <class T>
class Ult {
 public:
  using result_type = T;

  Ult() = default;
  Ult(Ult&& other) noexcept : task_(std::exchange(other.task_, nullptr)), take_(other.take_) {}
  Ult& operator=(Ult&& other) noexcept {
    if (this != &other) {
      reset();
      task_ = std::exchange(other.task_, nullptr);
      take_ = other.take_;
    }
    return *this;
  }
  Ult(const Ult&) = delete;
  Ult& operator=(const Ult&) = delete;
  ~Ult() { reset(); }

  bool joinable() const noexcept { return task_ != nullptr; }
  // True once the ULT has finished (join() will not wait).
  bool done() const noexcept {
    return task_ && (task_->done.load(std::memory_order_acquire) & detail::kFinished);
  }
  // Process-unique id of the ULT.
  std::uint64_t id() const noexcept { return task_ ? task_->id : 0; }

  // Waits for the ULT to finish without taking its result.
  void wait() const {
    if (task_) detail::wait_finished(task_);
  }

  // Waits for the ULT, then returns its result or rethrows its exception.
  T join() {
    detail::TaskBase* t = std::exchange(task_, nullptr);
    detail::wait_finished(t);
    struct Release {
      detail::TaskBase* t;
      ~Release() { detail::release(t, 1); }
    } release{t};
    return take_(t);
  }

  // Lets the ULT finish on its own; an exception it throws is reported on stderr.
  void detach() {
    if (detail::TaskBase* t = std::exchange(task_, nullptr)) detail::release(t, 1);
  }

 private:
  template <class U, class F>
  friend Ult<U> detail::make_ult(F&&, detail::RuntimeImpl*, int, std::uint16_t);
  friend class Runtime;  // Runtime::host runs worker 0 until this ULT finishes

  void reset() {
    if (!task_) return;
    detail::TaskBase* t = std::exchange(task_, nullptr);
    detail::wait_finished(t);
    detail::release(t, 1);
  }

  detail::TaskBase* task_ = nullptr;
  T (*take_)(detail::TaskBase*) = nullptr;
};

namespace detail {
template <class T, class F>
Ult<T> make_ult(F&& f, RuntimeImpl* rt, int pinned_worker, std::uint16_t label) {
  if (pinned_worker != -1) check_worker_index(rt, pinned_worker);  // spawn(): no call
  Ult<T> handle;
  TaskBase* t = make_task(std::forward<F>(f));
  if (label) t->label = label;  // a fresh block's is 0: no store for an unlabelled spawn
  handle.task_ = t;
  handle.take_ = &take_result<T, std::decay_t<F>>;
  submit_new(t, rt, pinned_worker);
  return handle;
}
}  // namespace detail

template <class F>
using ult_result_t = std::invoke_result_t<std::decay_t<F>&&>;

// Spawns a ULT that any worker may run (it starts on the current worker when
// called from a ULT, and idle workers may steal it until it starts). Outside
// a ULT it goes to the most recently started live Runtime.
template <class F>
Ult<ult_result_t<F>> spawn(F&& f) {
  return detail::make_ult<ult_result_t<F>>(std::forward<F>(f), detail::current_runtime_or_throw(), -1);
}

// Spawns a ULT pinned to worker `worker` (0 <= worker < num_workers()); it is
// never stolen. Throws std::out_of_range for a bad index.
template <class F>
Ult<ult_result_t<F>> spawn_on(int worker, F&& f) {
  return detail::make_ult<ult_result_t<F>>(std::forward<F>(f), detail::current_runtime_or_throw(), worker);
}

// The same, with a name for the ULT's slices in a trace (weft/runtime/trace.hpp).
template <class F>
Ult<ult_result_t<F>> spawn(label name, F&& f) {
  return detail::make_ult<ult_result_t<F>>(std::forward<F>(f), detail::current_runtime_or_throw(), -1,
                                           detail::label_id(name));
}
template <class F>
Ult<ult_result_t<F>> spawn_on(int worker, label name, F&& f) {
  return detail::make_ult<ult_result_t<F>>(std::forward<F>(f), detail::current_runtime_or_throw(), worker,
                                           detail::label_id(name));
}

}  // namespace weft
