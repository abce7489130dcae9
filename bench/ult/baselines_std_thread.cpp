// Kernel-thread baselines: std::thread create+join (what a ULT spawn
// replaces) and the wake-up latency of a thread sleeping on a
// std::condition_variable (what an idle weft worker's wake-up competes with).
// std::thread cases run with fewer iterations than the fiber cases (the
// suite says how many): a thread costs tens of microseconds.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "baselines.hpp"

namespace weft::bench::ult {

Measurement std_thread_create_join(long count) {
  std::atomic<long> runs{0};
  const double t0 = now_ns();
  for (long i = 0; i < count; ++i) {
    std::thread t([&runs] { runs.fetch_add(1, std::memory_order_relaxed); });
    t.join();
  }
  const double t1 = now_ns();
  check(runs.load(), count, "std::thread create+join count");
  return {t1 - t0, static_cast<double>(count)};
}

Measurement std_thread_create_join_batch(long count) {
  std::atomic<long> runs{0};
  std::vector<std::thread> ts;
  ts.reserve(count);
  const double t0 = now_ns();
  for (long i = 0; i < count; ++i)
    ts.emplace_back([&runs] { runs.fetch_add(1, std::memory_order_relaxed); });
  for (auto& t : ts) t.join();
  const double t1 = now_ns();
  check(runs.load(), count, "std::thread batch count");
  return {t1 - t0, static_cast<double>(count)};
}

Measurement std_cv_wakeup(int samples, int idle_us) {
  std::mutex m;
  std::condition_variable cv;
  bool ready = false, stop = false;
  double notified_at = 0;
  double sum = 0;  // written by the waiter, read after it is joined
  std::atomic<long> handled{0};
  std::thread waiter([&] {
    std::unique_lock lk(m);
    for (;;) {
      cv.wait(lk, [&] { return ready || stop; });
      if (stop) return;
      sum += now_ns() - notified_at;
      ready = false;
      handled.fetch_add(1, std::memory_order_release);
    }
  });
  for (int s = 0; s < samples; ++s) {
    std::this_thread::sleep_for(std::chrono::microseconds(idle_us));  // waiter is asleep
    {
      std::lock_guard lk(m);
      notified_at = now_ns();
      ready = true;
    }
    cv.notify_one();
    while (handled.load(std::memory_order_acquire) != s + 1) std::this_thread::yield();
  }
  {
    std::lock_guard lk(m);
    stop = true;
  }
  cv.notify_one();
  waiter.join();
  check(handled.load(), samples, "condition_variable wake-up count");
  return {sum, static_cast<double>(samples)};
}

}  // namespace weft::bench::ult
