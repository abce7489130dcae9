#pragma once
// Processor-level helpers shared by the sync layer: the spin-loop hint and the
// cache-line size used to keep independently written fields apart.

#include <cstddef>

namespace weft::sync {

// Size of the unit of coherence on the machines we target (x86-64, most
// AArch64). Nodes that different threads write are aligned to it so that
// a write by one thread does not invalidate a neighbour's line.
inline constexpr std::size_t cache_line_size = 64;

// Hint to the core that we are in a spin loop (x86 PAUSE, AArch64 YIELD).
// Costs tens of cycles; never gives up the kernel thread or the ULT.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#else
  asm volatile("" ::: "memory");
#endif
}

}  // namespace weft::sync
