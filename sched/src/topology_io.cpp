#include "weft/sched/topology_io.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <istream>
#include <optional>
#include <ostream>
#include <sstream>
#include <vector>

#include "text_format.hpp"

namespace weft::sched {

TopologyFormatError::TopologyFormatError(const std::string& source, int line, const std::string& message)
    : std::runtime_error(source + ":" + std::to_string(line) + ": " + message), line_(line) {}

namespace {
// Every digit a double has, so that a loaded topology equals the saved one.
std::string num(double v) { return detail::format_number(v, "%.17g"); }
}  // namespace

void save_topology(const Topology& t, std::ostream& out) {
  const int n = t.num_contexts();
  out << "# weft topology description; format: docs/topology-format.md; latencies in cycles\n";
  out << "weft-topology 1\n";
  std::string desc = t.description();
  for (char& c : desc)
    if (c == '\n' || c == '\r') c = ' ';
  out << "description " << desc << "\n";
  out << "source " << to_string(t.latency_source()) << "\n";
  out << "contexts " << n << "\n";
  for (int i = 0; i < n; ++i) {
    const ContextInfo& c = t.context(i);
    out << "ctx " << i << ' ' << c.os_cpu << ' ' << c.core << ' ' << c.socket << ' ' << c.node << "\n";
  }
  for (int a = 0; a < n; ++a) {
    out << "latency " << a;
    for (int b = 0; b < n; ++b) out << ' ' << num(t.latency(a, b));
    out << "\n";
  }
  for (int node : t.node_ids()) {
    MemoryInfo m = t.memory(node);
    if (m.measured())
      out << "memory " << node << ' ' << num(m.latency_ns) << ' ' << num(m.bandwidth_gbs) << ' '
          << num(m.bandwidth_single_gbs) << "\n";
  }
  if (t.has_power_info()) {
    out << "power-source " << to_string(t.power_source()) << "\n";
    for (int s = 0; s < t.num_sockets(); ++s) {
      PowerInfo p = t.power(s);
      out << "power " << s << ' ' << num(p.idle_w) << ' ' << num(p.socket_w) << ' ' << num(p.core_w) << ' '
          << num(p.context_w) << ' ' << num(p.dram_idle_w) << ' ' << num(p.dram_active_w) << "\n";
    }
  }
  out << "end\n";
}

void save_topology(const Topology& t, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("weft::sched: cannot write topology file \"" + path + "\"");
  save_topology(t, f);
  f.flush();
  if (!f) throw std::runtime_error("weft::sched: error writing topology file \"" + path + "\"");
}

namespace {

class Reader {
 public:
  Reader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

  // Next non-blank, non-comment line split into words; false at end of input.
  bool next() {
    std::string line;
    while (std::getline(in_, line)) {
      ++lineno_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t p = line.find_first_not_of(" \t");
      if (p == std::string::npos || line[p] == '#') continue;
      raw_ = line.substr(p);
      words_.clear();
      std::istringstream ws(raw_);
      for (std::string w; ws >> w;) words_.push_back(w);
      return true;
    }
    ++lineno_;
    eof_ = true;
    return false;
  }
  [[noreturn]] void fail(const std::string& expected) const {
    throw TopologyFormatError(source_, lineno_, "expected " + expected + (eof_ ? ", got end of file" : ", got '" + raw_ + "'"));
  }
  void need(const std::string& keyword, const std::string& expected) {
    if (!next()) fail(expected);
    if (words_.empty() || words_[0] != keyword) fail(expected);
  }
  long integer(size_t i, const std::string& expected, long min = 0) const {
    if (i >= words_.size()) fail(expected);
    const std::string& w = words_[i];
    size_t used = 0;
    long v = 0;
    try {
      v = std::stol(w, &used);
    } catch (...) {
      fail(expected);
    }
    if (used != w.size() || v < min) fail(expected);
    return v;
  }
  double real(size_t i, const std::string& expected) const {
    if (i >= words_.size()) fail(expected);
    const std::string& w = words_[i];
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(w, &used);
    } catch (...) {
      fail(expected);
    }
    if (used != w.size() || !std::isfinite(v) || v < 0) fail(expected);
    return v;
  }
  void exact_words(size_t k, const std::string& expected) const {
    if (words_.size() != k) fail(expected);
  }
  const std::vector<std::string>& words() const { return words_; }
  const std::string& raw() const { return raw_; }
  int line() const { return lineno_; }
  const std::string& source() const { return source_; }

 private:
  std::istream& in_;
  std::string source_;
  std::string raw_;
  std::vector<std::string> words_;
  int lineno_ = 0;
  bool eof_ = false;
};

}  // namespace

