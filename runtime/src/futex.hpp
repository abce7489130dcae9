#pragma once
// Thin wrappers over the Linux futex system call (private futexes).

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>

#include "weft/sched/cpu.hpp"

namespace weft::detail {

// Sleeps while *word == expected, at most `timeout` (negative = no limit).
inline void futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected,
                       std::chrono::nanoseconds timeout = std::chrono::nanoseconds(-1)) {
  timespec ts{};
  timespec* tsp = nullptr;
  if (timeout.count() >= 0) {
    ts.tv_sec = static_cast<time_t>(timeout.count() / 1'000'000'000);
    ts.tv_nsec = static_cast<long>(timeout.count() % 1'000'000'000);
    tsp = &ts;
  }
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, tsp,
          nullptr, 0);
}

inline void futex_wake(std::atomic<std::uint32_t>* word, int count) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE_PRIVATE, count, nullptr,
          nullptr, 0);
}

using sched::cpu_relax;  // the spin-loop hint (weft/sched/cpu.hpp)

}  // namespace weft::detail
