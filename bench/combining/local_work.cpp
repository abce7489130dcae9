// See local_work.hpp.
#include "local_work.hpp"

namespace weft::bench::combining {

// Aligned to a cache line so that its loop sits at the same offset in every
// build. Where the linker happens to put it moves the whole table: on the
// Intel 2-core VM two builds whose local_work, Osci::apply and Osci::combine
// were the same machine code at different addresses ran the ideal row at
// 26.1 and 33.0 ns/op on one worker, and Osci-x128 at 36 and 40.5
// (bench/results/combining-2core.md, 2026-11-27, seventh session).
__attribute__((noinline, aligned(64))) void local_work(std::uint64_t n) noexcept {
  volatile int j = 0;
  while (static_cast<std::uint64_t>(j) < n) j = j + 1;
}

}  // namespace weft::bench::combining
