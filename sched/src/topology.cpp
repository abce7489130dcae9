// Topology's queries, the names of its enums and the memory enrichment
// (with_memory). Construction: topology_parts.cpp, topology_hwloc.cpp;
// power: power_model.cpp; text: topology_text.cpp.
#include "weft/sched/topology.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "topology_impl.hpp"

namespace weft::sched {

std::string_view to_string(LevelRole role) {
  switch (role) {
    case LevelRole::Core: return "core";
    case LevelRole::Group: return "group";
    case LevelRole::Socket: return "socket";
    case LevelRole::CrossSocket: return "cross-socket";
  }
  return "?";
}

std::string_view to_string(LatencySource source) {
  return source == LatencySource::Measured ? "measured" : "estimated";
}

namespace {
void check_ctx(const Topology::Impl& t, int ctx) {
  if (ctx < 0 || ctx >= t.n())
    throw std::out_of_range("weft::sched::Topology: context " + std::to_string(ctx) + " out of range [0," +
                            std::to_string(t.n()) + ")");
}
}  // namespace

int Topology::num_contexts() const { return impl_->n(); }
int Topology::num_cores() const { return static_cast<int>(impl_->core_ctx.size()); }
int Topology::num_sockets() const { return static_cast<int>(impl_->socket_ctx.size()); }
int Topology::num_nodes() const { return static_cast<int>(impl_->nodes.size()); }
int Topology::os_cpu(int ctx) const { return context(ctx).os_cpu; }
int Topology::context_of_os_cpu(int os_cpu) const {
  auto it = impl_->os_to_ctx.find(os_cpu);
  return it == impl_->os_to_ctx.end() ? -1 : it->second;
}
int Topology::core_of(int ctx) const { return context(ctx).core; }
int Topology::socket_of(int ctx) const { return context(ctx).socket; }
int Topology::node_of(int ctx) const { return context(ctx).node; }
const ContextInfo& Topology::context(int ctx) const {
  check_ctx(*impl_, ctx);
  return impl_->ctx[ctx];
}
const std::vector<int>& Topology::core_contexts(int core) const { return impl_->core_ctx.at(core); }
const std::vector<int>& Topology::socket_contexts(int socket) const { return impl_->socket_ctx.at(socket); }
const std::vector<int>& Topology::socket_cores(int socket) const { return impl_->socket_cores.at(socket); }
int Topology::socket_of_core(int core) const { return impl_->core_socket.at(core); }
const std::vector<int>& Topology::node_ids() const { return impl_->nodes; }
int Topology::socket_node(int socket) const { return impl_->socket_node.at(socket); }
int Topology::max_contexts_per_core() const { return impl_->max_per_core; }

double Topology::latency(int a, int b) const {
  check_ctx(*impl_, a);
  check_ctx(*impl_, b);
  return impl_->lat[static_cast<size_t>(a) * impl_->n() + b];
}
double Topology::socket_latency(int a, int b) const {
  const int s = num_sockets();
  if (a < 0 || a >= s || b < 0 || b >= s) throw std::out_of_range("weft::sched::Topology: socket out of range");
  return impl_->socket_lat[static_cast<size_t>(a) * s + b];
}

std::vector<int> Topology::by_distance(int ctx) const {
  check_ctx(*impl_, ctx);
  std::vector<int> out(num_contexts());
  std::iota(out.begin(), out.end(), 0);
  const double* row = &impl_->lat[static_cast<size_t>(ctx) * impl_->n()];
  std::stable_sort(out.begin(), out.end(), [row](int x, int y) { return row[x] < row[y]; });
  return out;
}

double Topology::max_latency(std::span<const int> ctxs) const {
  double m = 0;
  for (size_t i = 0; i < ctxs.size(); ++i)
    for (size_t j = i + 1; j < ctxs.size(); ++j) m = std::max(m, latency(ctxs[i], ctxs[j]));
  return m;
}

double Topology::min_latency(std::span<const int> ctxs) const {
  double m = 0;
  for (size_t i = 0; i < ctxs.size(); ++i)
    for (size_t j = i + 1; j < ctxs.size(); ++j) {
      double v = latency(ctxs[i], ctxs[j]);
      if (v > 0 && (m == 0 || v < m)) m = v;
    }
  return m;
}

const std::vector<TopologyLevel>& Topology::levels() const { return impl_->levels; }
std::vector<double> Topology::latency_values() const {
  std::vector<double> v;
  for (double x : impl_->lat)
    if (x > 0) v.push_back(x);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}
LatencySource Topology::latency_source() const { return impl_->source; }
const std::string& Topology::description() const { return impl_->description; }
const std::vector<double>& Topology::latency_table() const { return impl_->lat; }

MemoryInfo Topology::memory(int os_node) const {
  auto it = impl_->memory.find(os_node);
  return it == impl_->memory.end() ? MemoryInfo{} : it->second;
}
bool Topology::has_memory_info() const {
  return std::any_of(impl_->memory.begin(), impl_->memory.end(), [](const auto& kv) { return kv.second.measured(); });
}
Topology Topology::with_memory(int os_node, const MemoryInfo& info) const {
  if (!std::binary_search(impl_->nodes.begin(), impl_->nodes.end(), os_node))
    throw std::invalid_argument("weft::sched::Topology::with_memory: node " + std::to_string(os_node) +
                                " is not in this topology");
  auto copy = std::make_shared<Impl>(*impl_);
  copy->memory[os_node] = info;
  return Topology(std::move(copy));
}

}  // namespace weft::sched
