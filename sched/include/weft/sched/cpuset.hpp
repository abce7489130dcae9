#pragma once
// The CPUs this process may run on: its affinity mask and its cgroup CPU limit.
// Everything that decides "how many workers, where" starts from here.

#include <pthread.h>
#include <sched.h>

#include <optional>
#include <string>
#include <vector>

namespace weft::sched {

// OS CPU ids in the calling thread's affinity mask (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();

// The CPU bandwidth limit of the process's cgroup as a number of CPUs
// (cgroup v2 "cpu.max" or v1 "cpu.cfs_quota_us / cpu.cfs_period_us"), walking
// up the hierarchy and taking the tightest limit; nullopt when unlimited.
// `cgroup_root` is for tests (a fake /sys/fs/cgroup); `proc_self_cgroup` likewise.
std::optional<double> cgroup_cpu_limit(const std::string& cgroup_root = "/sys/fs/cgroup",
                                       const std::string& proc_self_cgroup = "/proc/self/cgroup");

// Default number of workers: one per allowed CPU, capped by the cgroup limit
// (rounded up, at least 1).
int default_worker_count();

// Pins the calling thread to one OS CPU; throws std::system_error naming the CPU on failure.
void pin_current_thread(int os_cpu);

// The calling thread's affinity mask, restored on scope exit (for probes that
// pin the caller to one CPU after another).
class AffinityGuard {
 public:
  AffinityGuard() { ok_ = pthread_getaffinity_np(pthread_self(), sizeof(set_), &set_) == 0; }
  ~AffinityGuard() {
    if (ok_) pthread_setaffinity_np(pthread_self(), sizeof(set_), &set_);
  }
  AffinityGuard(const AffinityGuard&) = delete;
  AffinityGuard& operator=(const AffinityGuard&) = delete;

 private:
  cpu_set_t set_{};
  bool ok_ = false;
};

}  // namespace weft::sched
