// OMP_PLACES / OMP_PROC_BIND (OpenMP 5.2 §21.1.6-7, §10.1.3) as a worker
// placement. See omp_places.hpp for the grammar and the mapping.
#include "weft/sched/omp_places.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "text_format.hpp"

namespace weft::sched {

namespace {

constexpr long kMaxCpu = 1 << 20;       // largest CPU id accepted
constexpr long kMaxPlaces = 65536;      // longest place list (libgomp's limit too)
constexpr long kMaxPlaceSize = 1 << 20; // most CPUs in one place

std::string excerpt(std::string_view value, size_t pos) {
  if (pos >= value.size()) return "the end of the value";
  std::string s(value.substr(pos, 24));
  if (pos + 24 < value.size()) s += "...";
  return s;
}

class Parser {
 public:
  Parser(std::string_view value, std::string_view var) : v_(value), var_(var) {}

  [[noreturn]] void fail(size_t pos, const std::string& what) const {
    std::string part = excerpt(v_, pos);
    std::string where = pos >= v_.size() ? " at the end of the value" : " at '" + part + "' (column " + std::to_string(pos + 1) + ")";
    throw OmpEnvError(std::string(var_), std::string(v_), part, what + where);
  }
  void ws() {
    while (p_ < v_.size() && std::isspace(static_cast<unsigned char>(v_[p_]))) ++p_;
  }
  bool at_end() {
    ws();
    return p_ >= v_.size();
  }
  bool eat(char c) {
    ws();
    if (p_ < v_.size() && v_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  char peek() {
    ws();
    return p_ < v_.size() ? v_[p_] : '\0';
  }
  size_t pos() {
    ws();
    return p_;
  }
  // An integer; `what` describes it in errors. Signed only if allow_negative.
  long integer(const std::string& what, long min, long max, bool allow_negative = false) {
    ws();
    const size_t start = p_;
    bool neg = false;
    if (allow_negative && p_ < v_.size() && (v_[p_] == '-' || v_[p_] == '+')) neg = v_[p_++] == '-';
    if (p_ >= v_.size() || !std::isdigit(static_cast<unsigned char>(v_[p_]))) fail(start, "expected " + what);
    long x = 0;
    while (p_ < v_.size() && std::isdigit(static_cast<unsigned char>(v_[p_]))) {
      x = x * 10 + (v_[p_++] - '0');
      if (x > 4 * kMaxCpu) fail(start, what + " is too large");
    }
    if (neg) x = -x;
    if (x < min || x > max) fail(start, what + " must be between " + std::to_string(min) + " and " + std::to_string(max));
    return x;
  }
  std::string word() {
    ws();
    std::string w;
    while (p_ < v_.size() && (std::isalnum(static_cast<unsigned char>(v_[p_])) || v_[p_] == '_'))
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(v_[p_++])));
    return w;
  }

