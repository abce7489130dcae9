// Wake-up latency of a sleeping 1-worker runtime after a burst of N parked
// ULTs (16 KiB stacks): the probe behind ult-2core.md's 2026-12-07 section.
// Not part of the build. From the checkout's root, after a release build:
//   g++ -std=c++20 -O2 -Iruntime/include -Isched/include \
//     bench/results/wakeup-after-burst-2026-12-07.cpp -o /tmp/wakeup-after-burst \
//     build/release/runtime/libweft_runtime.a build/release/sched/libweft_sched.a \
//     -lhwloc -lnuma -lboost_context -lpthread
//   /tmp/wakeup-after-burst N MODE
// MODE 0: as is; 1: weft::release_unused_stacks() after the burst; 2: sleep 3 s
// after it; 3: 2000 samples (long enough for the idle worker to start trimming
// the burst's stacks); 5 / 6: 200 samples, the waking thread pinned to CPU 0
// (the worker's) / CPU 1; 7: as 3 with the waking thread on CPU 0.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <weft/runtime.hpp>

using namespace weft;

static double now_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1000000;
  const int mode = argc > 2 ? std::atoi(argv[2]) : 0;
  if (n > 0) {  // the burst: n ULTs parked on one latch at once, then released
    Config c;
    c.workers = 2;
    c.stack_size = 16 * 1024;
    Runtime rt(c);
    rt.run([n] {
      Latch l(1);
      std::vector<Ult<void>> v;
      v.reserve(static_cast<std::size_t>(n));
      for (long i = 0; i < n; ++i) v.push_back(spawn([&] { l.wait(); }));
      this_ult::yield();
      l.count_down();
      for (auto& u : v) u.join();
    });
  }
  if (mode == 1) release_unused_stacks();
  if (mode == 2) std::this_thread::sleep_for(std::chrono::seconds(3));
  Config c;
  c.workers = 1;
  Runtime rt(c);
  rt.run([] {});
  if (mode == 5 || mode == 6 || mode == 7) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(mode == 6 ? 1 : 0, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  }
  const int samples = mode == 3 || mode == 7 ? 2000 : 200;
  std::vector<double> lat;
  for (int s = 0; s < samples; ++s) {  // as weft-bench ult's wakeup/sleeping-worker
    std::this_thread::sleep_for(std::chrono::microseconds(2000));
    std::atomic<double> started{0};
    const double t0 = now_ns();
    rt.spawn_on(0, [&] { started.store(now_ns()); }).join();
    lat.push_back(started.load() - t0);
  }
  std::sort(lat.begin(), lat.end());
  std::printf("n=%ld mode=%d wake-up median %.0f ns  p10 %.0f  p90 %.0f  p99 %.0f  max %.0f\n", n, mode,
              lat[lat.size() / 2], lat[lat.size() / 10], lat[lat.size() * 9 / 10], lat[lat.size() * 99 / 100],
              lat.back());
}
