#include "machine_topology.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "weft/sched/topology_io.hpp"

namespace weft::detail {

namespace {
// Intentionally never destroyed (see the header).
std::mutex& topology_mutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
std::map<std::string, std::unique_ptr<const sched::Topology>>& loaded_topologies() {
  static auto* loaded = new std::map<std::string, std::unique_ptr<const sched::Topology>>;
  return *loaded;
}
}  // namespace

const sched::Topology& machine_topology(const std::string& file) {
  std::lock_guard lock(topology_mutex());
  auto& loaded = loaded_topologies();
  auto& slot = loaded[file];
  if (!slot) {
    if (file.empty()) {
      slot = std::make_unique<const sched::Topology>(sched::Topology::discover());
    } else {
      try {
        slot = std::make_unique<const sched::Topology>(sched::load_topology(file));
      } catch (const std::exception& e) {
        loaded.erase(file);
        throw std::runtime_error(std::string("weft: topology file (Config::topology_file / WEFT_TOPOLOGY): ") +
                                 e.what());
      }
    }
  }
  return *slot;
}

bool machine_topology_loaded(const std::string& file) {
  std::lock_guard lock(topology_mutex());
  auto it = loaded_topologies().find(file);
  return it != loaded_topologies().end() && it->second;
}

}  // namespace weft::detail