Topology load_topology(std::istream& in, const std::string& source) {
  Reader r(in, source);
  r.need("weft-topology", "header 'weft-topology 1'");
  r.exact_words(2, "header 'weft-topology 1'");
  if (r.words()[1] != "1") r.fail("format version 1 ('weft-topology 1')");
  r.need("description", "'description <text>'");
  std::string description = r.raw().size() > 12 ? r.raw().substr(12) : std::string();
  r.need("source", "'source estimated' or 'source measured'");
  r.exact_words(2, "'source estimated' or 'source measured'");
  LatencySource src;
  if (r.words()[1] == "estimated") src = LatencySource::Estimated;
  else if (r.words()[1] == "measured") src = LatencySource::Measured;
  else r.fail("'source estimated' or 'source measured'");
  r.need("contexts", "'contexts <N>' with N >= 1");
  r.exact_words(2, "'contexts <N>' with N >= 1");
  const long n = r.integer(1, "'contexts <N>' with N >= 1", 1);
  if (n > 65536) r.fail("'contexts <N>' with N <= 65536");
  std::vector<ContextInfo> ctx;
  for (long i = 0; i < n; ++i) {
    const std::string e = "'ctx " + std::to_string(i) + " <os_cpu> <core> <socket> <node>' (context " +
                          std::to_string(i) + " of " + std::to_string(n) + ")";
    r.need("ctx", e);
    r.exact_words(6, e);
    if (r.integer(1, e) != i) r.fail(e);
    ctx.push_back({static_cast<int>(r.integer(2, e)), static_cast<int>(r.integer(3, e)),
                   static_cast<int>(r.integer(4, e)), static_cast<int>(r.integer(5, e))});
  }
  std::vector<double> lat(static_cast<size_t>(n) * n);
  for (long a = 0; a < n; ++a) {
    const std::string e = "'latency " + std::to_string(a) + "' followed by " + std::to_string(n) +
                          " non-negative numbers (row " + std::to_string(a) + " of the latency table)";
    r.need("latency", e);
    r.exact_words(static_cast<size_t>(n) + 2, e);
    if (r.integer(1, e) != a) r.fail(e);
    for (long b = 0; b < n; ++b) lat[a * n + b] = r.real(static_cast<size_t>(b) + 2, e);
  }
  struct Mem {
    int node;
    MemoryInfo info;
    int line;
  };
  std::vector<Mem> mem;
  struct Pow {
    long socket;
    PowerInfo info;
    int line;
  };
  std::vector<Pow> pow;
  std::optional<PowerSource> pow_source;
  int pow_source_line = 0;
  const std::string me =
      "'memory <node> <latency_ns> <bandwidth_gbs> <bandwidth_single_gbs>', 'power-source measured|estimated', "
      "'power <socket> <idle_w> <socket_w> <core_w> <context_w> <dram_idle_w> <dram_active_w>' or 'end'";
  const std::string pe = "'power <socket> <idle_w> <socket_w> <core_w> <context_w> <dram_idle_w> <dram_active_w>' "
                         "(socket index, then six non-negative watt figures)";
  for (;;) {
    if (!r.next()) r.fail(me);
    const std::string& kw = r.words()[0];
    if (kw == "end") {
      r.exact_words(1, "'end' alone");
      break;
    }
    if (kw == "memory") {
      r.exact_words(5, me);
      mem.push_back({static_cast<int>(r.integer(1, me)), {r.real(2, me), r.real(3, me), r.real(4, me)}, r.line()});
    } else if (kw == "power-source") {
      const std::string e = "'power-source measured' or 'power-source estimated' (once)";
      r.exact_words(2, e);
      if (pow_source) r.fail(e);
      if (r.words()[1] == "measured") pow_source = PowerSource::Measured;
      else if (r.words()[1] == "estimated") pow_source = PowerSource::Estimated;
      else r.fail(e);
      pow_source_line = r.line();
    } else if (kw == "power") {
      r.exact_words(8, pe);
      long s = r.integer(1, pe);
      for (const auto& p : pow)
        if (p.socket == s) throw TopologyFormatError(source, r.line(), "second power line for socket " + std::to_string(s));
      pow.push_back({s, {r.real(2, pe), r.real(3, pe), r.real(4, pe), r.real(5, pe), r.real(6, pe), r.real(7, pe)}, r.line()});
    } else {
      r.fail(me);
    }
  }
  Topology t = [&] {
    try {
      return Topology::from_parts(std::move(ctx), std::move(lat), src, std::move(description));
    } catch (const std::invalid_argument& e) {
      throw TopologyFormatError(source, r.line(), std::string("inconsistent topology: ") + e.what());
    }
  }();
  for (const auto& m : mem) {
    try {
      t = t.with_memory(m.node, m.info);
    } catch (const std::invalid_argument&) {
      throw TopologyFormatError(source, m.line, "memory line for node " + std::to_string(m.node) +
                                                    ", which no context belongs to");
    }
  }
  if (pow_source && pow.empty())
    throw TopologyFormatError(source, pow_source_line, "'power-source' without any 'power <socket> ...' line");
  if (!pow.empty()) {
    std::vector<PowerInfo> per_socket(static_cast<size_t>(t.num_sockets()));
    std::vector<bool> seen(per_socket.size(), false);
    for (const auto& p : pow) {
      if (p.socket >= t.num_sockets())
        throw TopologyFormatError(source, p.line, "power line for socket " + std::to_string(p.socket) + ", but the topology has " +
                                                      std::to_string(t.num_sockets()) + " sockets (0.." +
                                                      std::to_string(t.num_sockets() - 1) + ")");
      per_socket[static_cast<size_t>(p.socket)] = p.info;
      seen[static_cast<size_t>(p.socket)] = true;
    }
    for (size_t s = 0; s < seen.size(); ++s)
      if (!seen[s])
        throw TopologyFormatError(source, pow.back().line, "power lines must cover every socket; socket " + std::to_string(s) +
                                                               " has none");
    // Unknown provenance counts as an estimate (docs/topology-format.md).
    t = t.with_power(std::move(per_socket), pow_source.value_or(PowerSource::Estimated));
  }
  return t;
}

Topology load_topology(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("weft::sched: cannot read topology file \"" + path + "\"");
  return load_topology(f, path);
}

}  // namespace weft::sched
