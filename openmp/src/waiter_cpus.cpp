// See waiter_cpus.hpp.
#include "waiter_cpus.hpp"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>

#include "omp_runtime.hpp"
#include "weft/runtime/this_ult.hpp"

namespace weft::omp {
namespace {

// Slot 0: plain threads; slot w + 1: worker w. A slot holds when its
// thread last noted a wait (steady clock, us) above 16 bits of CPU + 1
// (0: none yet). Workers past the table are not tracked.
constexpr int kSlots = 1024;
std::atomic<std::uint64_t> slots[kSlots];
std::atomic<int> slots_used{1};

// A note older than this is not believed: its thread has stopped waiting
// (or has not run since, and may be anywhere now).
constexpr std::uint64_t kFreshUs = 50;
// A worker leaves a shared CPU at most this often.
constexpr std::chrono::milliseconds kMoveInterval{10};

int slot_of_caller() noexcept {
  const int w = this_ult::worker_index();
  if (w < 0) return 0;
  return w + 1 < kSlots ? w + 1 : -1;
}

std::uint64_t now_us() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

int note_waiting_cpu() noexcept {
  const int cpu = sched_getcpu();  // glibc reads it from the rseq area: a load
  const int slot = slot_of_caller();
  if (slot < 0 || cpu < 0 || cpu >= 0xFFFF) return cpu;
  slots[slot].store(now_us() << 16 | static_cast<std::uint64_t>(cpu + 1), std::memory_order_relaxed);
  int used = slots_used.load(std::memory_order_relaxed);
  while (used <= slot && !slots_used.compare_exchange_weak(used, slot + 1, std::memory_order_relaxed)) {
  }
  return cpu;
}

bool cpu_shared_with_another(int cpu, bool any_age) noexcept {
  if (cpu < 0 || cpu >= 0xFFFF) return false;
  const int self = slot_of_caller();
  const int used = slots_used.load(std::memory_order_relaxed);
  const std::uint64_t now = now_us();
  for (int s = 0; s < used; ++s) {
    if (s == self) continue;
    const std::uint64_t v = slots[s].load(std::memory_order_relaxed);
    if ((v & 0xFFFF) == static_cast<std::uint64_t>(cpu + 1) && (any_age || now - (v >> 16) <= kFreshUs)) return true;
  }
  return false;
}

bool leave_shared_cpu(int cpu) noexcept {
  // A plain thread, and the initial thread running the hosted worker 0, stay
  // (and yield the CPU instead): had both sides of a shared CPU moved, they
  // might have met again on the other one.
  const int w = this_ult::worker_index();
  if (cpu < 0 || cpu >= CPU_SETSIZE || w < 0 || (w == 0 && runtime_config().hosted_worker) ||
      runtime_config().pin_workers)
    return false;
  // Per worker thread (the ULTs of a worker share its thread-local storage).
  thread_local std::chrono::steady_clock::time_point last_move{};
  const auto now = std::chrono::steady_clock::now();
  if (now - last_move < kMoveInterval) return false;
  last_move = now;
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof mine, &mine) != 0 || !CPU_ISSET(cpu, &mine) || CPU_COUNT(&mine) < 2) return false;
  cpu_set_t elsewhere = mine;
  CPU_CLR(cpu, &elsewhere);
  if (sched_setaffinity(0, sizeof elsewhere, &elsewhere) != 0) return false;
  sched_setaffinity(0, sizeof mine, &mine);
  return true;
}

}  // namespace weft::omp
