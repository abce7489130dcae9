// Intel RAPL energy counters through Linux powercap
// (/sys/class/powercap/intel-rapl:<pkg>[:<sub>]/energy_uj): which domains
// there are, whether they can be read, and average watts between two
// samples. power.hpp describes the interface.
#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "sysfs_file.hpp"
#include "weft/sched/power.hpp"

namespace weft::sched {

namespace {

using detail::read_first_line;
using detail::read_number;

// "intel-rapl:<a>" -> {a}; "intel-rapl:<a>:<b>" -> {a, b}; else empty.
std::vector<int> rapl_indices(const std::string& entry) {
  const std::string prefix = "intel-rapl:";
  if (entry.rfind(prefix, 0) != 0) return {};
  std::vector<int> out;
  std::stringstream rest(entry.substr(prefix.size()));
  std::string part;
  while (std::getline(rest, part, ':')) {
    if (part.empty() || !std::all_of(part.begin(), part.end(), ::isdigit)) return {};
    out.push_back(std::stoi(part));
  }
  return out;
}

}  // namespace

RaplStatus rapl_status(const std::string& root) {
  RaplStatus st;
  DIR* dir = opendir(root.c_str());
  if (!dir) {
    st.reason = root + " cannot be opened (" + std::strerror(errno) +
                "): no Linux powercap interface, so no RAPL (it needs an Intel CPU since Sandy Bridge or an AMD "
                "Zen CPU, the intel_rapl_msr / intel_rapl_common driver, and /sys mounted)";
    return st;
  }
  struct Entry {
    std::string name;
    std::vector<int> idx;
  };
  std::vector<Entry> entries;
  while (dirent* e = readdir(dir)) {
    std::string n = e->d_name;
    auto idx = rapl_indices(n);
    if (!idx.empty() && idx.size() <= 2) entries.push_back({n, idx});
  }
  closedir(dir);
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.idx < b.idx; });
  std::map<int, int> package_of_zone;  // top-level zone index -> package id
  for (const auto& e : entries) {
    RaplDomain d;
    d.path = root + "/" + e.name;
    std::optional<std::string> name = read_first_line(d.path + "/name");
    if (!name) continue;
    d.name = *name;
    if (std::optional<double> range = read_number(d.path + "/max_energy_range_uj")) d.max_energy_uj = *range;
    if (e.idx.size() == 1) {
      if (d.name.rfind("package-", 0) != 0) continue;  // e.g. "psys"
      try {
        d.package = std::stoi(d.name.substr(8));
      } catch (...) {
        continue;
      }
      package_of_zone[e.idx[0]] = d.package;
      st.packages.push_back(d);
    } else if (d.name == "dram") {
      auto it = package_of_zone.find(e.idx[0]);
      if (it == package_of_zone.end()) continue;
      d.package = it->second;
      st.dram.push_back(d);
    }
  }
  std::sort(st.packages.begin(), st.packages.end(), [](const RaplDomain& a, const RaplDomain& b) { return a.package < b.package; });
  std::sort(st.dram.begin(), st.dram.end(), [](const RaplDomain& a, const RaplDomain& b) { return a.package < b.package; });
  if (st.packages.empty()) {
    st.reason = root + " has no RAPL package domain (intel-rapl:<n> named package-<n>): this CPU or kernel exposes no RAPL";
    return st;
  }
  for (const auto* list : {&st.packages, &st.dram})
    for (const auto& d : *list) {
      int err = 0;
      if (!read_number(d.path + "/energy_uj", &err)) {
        st.reason = "cannot read " + d.path + "/energy_uj (" + std::strerror(err) + ")" +
                    (err == EACCES || err == EPERM
                         ? ": since Linux 5.10 (CVE-2020-8694) the RAPL energy counters are readable by root only; "
                           "run as root or make them readable (chmod a+r .../energy_uj)"
                         : "");
        return st;
      }
    }
  st.available = true;
  return st;
}

std::string RaplStatus::describe() const {
  std::ostringstream o;
  if (!available) {
    o << "RAPL: unavailable: " << reason << "\n";
    return o.str();
  }
  o << "RAPL: available, " << packages.size() << " package domain(s), " << dram.size() << " DRAM domain(s)\n";
  for (const auto& d : packages) o << "  " << d.path << " (" << d.name << ")\n";
  for (const auto& d : dram) o << "  " << d.path << " (dram of package " << d.package << ")\n";
  return o.str();
}

RaplSample rapl_sample(const RaplStatus& st) {
  RaplSample s;
  s.when = std::chrono::steady_clock::now();
  auto read = [](const RaplDomain& d) {
    int err = 0;
    std::optional<double> v = read_number(d.path + "/energy_uj", &err);
    if (!v) throw PowerUnavailable("weft: cannot read " + d.path + "/energy_uj (" + std::strerror(err) + ")");
    return *v;
  };
  for (const auto& d : st.packages) s.package_uj.push_back(read(d));
  for (const auto& d : st.dram) s.dram_uj.push_back(read(d));
  return s;
}

RaplPower rapl_power(const RaplStatus& st, const RaplSample& a, const RaplSample& b) {
  const double secs = std::chrono::duration<double>(b.when - a.when).count();
  if (!(secs > 0)) throw std::invalid_argument("weft::sched::rapl_power: the second sample is not later than the first");
  auto watts = [&](const std::vector<RaplDomain>& doms, const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != doms.size() || y.size() != doms.size())
      throw std::invalid_argument("weft::sched::rapl_power: samples do not match the status's domains");
    std::vector<double> out;
    for (size_t i = 0; i < doms.size(); ++i) {
      double d = y[i] - x[i];
      if (d < 0) d += doms[i].max_energy_uj;  // the counter wrapped
      out.push_back(std::max(0.0, d) / 1e6 / secs);
    }
    return out;
  };
  return {watts(st.packages, a.package_uj, b.package_uj), watts(st.dram, a.dram_uj, b.dram_uj)};
}

}  // namespace weft::sched
