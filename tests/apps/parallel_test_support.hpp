#pragma once
// Helpers shared by the parallel-layer tests: runtimes of 1 and 2 workers,
// sizes cut down under the sanitizers, random yields, the schedules and the
// exactly-once check.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "weft/weft.hpp"

namespace weft::test {

#if defined(WEFT_TSAN) || defined(WEFT_ASAN)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
// n, or n / divisor under a sanitizer (at least 1).
constexpr long scaled(long n, long divisor = 10) { return kSanitized ? (n / divisor > 0 ? n / divisor : 1) : n; }

// A runtime configuration of `workers` unpinned workers (the tests also run
// where fewer CPUs are allowed).
inline Config unpinned(int workers) {
  Config c;
  c.workers = workers;
  c.pin_workers = false;
  return c;
}

// Tests that run on a runtime of 1 and of 2 workers.
class WorkersTest : public ::testing::TestWithParam<int> {
 protected:
  int workers() const { return GetParam(); }
  Config config() const { return unpinned(GetParam()); }
  // Runs f on a ULT of a fresh runtime of workers() workers.
  template <class F>
  auto on_runtime(F&& f) {
    Runtime rt(config());
    return rt.run(std::forward<F>(f));
  }
};

inline std::string workers_name(const ::testing::TestParamInfo<int>& info) {
  return std::to_string(info.param) + (info.param == 1 ? "worker" : "workers");
}

// Busy-waits for d without yielding: an iteration that takes a while.
inline void spin_for(std::chrono::nanoseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// Yields with probability 1/k.
inline void maybe_yield(std::minstd_rand& rng, unsigned k = 4) {
  if (rng() % k == 0) this_ult::yield();
}

// Every schedule, with a name for messages.
struct NamedSchedule {
  const char* name;
  Schedule schedule;
};
inline std::vector<NamedSchedule> all_schedules() {
  return {{"adaptive", schedule_adaptive()}, {"static", schedule_static()},   {"static,1", schedule_static(1)},
          {"static,7", schedule_static(7)},  {"dynamic,1", schedule_dynamic()}, {"dynamic,13", schedule_dynamic(13)},
          {"guided,1", schedule_guided()},   {"guided,5", schedule_guided(5)}};
}

// Counts per offset of a loop; check() says whether each ran exactly once.
class HitCounter {
 public:
  explicit HitCounter(std::uint64_t n) : hits_(n) {}
  void hit(std::uint64_t offset) { hits_[offset].fetch_add(1, std::memory_order_relaxed); }
  ::testing::AssertionResult every_once() const {
    for (std::size_t i = 0; i < hits_.size(); ++i)
      if (const int h = hits_[i].load(std::memory_order_relaxed); h != 1)
        return ::testing::AssertionFailure() << "offset " << i << " of " << hits_.size() << " ran " << h << " times";
    return ::testing::AssertionSuccess();
  }
  std::uint64_t total() const {
    std::uint64_t t = 0;
    for (const auto& h : hits_) t += static_cast<std::uint64_t>(h.load(std::memory_order_relaxed));
    return t;
  }

 private:
  std::vector<std::atomic<int>> hits_;
};

}  // namespace weft::test
