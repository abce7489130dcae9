#pragma once
// The control block of one ULT as the scheduler sees it (internal): the
// public TaskBase (callable, result, finished flag) plus where the ULT waits,
// runs and parks. Lives in the first kTaskPayloadOffset bytes of its block.

#include <atomic>
#include <cstdint>

#include "stack_allocator.hpp"
#include "weft/runtime/detail/task.hpp"

namespace weft::detail {

class Worker;

enum class TaskKind : std::uint8_t {
  ult,        // a user-level thread
  scheduler,  // a worker thread's own context (runs the scheduling loop)
  external,   // stands for a plain thread that blocks in park()/join
};

// The park token (Task::wake), like a binary semaphore between park() and
// unpark(): see park.cpp for the transitions.
enum ParkState : std::uint32_t {
  kNoToken = 0,  // running (or runnable), no unpark pending
  kToken = 1,    // an unpark came first: the next park() returns at once
  kParked = 2,   // suspended in park(): the next unpark() resumes it
};

struct Task : TaskBase {
  void* ctx = nullptr;             // saved boost fcontext_t while suspended
  Task* next = nullptr;            // intrusive link: ready FIFO or inbox
  Worker* home = nullptr;          // worker it runs on once started (or is pinned to)
  RuntimeImpl* runtime = nullptr;  // runtime it was spawned on
  Task* continuation = nullptr;    // the joiner that handed its worker to this ULT and waits for it
  Task* joiner = nullptr;          // who to unpark when it finishes (published by kJoinerParked)
  char* stack_lo = nullptr;        // lowest usable byte of the stack it runs on (its own or borrowed)
  std::atomic<std::uint32_t> refs{0};   // handle + queue entry + runner
  std::atomic<std::uint32_t> claim{0};  // 0 = unstarted, 1 = started (arbitrates who runs it)
  std::atomic<std::uint32_t> wake{kNoToken};
  std::uint32_t ticket = 0;        // FIFO order among its worker's ready ULTs (wraps)
  std::int16_t pinned = -1;        // worker index it must run on, -1 = stealable
  TaskKind kind = TaskKind::ult;
  bool runner_ref = false;         // whoever runs it holds one of `refs` until it finishes
  StackGuard stack_guard = StackGuard::marker;
  bool stack_borrowed = false;     // runs on its joiner's stack (Worker::run_inline)
#if defined(WEFT_TSAN)
  void* tsan_fiber = nullptr;
#endif
#if defined(WEFT_ASAN)
  void* asan_fake_stack = nullptr;
  const void* asan_stack_bottom = nullptr;  // for scheduler/external contexts
  std::size_t asan_stack_size = 0;
#endif
};
static_assert(sizeof(Task) <= kTaskPayloadOffset, "the scheduler's fields must leave the payload half free");

inline Task* as_task(TaskBase* t) { return static_cast<Task*>(t); }

// Whether a parked joiner lends the ULT it waits for a reference to itself,
// dropped after that ULT's unpark of it (wait_finished, finish_current): a
// worker's scheduler context is no pooled block and needs none.
inline bool lends_join_reference(const Task* joiner) { return joiner->kind != TaskKind::scheduler; }

// Ticket order with wrap-around: a was handed out before b.
inline bool ticket_before(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) < 0; }

}  // namespace weft::detail
