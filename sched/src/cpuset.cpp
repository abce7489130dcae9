#include "weft/sched/cpuset.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <sstream>
#include <system_error>

#include "sysfs_file.hpp"

namespace weft::sched {

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    throw std::system_error(errno, std::generic_category(), "weft: sched_getaffinity failed");
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

namespace {

using detail::read_first_line;

// Limit (in CPUs) set by one cgroup directory, v2 or v1; nullopt if none.
std::optional<double> limit_in_dir(const std::string& dir) {
  if (auto line = read_first_line(dir + "/cpu.max")) {  // v2: "<quota|max> <period>"
    std::istringstream fields(*line);
    std::string quota;
    double period = 0;
    if (fields >> quota >> period && quota != "max" && period > 0) {
      double q = std::stod(quota);
      if (q > 0) return q / period;
    }
    return std::nullopt;
  }
  auto quota = read_first_line(dir + "/cpu.cfs_quota_us");  // v1
  auto period = read_first_line(dir + "/cpu.cfs_period_us");
  if (quota && period) {
    double q = std::stod(*quota), p = std::stod(*period);
    if (q > 0 && p > 0) return q / p;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> cgroup_cpu_limit(const std::string& cgroup_root,
                                       const std::string& proc_self_cgroup) {
  std::ifstream in(proc_self_cgroup);
  std::string line;
  std::optional<double> tightest;
  auto consider = [&](std::optional<double> limit) {
    if (limit && (!tightest || *limit < *tightest)) tightest = limit;
  };
  while (std::getline(in, line)) {
    // "hierarchy-id:controllers:path"; v2 has "0::/path", v1 lists "cpu" among controllers.
    auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    std::string base = cgroup_root;
    if (!controllers.empty()) {
      std::istringstream list(controllers);
      std::string c;
      bool has_cpu = false;
      while (std::getline(list, c, ',')) has_cpu |= (c == "cpu");
      if (!has_cpu) continue;
      base = cgroup_root + "/cpu";
      if (!read_first_line(base + "/cpu.cfs_period_us")) base = cgroup_root + "/cpu,cpuacct";
    }
    // Walk from the process's cgroup up to the root: any ancestor's limit applies.
    for (std::string p = path;; p = p.substr(0, p.rfind('/'))) {
      consider(limit_in_dir(base + p));
      if (p.empty() || p == "/") break;
      if (p.rfind('/') == 0) { consider(limit_in_dir(base)); break; }
    }
  }
  return tightest;
}

int default_worker_count() {
  int n = static_cast<int>(allowed_cpus().size());
  if (auto limit = cgroup_cpu_limit()) n = std::min(n, static_cast<int>(std::ceil(*limit)));
  return std::max(n, 1);
}

void pin_current_thread(int os_cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (os_cpu < 0 || os_cpu >= CPU_SETSIZE)
    throw std::system_error(EINVAL, std::generic_category(),
                            "weft: cannot pin to CPU " + std::to_string(os_cpu) + " (out of range)");
  CPU_SET(os_cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0)
    throw std::system_error(errno, std::generic_category(),
                            "weft: cannot pin thread to CPU " + std::to_string(os_cpu) +
                                " (is it in the process's affinity mask?)");
}

}  // namespace weft::sched
