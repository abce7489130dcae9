#pragma once
// The control block of one ULT (internal). A Task lives in a fixed-size,
// per-worker pooled block; the user's callable, and afterwards its result,
// are stored inline in the same block when they fit (no allocation per spawn).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace weft::detail {

class Worker;
class RuntimeImpl;

inline constexpr std::size_t kTaskBlockBytes = 256;

enum class TaskKind : std::uint8_t { ult, scheduler, external };

// Bits of Task::done.
inline constexpr std::uint32_t kFinished = 1;       // body returned or threw
inline constexpr std::uint32_t kJoinerParked = 2;   // Task::joiner waits for kFinished

struct Task {
  // --- scheduling (owner worker only, unless noted) ---
  void* ctx = nullptr;            // saved boost fcontext_t while suspended
  Task* next = nullptr;           // intrusive link: ready FIFO or inbox
  Worker* home = nullptr;         // worker it runs on once started (or is pinned to)
  RuntimeImpl* runtime = nullptr; // runtime it was spawned on
  Task* continuation = nullptr;   // local joiner that handed its worker to this task
  std::uint64_t ticket = 0;       // FIFO order among the worker's ready ULTs
  char* stack_lo = nullptr;       // usable stack [stack_lo, stack_lo + stack_size)
  std::size_t stack_size = 0;
  // --- payload ---
  void (*body)(Task*) = nullptr;          // runs the callable, stores the result
  void (*drop_payload)(Task*) = nullptr;  // destroys callable/result still held
  void* payload_heap = nullptr;           // payload when it does not fit inline
  std::exception_ptr error;               // what the body threw
  // --- shared state ---
  std::atomic<std::uint32_t> refs{0};   // handle + queue entry + runner
  std::atomic<std::uint32_t> claim{0};  // 0 = unstarted, 1 = started (arbitrates who runs it)
  std::atomic<std::uint32_t> done{0};   // kFinished | kJoinerParked
  std::atomic<std::uint32_t> wake{0};   // park token: 0 none, 1 pending, 2 parked
  Task* joiner = nullptr;               // published by the kJoinerParked bit
  // --- identity and tooling ---
  std::uint64_t id = 0;
  std::int32_t pinned = -1;   // worker index it must run on, -1 = stealable
  TaskKind kind = TaskKind::ult;
  bool payload_started = false;
  bool has_result = false;
  bool runner_ref = false;  // whoever runs it holds one of `refs` until it finishes
  void* tsan_fiber = nullptr;
  void* asan_fake_stack = nullptr;
  const void* asan_stack_bottom = nullptr;  // for scheduler/external contexts
  std::size_t asan_stack_size = 0;
};

// The payload lives in the rest of the block, after the header.
inline constexpr std::size_t kTaskHeaderBytes = (sizeof(Task) + 15) / 16 * 16;
inline constexpr std::size_t kTaskInlineBytes = kTaskBlockBytes - kTaskHeaderBytes;
static_assert(kTaskInlineBytes >= 64, "task block too small for inline payloads");
inline unsigned char* task_storage(Task* t) {
  return reinterpret_cast<unsigned char*>(t) + kTaskHeaderBytes;
}

// --- the runtime's internal entry points used by the public templates ---
Task* allocate_task();                 // from the current worker's pool, else the heap
void free_task_block(Task* t);         // back to a pool (payload already destroyed)
void submit_new(Task* t, RuntimeImpl* rt, int pinned_worker);  // -1 = any, stealable
RuntimeImpl* current_runtime_or_throw();
void wait_finished(Task* t);           // parks the ULT (or blocks the thread) until done
void release(Task* t, std::uint32_t refs);  // drops refs; frees the block at zero
void report_detached_exception(Task* t);
void check_worker_index(RuntimeImpl* rt, int pinned_worker);  // throws std::out_of_range
Task* current_task();                  // the running ULT, or the calling thread's stand-in
void retain(Task* t);                  // one more reference (the task must be alive)

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
P* payload_of(Task* t) {
  if constexpr (sizeof(P) <= kTaskInlineBytes && alignof(P) <= 16)
    return std::launder(reinterpret_cast<P*>(task_storage(t)));
  else
    return static_cast<P*>(t->payload_heap);
}

template <class F, class R>
void run_payload(Task* t) {
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
void drop_payload(Task* t) {
  auto* p = payload_of<Payload<F, R>>(t);
  if (!t->payload_started) p->fn.~F();
  if constexpr (!std::is_void_v<R>) {
    if (t->has_result) p->result.~R();
  }
  t->has_result = false;
  if constexpr (!(sizeof(Payload<F, R>) <= kTaskInlineBytes && alignof(Payload<F, R>) <= 16))
    ::operator delete(t->payload_heap, std::align_val_t{alignof(Payload<F, R>)});
  t->payload_heap = nullptr;
}

template <class R, class F>
R take_result(Task* t) {
  if (t->error) std::rethrow_exception(std::exchange(t->error, nullptr));
  if constexpr (!std::is_void_v<R>) {
    auto* p = payload_of<Payload<F, R>>(t);
    R value = std::move(p->result);
    p->result.~R();
    t->has_result = false;
    return value;
  }
}

// Builds a task block holding `f`; refs = handle + queue entry.
template <class F>
Task* make_task(F&& f) {
  using Fn = std::decay_t<F>;
  using R = std::invoke_result_t<Fn&&>;
  using P = Payload<Fn, R>;
  Task* t = allocate_task();
  if constexpr (sizeof(P) <= kTaskInlineBytes && alignof(P) <= 16) {
    ::new (static_cast<void*>(task_storage(t))) P(Fn(std::forward<F>(f)));
  } else {
    t->payload_heap = ::operator new(sizeof(P), std::align_val_t{alignof(P)});
    ::new (t->payload_heap) P(Fn(std::forward<F>(f)));
  }
  t->body = &run_payload<Fn, R>;
  t->drop_payload = &drop_payload<Fn, R>;
  return t;
}

}  // namespace weft::detail
