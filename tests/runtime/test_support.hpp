#pragma once
// Shared helpers for the runtime tests.

#include <gtest/gtest.h>

#include <random>

#include <weft/runtime.hpp>

namespace weft::test {

// Runtimes with 1 and with 2 workers; pinning off so the tests also run where
// fewer CPUs are allowed.
class WorkersTest : public ::testing::TestWithParam<int> {
 protected:
  Config config() const {
    Config c;
    c.workers = GetParam();
    c.pin_workers = false;
    return c;
  }
};

// Yields with probability 1/k, from a per-ULT generator.
inline void maybe_yield(std::minstd_rand& rng, unsigned k = 4) {
  if (rng() % k == 0) this_ult::yield();
}

}  // namespace weft::test
