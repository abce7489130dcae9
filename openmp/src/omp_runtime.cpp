#include "omp_runtime.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>

#include <unistd.h>

#include "fatal.hpp"
#include "icv.hpp"
#include "weft/apps/default_runtime.hpp"
#include "weft/sched/cpuset.hpp"

namespace weft::omp {
namespace {

// ULT stacks when neither OMP_STACKSIZE nor WEFT_STACK_SIZE says: team
// members run the program's region bodies, whose private arrays live on
// their stacks (libgomp's threads get the 8 MiB of the pthread default; a
// weft stack is reserved address space, its pages touched as used).
constexpr std::size_t kDefaultStackBytes = 1024 * 1024;

struct Start {
  Config config;
  int initial_cpu = -1;
};

Start make_start() {
  const Settings& set = settings();
  Start s;
  s.config = default_runtime_config();
  const bool weft_says = std::getenv("WEFT_WORKERS") || std::getenv("WEFT_CPUS") || std::getenv("WEFT_PLACEMENT");
  if (!weft_says) {
    if (!s.config.cpus.empty()) {
      // OMP_PLACES / OMP_PROC_BIND gave thread k its CPU: thread 0 is the
      // initial thread, the workers take the others.
      s.initial_cpu = s.config.cpus.front();
      if (s.config.cpus.size() > 1) s.config.cpus.erase(s.config.cpus.begin());
      s.config.workers = static_cast<int>(s.config.cpus.size());
    } else {
      const int threads = s.config.workers > 0 ? s.config.workers : sched::default_worker_count();
      s.config.workers = std::max(1, threads - 1);
    }
  }
  if (!std::getenv("WEFT_STACK_SIZE")) s.config.stack_size = set.stacksize ? set.stacksize : kDefaultStackBytes;
  return s;
}

const Start& start() {
  static const Start s = [] {
    try {
      return make_start();
    } catch (const std::exception& e) {
      fatal_environment(e.what());
    }
  }();
  return s;
}

}  // namespace

const Config& runtime_config() { return start().config; }

int initial_thread_cpu() { return start().initial_cpu; }

Runtime& runtime() {
  // Never destroyed (see the header).
  static Runtime* rt = [] {
    try {
      auto* r = new Runtime(runtime_config());
      // Bound after the runtime has read the process's CPUs (a thread's
      // binding is what sched::allowed_cpus() sees), and only when this is
      // the initial thread.
      if (initial_thread_cpu() >= 0 && gettid() == getpid()) sched::pin_current_thread(initial_thread_cpu());
      return r;
    } catch (const std::exception& e) {
      fatal("starting the runtime", e.what());
    }
  }();
  return *rt;
}

int num_workers() {
  static const int n = runtime().num_workers();
  return n;
}

std::int64_t spin_ns() {
  static const std::int64_t ns = static_cast<std::int64_t>(runtime_config().idle_spin_us) * 1000;
  return ns;
}

}  // namespace weft::omp
