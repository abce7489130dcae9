#pragma once
// Operations on the calling ULT. Outside a ULT they fall back to the calling
// kernel thread's equivalents (std::this_thread), so library code can call
// them from anywhere.

#include <chrono>
#include <cstdint>

namespace weft {

// A reference to a ULT (or to a plain thread) that can be unparked.
class UltRef {
 public:
  UltRef() = default;
  explicit UltRef(void* task) : task_(task) {}
  explicit operator bool() const { return task_ != nullptr; }
  friend bool operator==(UltRef, UltRef) = default;
  void* raw() const { return task_; }

 private:
  void* task_ = nullptr;
};

namespace detail {
// The index of the worker this thread runs, -1 on other threads (read by
// this_ult::worker_index(), inline: combining objects ask on every operation).
extern __attribute__((tls_model("initial-exec"))) constinit thread_local int tls_worker_index;
// The worker this thread runs, null on other threads (this_ult::worker_identity()).
class Worker;
extern __attribute__((tls_model("initial-exec"))) constinit thread_local Worker* tls_worker;
}  // namespace detail

namespace this_ult {

// Fair yield: every other ULT that is ready on this worker (started or not)
// runs once before the caller runs again. Returns at once when none is ready.
// Outside a ULT: std::this_thread::yield().
void yield();

// Parks the caller for at least `d` (the worker runs other ULTs meanwhile).
void sleep_for(std::chrono::nanoseconds d);
template <class Rep, class Period>
void sleep_for(std::chrono::duration<Rep, Period> d) {
  sleep_for(std::chrono::duration_cast<std::chrono::nanoseconds>(d));
}

// True inside a ULT of some weft::Runtime.
bool inside();
// Index of the worker running the caller, -1 outside a ULT.
inline int worker_index() { return detail::tls_worker_index; }
// The worker running the caller, as an identity, nullptr outside a ULT: unlike
// the index, unique among the workers of all live runtimes. The ULTs of one
// worker never run at the same time, and a started ULT keeps its worker.
inline const void* worker_identity() { return detail::tls_worker; }
// Number of workers of the caller's runtime, 0 outside a ULT.
int num_workers();
// Id of the calling ULT (0 outside a ULT).
std::uint64_t id();
// This ULT (or this plain thread), for weft::unpark.
UltRef ref();

}  // namespace this_ult

// Parks the calling ULT until unpark(ref) is called for it; the worker runs
// other ULTs meanwhile. Outside a ULT the calling thread blocks (futex).
// Token semantics, like std::binary_semaphore: an unpark that comes first
// makes the next park return at once. Callers loop on their own condition.
void park();
// park() that also returns once `deadline` has passed: false if it returned
// for that reason, true otherwise (an unpark, its token, or spuriously).
// Outside a ULT: a futex wait with a timeout.
bool park_until(std::chrono::steady_clock::time_point deadline);
// Makes `ref` runnable again (or leaves it a token). Any thread, any worker:
// a ULT goes back to the worker it runs on, which is woken if it sleeps.
void unpark(UltRef ref);

}  // namespace weft
