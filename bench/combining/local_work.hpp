#pragma once
// The paper's local work (§5: "a loop of dummy iterations whose number is
// chosen randomly"), as the authors' benchmarks write it: `n` iterations of
// an empty loop on a `volatile int`. Out of line (local_work.cpp), so every
// row, the ideal and weft-osci-serve-probe run the very same machine code, at
// a fixed alignment.
#include <cstdint>

namespace weft::bench::combining {

void local_work(std::uint64_t n) noexcept;

}  // namespace weft::bench::combining
