#pragma once
// Loop schedules as values, with OpenMP's meanings (OpenMP 5.2 §11.5.3), plus
// weft's adaptive default. Pass one to parallel_for, parallel_reduce or
// Team::for_each:
//
//   weft::parallel_for(0, n, body, weft::schedule_dynamic(64));
//
//   schedule_static(c)   c == 0: one contiguous block per member (sizes differ
//                        by at most one); c > 0: chunks of c handed out
//                        round-robin (member k gets chunks k, k+P, k+2P, ...).
//   schedule_dynamic(c)  chunks of c, each taken by whichever member asks next.
//   schedule_guided(c)   like dynamic, but each chunk is the unassigned count
//                        divided by the number of members (never less than c).
//   schedule_adaptive()  the default: ranges split on demand (members steal
//                        half of another member's unstarted range, which can
//                        be split again), in the spirit of oneTBB's
//                        auto_partitioner; short loops run serially
//                        (docs/parallel.md, "The serial cutoff").
//   schedule_runtime()   the schedule named by WEFT_SCHEDULE or OMP_SCHEDULE.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace weft {

struct Schedule {
  enum class Kind : std::uint8_t { adaptive, static_, dynamic, guided };
  Kind kind = Kind::adaptive;
  // Iterations per chunk; 0 only for static (one block per member) and adaptive.
  std::uint64_t chunk = 0;

  friend bool operator==(const Schedule&, const Schedule&) = default;
};

// "static", "static,4", "dynamic,1", "guided,8", "auto" (OMP_SCHEDULE's syntax).
std::string to_string(const Schedule& schedule);

// A negative chunk size is a std::invalid_argument naming the schedule.
namespace detail {
inline std::uint64_t checked_chunk(long long chunk, const char* schedule) {
  if (chunk < 0)
    throw std::invalid_argument(std::string("weft::") + schedule + "(" + std::to_string(chunk) +
                                "): the chunk size must not be negative");
  return static_cast<std::uint64_t>(chunk);
}
}  // namespace detail

inline Schedule schedule_static(long long chunk = 0) {
  return {Schedule::Kind::static_, detail::checked_chunk(chunk, "schedule_static")};
}
// A chunk of 0 means 1 (OpenMP's default for dynamic and guided).
inline Schedule schedule_dynamic(long long chunk = 1) {
  const std::uint64_t c = detail::checked_chunk(chunk, "schedule_dynamic");
  return {Schedule::Kind::dynamic, c == 0 ? 1 : c};
}
inline Schedule schedule_guided(long long chunk = 1) {
  const std::uint64_t c = detail::checked_chunk(chunk, "schedule_guided");
  return {Schedule::Kind::guided, c == 0 ? 1 : c};
}
inline Schedule schedule_adaptive() { return {}; }

// The schedule named by WEFT_SCHEDULE, else OMP_SCHEDULE, else adaptive (what
// "auto" means here). Read once, at the first call that finds it valid; a
// malformed value throws weft::sched::OmpEnvError (a std::invalid_argument)
// naming the variable, at every call until it is fixed.
Schedule schedule_runtime();

// Parses OMP_SCHEDULE's syntax, [modifier:]kind[,chunk], as libgomp does:
// kind is static, dynamic, guided or auto (any case); modifier is monotonic or
// nonmonotonic (accepted and ignored: static, dynamic and guided hand each
// member its chunks in increasing order anyway); chunk is a non-negative
// integer (0 = the kind's default), not allowed with auto. Blanks around the
// parts are ignored. Throws weft::sched::OmpEnvError naming
// `variable` and the offending part.
Schedule parse_schedule(std::string_view value, std::string_view variable = "OMP_SCHEDULE");

}  // namespace weft
