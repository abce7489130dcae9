// Parsers of the OpenMP environment variables the parallel layer reads
// (OMP_NUM_THREADS, OMP_WAIT_POLICY, OMP_SCHEDULE) and their WEFT_* twins.
#include "weft/apps/environment.hpp"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "weft/apps/schedule.hpp"
#include "weft/sched/omp_places.hpp"

namespace weft {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

[[noreturn]] void fail(std::string_view variable, std::string_view value, std::string_view part,
                       const std::string& expected) {
  throw sched::OmpEnvError(std::string(variable), std::string(value), std::string(part),
                           "expected " + expected + (part.empty() || part == value
                                                         ? std::string()
                                                         : " (at '" + std::string(part) + "')"));
}

// A decimal integer in [lo, hi] spanning all of `digits`, or nullopt.
std::optional<long long> decimal(std::string_view digits, long long lo, long long hi) {
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  long long v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

}  // namespace

int parse_num_threads(std::string_view value, std::string_view variable) {
  const std::string expected = "a thread count from 1 to 4096, or a comma list of them (one per nesting level)";
  std::optional<int> first;
  std::string_view rest = value;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    auto n = decimal(item, 1, 4096);
    if (!n) fail(variable, value, item, expected);
    if (!first) first = static_cast<int>(*n);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return *first;
}

WaitPolicy parse_wait_policy(std::string_view value, std::string_view variable) {
  const std::string_view v = trim(value);
  if (iequals(v, "active")) return WaitPolicy::active;
  if (iequals(v, "passive")) return WaitPolicy::passive;
  fail(variable, value, value, "ACTIVE or PASSIVE (any case)");
}

int idle_spin_us_for(WaitPolicy policy) { return policy == WaitPolicy::active ? 1000 : 0; }

Schedule parse_schedule(std::string_view value, std::string_view variable) {
  const std::string expected =
      "[monotonic:|nonmonotonic:]static|dynamic|guided|auto[,chunk] with a non-negative chunk size "
      "(none for auto), e.g. dynamic,64";
  std::string_view rest = trim(value);
  // An optional modifier.
  if (const std::size_t colon = rest.find(':'); colon != std::string_view::npos) {
    const std::string_view modifier = trim(rest.substr(0, colon));
    if (!iequals(modifier, "monotonic") && !iequals(modifier, "nonmonotonic"))
      fail(variable, value, modifier, expected);
    rest = trim(rest.substr(colon + 1));
  }
  const std::size_t comma = rest.find(',');
  const std::string_view kind_text = trim(rest.substr(0, comma));
  Schedule s;
  if (iequals(kind_text, "static")) s.kind = Schedule::Kind::static_;
  else if (iequals(kind_text, "dynamic")) s.kind = Schedule::Kind::dynamic;
  else if (iequals(kind_text, "guided")) s.kind = Schedule::Kind::guided;
  else if (iequals(kind_text, "auto")) s.kind = Schedule::Kind::adaptive;
  else fail(variable, value, kind_text, expected);
  if (comma == std::string_view::npos) {
    s.chunk = s.kind == Schedule::Kind::dynamic || s.kind == Schedule::Kind::guided ? 1 : 0;
    return s;
  }
  const std::string_view chunk_text = trim(rest.substr(comma + 1));
  if (s.kind == Schedule::Kind::adaptive) fail(variable, value, chunk_text, expected);
  auto chunk = decimal(chunk_text, 0, (1LL << 62));
  if (!chunk) fail(variable, value, chunk_text, expected);
  s.chunk = static_cast<std::uint64_t>(*chunk);
  if (s.chunk == 0 && s.kind != Schedule::Kind::static_) s.chunk = 1;
  return s;
}

std::string to_string(const Schedule& s) {
  switch (s.kind) {
    case Schedule::Kind::adaptive: return "auto";
    case Schedule::Kind::static_: return s.chunk == 0 ? "static" : "static," + std::to_string(s.chunk);
    case Schedule::Kind::dynamic: return "dynamic," + std::to_string(s.chunk);
    case Schedule::Kind::guided: return "guided," + std::to_string(s.chunk);
  }
  return "?";
}

Schedule schedule_runtime() {
  static std::mutex mutex;
  static std::atomic<bool> read{false};
  static Schedule cached;
  if (read.load(std::memory_order_acquire)) return cached;
  std::lock_guard lock(mutex);
  if (!read.load(std::memory_order_relaxed)) {
    auto env = detail::env_twin("WEFT_SCHEDULE", "OMP_SCHEDULE");
    cached = env ? parse_schedule(env->value, env->variable) : schedule_adaptive();  // may throw: read again next time
    read.store(true, std::memory_order_release);
  }
  return cached;
}

namespace detail {
std::optional<EnvValue> env_twin(const char* weft_name, const char* omp_name) {
  if (const char* v = std::getenv(weft_name)) return EnvValue{weft_name, v};
  if (const char* v = std::getenv(omp_name)) return EnvValue{omp_name, v};
  return std::nullopt;
}
}  // namespace detail

}  // namespace weft
