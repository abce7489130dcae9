#pragma once
// Tells AddressSanitizer and ThreadSanitizer about fiber switches, so both
// understand that a worker thread runs many stacks. No-ops in normal builds.

#include <cstddef>

#if defined(WEFT_ASAN)
extern "C" {
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

// Called on the old stack just before switching to the stack [bottom, bottom+size).
// `fake_stack_save` is null when the old stack is finished for good.
inline void start_switch([[maybe_unused]] void** fake_stack_save, [[maybe_unused]] const void* bottom,
                         [[maybe_unused]] std::size_t size, [[maybe_unused]] void* tsan_fiber) {
#if defined(WEFT_ASAN)
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#endif
#if defined(WEFT_TSAN)
  __tsan_switch_to_fiber(tsan_fiber, 0);
#endif
}

// Called first thing on the new stack after a switch.
inline void finish_switch([[maybe_unused]] void* fake_stack_save) {
#if defined(WEFT_ASAN)
  const void* old_bottom = nullptr;
  std::size_t old_size = 0;
  __sanitizer_finish_switch_fiber(fake_stack_save, &old_bottom, &old_size);
#endif
}

inline void* create_fiber() {
#if defined(WEFT_TSAN)
  return __tsan_create_fiber(0);
#else
  return nullptr;
#endif
}
inline void* current_fiber() {
#if defined(WEFT_TSAN)
  return __tsan_get_current_fiber();
#else
  return nullptr;
#endif
}
inline void destroy_fiber([[maybe_unused]] void* fiber) {
#if defined(WEFT_TSAN)
  if (fiber) __tsan_destroy_fiber(fiber);
#endif
}

}  // namespace weft::detail::sanitizer
