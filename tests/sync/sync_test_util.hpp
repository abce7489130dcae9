#pragma once
// Helpers shared by the sync tests: a cheap RNG, random local work between
// operations (the paper's "dummy loop iterations"), and running n threads
// that start together.

#include <cstdint>
#include <functional>
#include <latch>
#include <thread>
#include <vector>

namespace weft::sync::test {

// Sanitizer builds run the same tests with fewer iterations (TSan makes
// every atomic and every switch 5-20x slower).
#if defined(WEFT_TSAN) || defined(WEFT_ASAN)
inline constexpr int kSanitizerDivisor = 8;
#else
inline constexpr int kSanitizerDivisor = 1;
#endif
// n iterations, divided under a sanitizer (at least `floor`).
constexpr int scaled(int n, int floor = 1) {
  const int s = n / kSanitizerDivisor;
  return s < floor ? floor : s;
}

struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

// Up to `max_iters` dummy loop iterations.
inline void local_work(Rng& rng, unsigned max_iters) {
  const std::uint64_t n = rng.below(max_iters + 1);
  for (std::uint64_t i = 0; i < n; ++i) asm volatile("" ::: "memory");
}

// Runs fn(thread_index) on n threads released at the same moment.
inline void run_threads(int n, const std::function<void(int)>& fn) {
  std::latch start(n);
  std::vector<std::thread> ts;
  ts.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    ts.emplace_back([&, i] {
      start.arrive_and_wait();
      fn(i);
    });
  for (auto& t : ts) t.join();
}

}  // namespace weft::sync::test
