#include "omp_runtime.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include "fatal.hpp"
#include "icv.hpp"
#include "weft/apps/default_runtime.hpp"
#include "weft/apps/environment.hpp"
#include "weft/runtime/stats.hpp"
#include "weft/runtime/this_ult.hpp"
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

// The CPUs of libgomp's place `p`, as a cpu_set_t (empty when it has none).
cpu_set_t libgomp_place(void* gomp, int p) {
  cpu_set_t set;
  CPU_ZERO(&set);
  auto num_procs = reinterpret_cast<int (*)(int)>(dlsym(gomp, "omp_get_place_num_procs"));
  auto proc_ids = reinterpret_cast<void (*)(int, int*)>(dlsym(gomp, "omp_get_place_proc_ids"));
  if (!num_procs || !proc_ids) return set;
  std::vector<int> ids(static_cast<std::size_t>(std::max(0, num_procs(p))));
  if (!ids.empty()) proc_ids(p, ids.data());
  for (int id : ids)
    if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &set);
  return set;
}

Start make_start() {
  undo_libgomp_initial_binding();
  const Settings& set = settings();
  Start s;
  s.config = default_runtime_config();
  const bool weft_says = std::getenv("WEFT_WORKERS") || std::getenv("WEFT_CPUS") || std::getenv("WEFT_PLACEMENT");
  if (!weft_says) {
    if (!s.config.cpus.empty()) {
      // OMP_PLACES / OMP_PROC_BIND gave thread k its CPU: thread 0 is the
      // initial thread, which hosts worker 0 there; the workers take the
      // others. (One place: one worker there beside the initial thread.)
      s.initial_cpu = s.config.cpus.front();
      s.config.hosted_worker = s.config.cpus.size() > 1;
      s.config.workers = static_cast<int>(s.config.cpus.size());
    } else {
      const int threads = s.config.workers > 0 ? s.config.workers : sched::default_worker_count();
      s.config.hosted_worker = threads > 1;
      s.config.workers = std::max(1, threads);
      // No binding asked for: the workers float, like libgomp's threads
      // (OpenMP leaves unbound threads to the OS). Pinned workers beside the
      // unpinned initial thread made the kernel put it on a worker's CPU
      // under load, and every region then waited for a time slice.
      if (!set.places_set && !set.bind_set && !std::getenv("WEFT_PIN")) s.config.pin_workers = false;
    }
  }
  // No wait policy asked for: waits spin 1 ms before they park (libgomp
  // spins ~300k iterations by default). A shorter spin let a waiter whose
  // partner was preempted park, and the wake-up (~100 us on a loaded VM)
  // made the partner park in turn, construct after construct.
  if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("WEFT_WAIT_POLICY") && !std::getenv("WEFT_IDLE_SPIN_US"))
    s.config.idle_spin_us = idle_spin_us_for(WaitPolicy::active);
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

void undo_libgomp_initial_binding() {
  static const bool done = [] {
    if (!std::getenv("OMP_PLACES") && !std::getenv("OMP_PROC_BIND")) return true;
    void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!gomp) return true;  // linked in libgomp's place
    // dlsym on libgomp's handle finds libgomp's own definitions, not ours.
    auto num_places = reinterpret_cast<int (*)()>(dlsym(gomp, "omp_get_num_places"));
    const int places = num_places ? num_places() : 0;  // 0 before its constructor ran
    cpu_set_t mine;
    if (places > 0 && sched_getaffinity(0, sizeof mine, &mine) == 0) {
      cpu_set_t first = libgomp_place(gomp, 0);
      if (CPU_COUNT(&first) > 0 && CPU_EQUAL(&mine, &first)) {
        cpu_set_t all = first;
        for (int p = 1; p < places; ++p) {
          cpu_set_t more = libgomp_place(gomp, p);
          CPU_OR(&all, &all, &more);
        }
        sched_setaffinity(0, sizeof all, &all);
      }
    }
    dlclose(gomp);
    return true;
  }();
  (void)done;
}

const Config& runtime_config() { return start().config; }

int initial_thread_cpu() { return start().initial_cpu; }

bool initial_thread_hosts() {
  if (this_ult::inside()) return false;
  // -1: not known yet; gettid() is a system call, so it is asked once.
  static constinit thread_local int is_initial = -1;
  if (is_initial < 0) is_initial = gettid() == getpid() ? 1 : 0;
  return is_initial && runtime_config().hosted_worker;
}

namespace {
void print_stats_at_exit() {
  std::fprintf(stderr, "weft: statistics at exit (libweft-omp.so)\n%s", runtime().stats().to_string().c_str());
}
}  // namespace

Runtime& runtime() {
  // Never destroyed (see the header).
  static Runtime* rt = [] {
    try {
      auto* r = new Runtime(runtime_config());
#if defined(__SANITIZE_THREAD__)
      // The runtime loads the machine's topology on a thread of its own, and
      // this runtime is never shut down, so that thread is never joined:
      // ThreadSanitizer then sees hwloc's libX11 state (XInitThreads there)
      // freed by libX11's exit destructor without an order. Waiting for the
      // topology here orders the two; the release build keeps the
      // asynchronous load (it is off the start-up path on purpose).
      (void)r->topology();
#endif
      // Bound after the runtime has read the process's CPUs (a thread's
      // binding is what sched::allowed_cpus() sees), and only when this is
      // the initial thread.
      if (initial_thread_cpu() >= 0 && gettid() == getpid()) sched::pin_current_thread(initial_thread_cpu());
      // WEFT_STATS=1: a runtime prints its statistics when it shuts down, and
      // this one never does, so they are printed at exit (a snapshot: the
      // workers are idle by then, not stopped).
      if (r->config().print_stats) std::atexit(print_stats_at_exit);
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
