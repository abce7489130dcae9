#pragma once
// Tells AddressSanitizer and ThreadSanitizer about fiber switches, so both
// understand that a worker thread runs many stacks (internal). Every function
// is a no-op in normal builds.

#include <pthread.h>

#include <cstddef>

#include "task.hpp"

#if defined(WEFT_ASAN)
extern "C" {
void __asan_unpoison_memory_region(void const volatile* addr, std::size_t size);
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, std::size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old,
                                     std::size_t* size_old);
}
#endif
#if defined(WEFT_TSAN)
extern "C" {
void* __tsan_get_current_fiber(void);
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
}
#endif

namespace weft::detail::sanitizer {

// Called on `from`'s stack just before switching to `to`, whose stack is
// [bottom, bottom + size) (a ULT's stack; ignored for the thread contexts,
// which carry their own). from_done: `from` never runs again.
inline void start_switch([[maybe_unused]] Task* from, [[maybe_unused]] bool from_done, [[maybe_unused]] Task* to,
                         [[maybe_unused]] std::size_t ult_stack_bytes) {
#if defined(WEFT_ASAN)
  const void* bottom = to->stack_lo ? static_cast<const void*>(to->stack_lo) : to->asan_stack_bottom;
  const std::size_t size = to->stack_lo ? ult_stack_bytes : to->asan_stack_size;
  __sanitizer_start_switch_fiber(from_done ? nullptr : &from->asan_fake_stack, bottom, size);
#endif
#if defined(WEFT_TSAN)
  __tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
}

// Called first thing on the resumed side of a switch.
inline void finish_switch([[maybe_unused]] Task* resumed) {
#if defined(WEFT_ASAN)
  const void* old_bottom = nullptr;
  std::size_t old_size = 0;
  __sanitizer_finish_switch_fiber(resumed->asan_fake_stack, &old_bottom, &old_size);
#endif
}

// A stack is about to be used by a new ULT: the frames of the one before it
// never returned (it switched away for good), so AddressSanitizer's shadow
// still marks their redzones; clear it.
inline void stack_reused([[maybe_unused]] const char* lo, [[maybe_unused]] std::size_t size) {
#if defined(WEFT_ASAN)
  __asan_unpoison_memory_region(lo, size);
#endif
}

// A ULT's context was made on a stack of its own / is gone for good.
inline void context_created([[maybe_unused]] Task* t) {
#if defined(WEFT_TSAN)
  t->tsan_fiber = __tsan_create_fiber(0);
#endif
}
inline void context_destroyed([[maybe_unused]] Task* t) {
#if defined(WEFT_TSAN)
  if (t->tsan_fiber) __tsan_destroy_fiber(t->tsan_fiber);
  t->tsan_fiber = nullptr;
#endif
}

// `child` runs on `owner`'s stack (Worker::run_inline): for TSan it is the
// same fiber, so a switch back to `child` switches to that fiber.
inline void borrow_context([[maybe_unused]] Task* child, [[maybe_unused]] const Task* owner) {
#if defined(WEFT_TSAN)
  child->tsan_fiber = owner->tsan_fiber;
#endif
}
inline void end_borrow([[maybe_unused]] Task* child) {
#if defined(WEFT_TSAN)
  child->tsan_fiber = nullptr;
#endif
}

// A context that runs on the calling thread's own stack (a worker's
// scheduling loop): remember that stack and the thread's TSan fiber.
inline void adopt_thread([[maybe_unused]] Task* t) {
#if defined(WEFT_TSAN)
  t->tsan_fiber = __tsan_get_current_fiber();
#endif
#if defined(WEFT_ASAN)
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    std::size_t size = 0;
    pthread_attr_getstack(&attr, &addr, &size);
    t->asan_stack_bottom = addr;
    t->asan_stack_size = size;
    pthread_attr_destroy(&attr);
  }
#endif
}

}  // namespace weft::detail::sanitizer
