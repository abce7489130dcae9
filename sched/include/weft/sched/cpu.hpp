#pragma once
// Processor-level constants and hints for every layer: the spin-loop hint and
// the cache-line size used to keep independently written fields apart. The
// lowest layer holds them so that the runtime, sync and apps agree on one
// definition.

#include <cstddef>

namespace weft::sched {

// Size of the unit of coherence on the machines weft targets (x86-64, most
// AArch64). Data that different threads write is aligned to it so that a
// write by one thread does not invalidate a neighbour's line.
inline constexpr std::size_t cache_line_size = 64;

// Hint to the core that it is in a spin loop (x86 PAUSE, AArch64/ARM YIELD;
// elsewhere only a compiler barrier). Costs tens of cycles; never gives up
// the kernel thread or the ULT.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#else
  asm volatile("" ::: "memory");
#endif
}

// Asks for the cache line holding `p` in a state that allows writing it
// (x86 PREFETCHW; elsewhere a write prefetch), without waiting for it. A
// line another core wrote, read first and written next, costs two
// transfers (one to share it, one to take it over); fetched for writing,
// it costs one. A hint only: the line may be gone again by the time it is
// written. x86 CPUs without the PRFCHW feature (Intel before Broadwell)
// execute the opcode (0F 0D /1) as a no-op.
inline void prefetch_for_write(const void* p) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

}  // namespace weft::sched