 private:
  std::string_view v_;
  std::string_view var_;
  size_t p_ = 0;
};

// place := '{' res-list '}' | res ; returns the place (sorted, unique).
std::vector<int> parse_place(Parser& in) {
  std::set<int> cpus;
  if (!in.eat('{')) {
    cpus.insert(static_cast<int>(in.integer("a non-negative CPU number or '{'", 0, kMaxCpu)));
    return {cpus.begin(), cpus.end()};
  }
  const size_t open = in.pos() - 1;
  std::vector<int> excluded;
  for (;;) {
    const size_t at = in.pos();
    const bool neg = in.eat('!');
    long res = in.integer("a non-negative CPU number", 0, kMaxCpu);
    if (in.eat(':')) {
      if (neg) in.fail(at, "an excluded CPU ('!') cannot take ':' (exclude single CPUs)");
      long n = in.integer("a positive count after ':'", 1, kMaxPlaceSize);
      long stride = 1;
      if (in.eat(':')) stride = in.integer("a stride (an integer) after the second ':'", -kMaxCpu, kMaxCpu, true);
      for (long j = 0; j < n; ++j) {
        long cpu = res + j * stride;
        if (cpu < 0 || cpu > kMaxCpu) in.fail(at, "the interval reaches CPU " + std::to_string(cpu));
        cpus.insert(static_cast<int>(cpu));
      }
    } else if (neg) {
      excluded.push_back(static_cast<int>(res));
    } else {
      cpus.insert(static_cast<int>(res));
    }
    if (in.eat('}')) break;
    if (!in.eat(',')) in.fail(in.pos(), "expected ',' or '}' in a place");
  }
  for (int x : excluded) cpus.erase(x);  // exclusions apply after the place's other entries
  if (cpus.empty()) in.fail(open, "the place is empty");
  return {cpus.begin(), cpus.end()};
}

struct AbstractName {
  std::string_view name;
  OmpPlacesSpec::Kind kind;
};
constexpr AbstractName kNames[] = {{"threads", OmpPlacesSpec::Kind::Threads},
                                   {"cores", OmpPlacesSpec::Kind::Cores},
                                   {"ll_caches", OmpPlacesSpec::Kind::LlCaches},
                                   {"numa_domains", OmpPlacesSpec::Kind::NumaDomains},
                                   {"sockets", OmpPlacesSpec::Kind::Sockets}};

using detail::join;

}  // namespace

OmpEnvError::OmpEnvError(std::string variable, std::string value, std::string part, const std::string& message)
    : std::invalid_argument("weft: environment variable " + variable + "='" + value + "' is invalid: " + message),
      variable_(std::move(variable)),
      part_(std::move(part)) {}

std::string_view to_string(OmpPlacesSpec::Kind kind) {
  if (kind == OmpPlacesSpec::Kind::Explicit) return "explicit";
  for (const auto& n : kNames)
    if (n.kind == kind) return n.name;
  return "?";
}

OmpPlacesSpec parse_omp_places(std::string_view value, std::string_view variable) {
  Parser in(value, variable);
  OmpPlacesSpec spec;
  if (in.at_end()) in.fail(in.pos(), "expected an abstract name (threads, cores, ll_caches, numa_domains, sockets) or a place list");
  if (std::isalpha(static_cast<unsigned char>(in.peek()))) {
    const size_t at = in.pos();
    std::string w = in.word();
    const AbstractName* found = nullptr;
    for (const auto& n : kNames)
      if (n.name == w) found = &n;
    if (!found)
      in.fail(at, "unknown abstract name '" + w + "' (expected threads, cores, ll_caches, numa_domains or sockets, "
                  "optionally with (n), or an explicit place list such as {0:4},{4:4})");
    spec.kind = found->kind;
    if (in.eat('(')) {
      spec.count = static_cast<int>(in.integer("a positive number of places", 1, kMaxPlaces));
      if (!in.eat(')')) in.fail(in.pos(), "expected ')'");
    }
    if (!in.at_end()) in.fail(in.pos(), "unexpected text after the abstract name");
    return spec;
  }
  auto& places = spec.places;
  for (;;) {
    const size_t at = in.pos();
    const bool neg = in.eat('!');
    std::vector<int> place = parse_place(in);
    if (neg) {
      if (in.peek() == ':') in.fail(in.pos(), "an excluded place ('!') cannot take ':len'");
      auto it = std::find(places.begin(), places.end(), place);
      if (it == places.end()) in.fail(at, "'!' excludes the place {" + join(place) + "}, which is not in the list before it");
      places.erase(it);
    } else {
      long len = 1, stride = 1;
      if (in.eat(':')) {
        len = in.integer("a positive place count after ':'", 1, kMaxPlaces);
        if (in.eat(':')) stride = in.integer("a stride (an integer) after the second ':'", -kMaxCpu, kMaxCpu, true);
      }
      if (static_cast<long>(places.size()) + len > kMaxPlaces)
        in.fail(at, "more than " + std::to_string(kMaxPlaces) + " places");
      for (long j = 0; j < len; ++j) {
        std::vector<int> copy;
        for (int cpu : place) {
          long c = cpu + j * stride;
          if (c < 0 || c > kMaxCpu) in.fail(at, "the place interval reaches CPU " + std::to_string(c));
          copy.push_back(static_cast<int>(c));
        }
        std::sort(copy.begin(), copy.end());
        places.push_back(std::move(copy));
      }
    }
    if (in.at_end()) break;
    if (!in.eat(',')) in.fail(in.pos(), "expected ',' between places");
    if (in.at_end()) in.fail(in.pos(), "expected a place after ','");
  }
  if (places.empty()) in.fail(0, "every place has been excluded");
  return spec;
}

OmpPlaceList resolve_omp_places(const OmpPlacesSpec& spec, const Topology& t, std::string_view value,
                                std::string_view variable) {
  OmpPlaceList out;
  auto os = [&](const std::vector<int>& ctxs) {
    std::vector<int> cpus;
    for (int c : ctxs) cpus.push_back(t.os_cpu(c));
    std::sort(cpus.begin(), cpus.end());
    return cpus;
  };
  switch (spec.kind) {
    case OmpPlacesSpec::Kind::Explicit:
      for (const auto& place : spec.places) {
        std::vector<int> kept;
        for (int cpu : place) {
          if (t.context_of_os_cpu(cpu) >= 0) kept.push_back(cpu);
          else if (std::find(out.dropped_cpus.begin(), out.dropped_cpus.end(), cpu) == out.dropped_cpus.end())
            out.dropped_cpus.push_back(cpu);
        }
        if (!kept.empty()) out.places.push_back(std::move(kept));
      }
      std::sort(out.dropped_cpus.begin(), out.dropped_cpus.end());
      if (out.places.empty()) {
        std::string have;
        std::vector<int> cpus;
        for (int c = 0; c < t.num_contexts(); ++c) cpus.push_back(t.os_cpu(c));
        have = join(cpus);
        throw OmpEnvError(std::string(variable), std::string(value), std::string(value),
                          "none of its CPUs is available to this process (available: " + have + ")");
      }
      return out;
    case OmpPlacesSpec::Kind::Threads:
      for (int c = 0; c < t.num_contexts(); ++c) out.places.push_back({t.os_cpu(c)});
      break;
    case OmpPlacesSpec::Kind::Cores:
      for (int core = 0; core < t.num_cores(); ++core) out.places.push_back(os(t.core_contexts(core)));
      break;
    case OmpPlacesSpec::Kind::Sockets:
      for (int s = 0; s < t.num_sockets(); ++s) out.places.push_back(os(t.socket_contexts(s)));
      break;
    case OmpPlacesSpec::Kind::NumaDomains: {
      std::map<int, std::vector<int>> by_node;  // node -> contexts; ordered below by first context
      for (int c = 0; c < t.num_contexts(); ++c) by_node[t.node_of(c)].push_back(c);
      std::vector<std::vector<int>> groups;
      for (auto& [node, ctxs] : by_node) groups.push_back(ctxs);
      std::sort(groups.begin(), groups.end());
      for (const auto& g : groups) out.places.push_back(os(g));
      break;
    }
    case OmpPlacesSpec::Kind::LlCaches: {
      const TopologyLevel* widest = nullptr;
      for (const auto& level : t.levels())
        if (level.role == LevelRole::Group) widest = &level;  // levels ascend: the last Group is the widest
      if (widest) {
        for (const auto& g : widest->groups) out.places.push_back(os(g));
      } else {
        for (int s = 0; s < t.num_sockets(); ++s) out.places.push_back(os(t.socket_contexts(s)));
      }
      break;
    }
  }
  if (spec.count && static_cast<size_t>(*spec.count) < out.places.size()) out.places.resize(static_cast<size_t>(*spec.count));
  return out;
}

std::string_view to_string(OmpBind bind) {
  switch (bind) {
    case OmpBind::False: return "false";
    case OmpBind::True: return "true";
    case OmpBind::Primary: return "primary";
    case OmpBind::Close: return "close";
    case OmpBind::Spread: return "spread";
  }
  return "?";
}

std::vector<OmpBind> parse_omp_proc_bind(std::string_view value, std::string_view variable) {
  Parser in(value, variable);
  const std::string expected = "true, false, or a comma-separated list of primary, master, close, spread";
  if (in.at_end()) in.fail(in.pos(), "expected " + expected);
  std::vector<OmpBind> out;
  for (;;) {
    const size_t at = in.pos();
    std::string w = in.word();
    OmpBind b;
    if (w == "true") b = OmpBind::True;
    else if (w == "false") b = OmpBind::False;
    else if (w == "primary" || w == "master") b = OmpBind::Primary;
    else if (w == "close") b = OmpBind::Close;
    else if (w == "spread") b = OmpBind::Spread;
    else in.fail(at, w.empty() ? "expected " + expected : "unknown binding '" + w + "' (expected " + expected + ")");
    if ((b == OmpBind::True || b == OmpBind::False) && !out.empty())
      in.fail(at, "'" + w + "' cannot be part of a list (true and false stand alone)");
    if (!out.empty() && (out[0] == OmpBind::True || out[0] == OmpBind::False))
      in.fail(at, "'" + std::string(to_string(out[0])) + "' cannot be part of a list (true and false stand alone)");
    out.push_back(b);
    if (in.at_end()) break;
    if (!in.eat(',')) in.fail(in.pos(), "expected ',' between bindings");
  }
  return out;
}

std::vector<int> omp_thread_places(OmpBind bind, int P, int T) {
  if (P < 1 || T < 1)
    throw std::invalid_argument("weft::sched::omp_thread_places: " + std::to_string(T) + " threads on " + std::to_string(P) +
                                " places (both must be >= 1)");
  std::vector<int> out(static_cast<size_t>(T), 0);
  switch (bind) {
    case OmpBind::False:
      throw std::invalid_argument("weft::sched::omp_thread_places: OMP_PROC_BIND=false binds no thread to a place");
    case OmpBind::Primary: break;
    case OmpBind::Spread:
      if (T <= P) {
        const int s = P / T, rest = P % T;
        for (int i = 0; i < T; ++i) out[static_cast<size_t>(i)] = i * s + std::min(i, rest);
        break;
      }
      [[fallthrough]];  // T > P: one place per subpartition, as CLOSE
    case OmpBind::True:
    case OmpBind::Close:
      if (T <= P) {
        for (int i = 0; i < T; ++i) out[static_cast<size_t>(i)] = i;
      } else {
        const int s = T / P, rest = T % P;
        int i = 0;
        for (int place = 0; place < P; ++place)
          for (int k = 0; k < s + (place < rest ? 1 : 0); ++k) out[static_cast<size_t>(i++)] = place;
      }
      break;
  }
  return out;
}

OmpBinding omp_binding(const Topology& t, std::optional<std::string_view> places,
                       std::optional<std::string_view> proc_bind, int n_threads) {
  OmpBinding b;
  b.active = places.has_value() || proc_bind.has_value();
  if (!b.active) return b;
  if (n_threads < 1) throw std::invalid_argument("weft::sched::omp_binding: thread count must be at least 1");
  std::optional<OmpPlacesSpec> spec;
  if (places) {
    b.places_text = std::string(*places);
    spec = parse_omp_places(*places);  // validated even when binding is off
  }
  if (proc_bind) {
    b.bind_text = std::string(*proc_bind);
    b.bind = parse_omp_proc_bind(*proc_bind).front();
  } else {
    b.bind = OmpBind::True;  // OMP_PLACES set, OMP_PROC_BIND unset: libgomp binds
  }
  if (b.bind == OmpBind::False) return b;  // OpenMP: threads may move; weft: workers not pinned
  if (b.bind == OmpBind::True) b.bind = OmpBind::Close;  // implementation defined; libgomp's choice
  OmpPlaceList list = resolve_omp_places(spec.value_or(OmpPlacesSpec{OmpPlacesSpec::Kind::Threads, {}, {}}), t,
                                         b.places_text);
  b.places = std::move(list.places);
  b.dropped_cpus = std::move(list.dropped_cpus);
  b.pinned = true;
  b.thread_place = omp_thread_places(b.bind, static_cast<int>(b.places.size()), n_threads);
  std::vector<int> taken(b.places.size(), 0);
  for (int pl : b.thread_place) {
    const auto& place = b.places[static_cast<size_t>(pl)];
    b.os_cpus.push_back(place[static_cast<size_t>(taken[static_cast<size_t>(pl)]++) % place.size()]);
  }
  return b;
}

std::string OmpBinding::describe() const {
  std::ostringstream o;
  if (!active) return "OMP_PLACES and OMP_PROC_BIND are unset: the OpenMP environment places nothing\n";
  o << "OMP_PLACES=" << (places_text.empty() ? "(unset: threads)" : "'" + places_text + "'")
    << " OMP_PROC_BIND=" << (bind_text.empty() ? "(unset: true)" : "'" + bind_text + "'") << "\n";
  if (!pinned) {
    o << "binding: false -> workers are not pinned\n";
    return o.str();
  }
  o << "binding: " << to_string(bind) << "\n";
  o << "places (" << places.size() << "):";
  for (const auto& p : places) o << " {" << join(p) << "}";
  o << "\n";
  if (!dropped_cpus.empty()) o << "dropped (not available to this process): " << join(dropped_cpus) << "\n";
  o << "worker -> place -> CPU:";
  for (size_t i = 0; i < os_cpus.size(); ++i) o << " " << i << "->" << thread_place[i] << "->" << os_cpus[i];
  o << "\n";
  return o.str();
}

}  // namespace weft::sched
