#pragma once
// The part of a ULT's control block that the public templates (Ult, spawn,
// TaskGroup) use: the user's callable, afterwards its result, and the
// finished flag (internal). The scheduler's own fields are private to the
// runtime (runtime/src/task.hpp). A control block is one fixed-size pooled
// block: these fields, the scheduler's, and in its second half the callable
// and then its result when they fit (no allocation per spawn).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace weft::detail {

class RuntimeImpl;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr std::size_t kTaskPayloadOffset = 256;  // room for the sanitizers' per-context fields
#else
inline constexpr std::size_t kTaskPayloadOffset = 128;
#endif
inline constexpr std::size_t kTaskBlockBytes = kTaskPayloadOffset + 128;
inline constexpr std::size_t kTaskInlineBytes = kTaskBlockBytes - kTaskPayloadOffset;

// Bits of TaskBase::done.
inline constexpr std::uint32_t kFinished = 1;       // body returned or threw
inline constexpr std::uint32_t kJoinerParked = 2;   // a joiner waits for kFinished

struct TaskBase {
  void (*body)(TaskBase*) = nullptr;          // runs the callable, stores the result
  void (*drop_payload)(TaskBase*) = nullptr;  // destroys callable/result still held
  void* payload_heap = nullptr;               // payload when it does not fit inline
  std::exception_ptr error;                   // what the body threw
  std::uint64_t id = 0;                       // process-unique
  std::atomic<std::uint32_t> done{0};         // kFinished | kJoinerParked
  bool payload_started = false;
  bool has_result = false;
  std::uint16_t label = 0;                    // weft::label id for traces (label.hpp), 0 = none
};

inline unsigned char* task_storage(TaskBase* t) {
  return reinterpret_cast<unsigned char*>(t) + kTaskPayloadOffset;
}

// --- the runtime's entry points used by the public templates ---
TaskBase* allocate_task();  // a fresh block; throws UltLimitError at Config::max_ults
void discard_task(TaskBase* t);  // frees a block never submitted, holding no payload
void submit_new(TaskBase* t, RuntimeImpl* rt, int pinned_worker);  // -1 = any, stealable
RuntimeImpl* current_runtime_or_throw();
void check_worker_index(RuntimeImpl* rt, int pinned_worker);  // throws std::out_of_range
void wait_finished(TaskBase* t);  // parks the ULT (or blocks the thread) until done
void retain(TaskBase* t);         // one more reference (the task must be alive)
void release(TaskBase* t, std::uint32_t refs);  // drops refs; frees the block at zero
TaskBase* current_task();         // the running ULT, or the calling thread's stand-in

// Payload storage: the callable until it runs, then its result (union).
template <class F, class R>
union Payload {
  F fn;
  R result;
  explicit Payload(F&& f) : fn(std::move(f)) {}
  ~Payload() {}
};
template <class F>
union Payload<F, void> {
  F fn;
  explicit Payload(F&& f) : fn(std::move(f)) {}
  ~Payload() {}
};

template <class P>
inline constexpr bool kPayloadInline = sizeof(P) <= kTaskInlineBytes && alignof(P) <= 16;

template <class P>
P* payload_of(TaskBase* t) {
  if constexpr (kPayloadInline<P>)
    return std::launder(reinterpret_cast<P*>(task_storage(t)));
  else
    return static_cast<P*>(t->payload_heap);
}

template <class F, class R>
void run_payload(TaskBase* t) {
  auto* p = payload_of<Payload<F, R>>(t);
  t->payload_started = true;
  struct DestroyFn {  // the callable is destroyed right after it runs, even if it throws
    Payload<F, R>* p;
    ~DestroyFn() { p->fn.~F(); }
  };
  if constexpr (std::is_void_v<R>) {
    DestroyFn guard{p};
    std::invoke(std::move(p->fn));
  } else {
    R value = [&] {
      DestroyFn guard{p};
      return std::invoke(std::move(p->fn));
    }();
    ::new (static_cast<void*>(&p->result)) R(std::move(value));
    t->has_result = true;
  }
}

template <class F, class R>
void drop_payload(TaskBase* t) {
  using P = Payload<F, R>;
  auto* p = payload_of<P>(t);
  if (!t->payload_started) p->fn.~F();
  if constexpr (!std::is_void_v<R>) {
    if (t->has_result) p->result.~R();
  }
  t->has_result = false;
  if constexpr (!kPayloadInline<P>) ::operator delete(t->payload_heap, std::align_val_t{alignof(P)});
  t->payload_heap = nullptr;
}

template <class R, class F>
R take_result(TaskBase* t) {
  if (t->error) std::rethrow_exception(std::exchange(t->error, nullptr));
  if constexpr (!std::is_void_v<R>) {
    auto* p = payload_of<Payload<F, R>>(t);
    R value = std::move(p->result);
    p->result.~R();
    t->has_result = false;
    return value;
  }
}

// Builds a task block holding `f` (not yet submitted).
template <class F>
TaskBase* make_task(F&& f) {
  using Fn = std::decay_t<F>;
  using R = std::invoke_result_t<Fn&&>;
  using P = Payload<Fn, R>;
  TaskBase* t = allocate_task();
  try {
    if constexpr (kPayloadInline<P>) {
      ::new (static_cast<void*>(task_storage(t))) P(Fn(std::forward<F>(f)));
    } else {
      t->payload_heap = ::operator new(sizeof(P), std::align_val_t{alignof(P)});
      try {
        ::new (t->payload_heap) P(Fn(std::forward<F>(f)));
      } catch (...) {
        ::operator delete(t->payload_heap, std::align_val_t{alignof(P)});
        throw;
      }
    }
  } catch (...) {
    discard_task(t);  // copying the callable threw
    throw;
  }
  t->body = &run_payload<Fn, R>;
  t->drop_payload = &drop_payload<Fn, R>;
  return t;
}

}  // namespace weft::detail
