#pragma once
// The OpenMP affinity environment (OMP_PLACES, OMP_PROC_BIND; OpenMP 5.2
// §21.1.6-7 and §10.1.3 "Controlling OpenMP Thread Affinity") read as a
// placement of n workers: which OS CPU each worker is pinned to. The runtime
// uses it when neither Config::placement nor WEFT_PLACEMENT chooses a policy
// (docs/runtime.md has the precedence and the mapping table).
//
// weft pins a worker to ONE CPU, an OpenMP thread to a PLACE (a set of CPUs):
// a worker bound to a place gets the place's k-th CPU (ascending), k counting
// the workers bound to that place before it, wrapping when there are more
// workers than CPUs in the place.

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "weft/sched/topology.hpp"

namespace weft::sched {

// A malformed OMP_PLACES / OMP_PROC_BIND value. what() is
//   weft: environment variable OMP_PLACES='{0:4},{4:x}' is invalid: expected a
//   non-negative CPU number at 'x}' (column 10)
// variable() and part() give the variable's name and the offending part.
class OmpEnvError : public std::invalid_argument {
 public:
  OmpEnvError(std::string variable, std::string value, std::string part, const std::string& message);
  const std::string& variable() const { return variable_; }
  const std::string& part() const { return part_; }

 private:
  std::string variable_, part_;
};

// OMP_PLACES parsed, not yet resolved against a machine. The grammar (5.2):
//   list        := p-list | aname
//   p-list      := p-interval { ',' p-interval }
//   p-interval  := place ':' len ':' stride | place ':' len | place | '!' place
//   place       := '{' res-list '}' | res
//   res-list    := res-interval { ',' res-interval }
//   res-interval:= res ':' num-places ':' stride | res ':' num-places | res | '!' res
//   aname       := word '(' num-places ')' | word
//   word        := threads | cores | ll_caches | numa_domains | sockets   (any case)
// res: non-negative integer (an OS CPU id); len, num-places: positive;
// stride: any integer. Blanks are allowed between tokens. "!res" removes that
// CPU from its place (after the place's other entries are added, as libgomp
// does); "!place" removes an identical earlier place from the list.
struct OmpPlacesSpec {
  enum class Kind { Explicit, Threads, Cores, LlCaches, NumaDomains, Sockets };
  Kind kind = Kind::Explicit;
  std::optional<int> count;              // the (n) of an abstract name
  std::vector<std::vector<int>> places;  // Explicit: OS CPU ids, each place ascending, no duplicates
};
std::string_view to_string(OmpPlacesSpec::Kind kind);
// Throws OmpEnvError naming `variable` (default OMP_PLACES) and the offending part.
OmpPlacesSpec parse_omp_places(std::string_view value, std::string_view variable = "OMP_PLACES");

// A place list on a machine (OS CPU ids). Abstract names expand over the
// topology's contexts (Topology::discover() holds the CPUs this process may
// use): threads = each context; cores = each core; sockets = each socket;
// numa_domains = the contexts of each OS NUMA node; ll_caches = the groups of
// the widest latency level inside a socket (LevelRole::Group: cores sharing a
// cache or die below the package), or the sockets when there is none (the
// last-level cache is then taken to span the socket). name(n) keeps the first
// n places (all when there are fewer). Explicit CPUs the topology does not
// have are dropped (reported in dropped_cpus) and places left empty removed,
// as libgomp does; none left is an OmpEnvError.
struct OmpPlaceList {
  std::vector<std::vector<int>> places;
  std::vector<int> dropped_cpus;
};
OmpPlaceList resolve_omp_places(const OmpPlacesSpec& spec, const Topology& topo, std::string_view value = {},
                                std::string_view variable = "OMP_PLACES");

// OMP_PROC_BIND: "true", "false", or a comma list of primary, master (the
// deprecated spelling of primary), close, spread; any case.
enum class OmpBind { False, True, Primary, Close, Spread };
std::string_view to_string(OmpBind bind);
// Throws OmpEnvError naming the variable and the offending item.
std::vector<OmpBind> parse_omp_proc_bind(std::string_view value, std::string_view variable = "OMP_PROC_BIND");

// The place (index into a list of n_places) of each of n_threads threads, as
// OpenMP assigns a team whose primary thread (thread 0) is on place 0:
//   PRIMARY: every thread on place 0.
//   CLOSE (and TRUE, as libgomp): T <= P: thread i on place i. T > P: the
//     places get consecutive blocks of floor(T/P) threads, the first T mod P
//     places one more.
//   SPREAD: T <= P: the list is cut into T runs of consecutive places, the
//     first P mod T runs one place longer, and thread i gets the first place
//     of run i. T > P: as CLOSE.
// Throws std::invalid_argument for FALSE or counts < 1.
std::vector<int> omp_thread_places(OmpBind bind, int n_places, int n_threads);

// OMP_PLACES and OMP_PROC_BIND together, for n workers.
struct OmpBinding {
  bool active = false;    // at least one of the two variables is set
  bool pinned = false;    // false: OMP_PROC_BIND=false (workers are not pinned)
  OmpBind bind = OmpBind::False;  // the policy applied (first list item; TRUE and "unset with OMP_PLACES" as CLOSE)
  std::string places_text, bind_text;     // the values (empty when unset)
  std::vector<std::vector<int>> places;   // resolved place list (OS CPUs); threads when OMP_PLACES is unset
  std::vector<int> dropped_cpus;          // OMP_PLACES CPUs this machine / process does not have
  std::vector<int> thread_place;          // per worker (when pinned)
  std::vector<int> os_cpus;               // per worker (when pinned)
  std::string describe() const;           // human-readable summary
};
// Either value nullopt = that variable is unset. OMP_PROC_BIND unset with
// OMP_PLACES set means TRUE (libgomp's default); OMP_PLACES unset with binding
// on means "threads" (libgomp's default). A list such as "spread,close" uses
// its first item (weft's workers are one level; nested teams do not exist).
OmpBinding omp_binding(const Topology& topo, std::optional<std::string_view> places,
                       std::optional<std::string_view> proc_bind, int n_threads);

}  // namespace weft::sched
