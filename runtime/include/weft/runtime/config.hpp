#pragma once
// Runtime configuration: a plain struct with defaults, overridable by WEFT_*
// environment variables (see Config::from_env and docs/runtime.md).

#include <cstddef>
#include <string>
#include <vector>

namespace weft {

struct Config {
  // Number of workers (kernel threads, one per core). 0 = one per CPU allowed
  // to the process (affinity mask), capped by its cgroup CPU limit.
  int workers = 0;
  // Bytes every ULT can count on for its stack, rounded up to whole pages.
  // A stack reserves twice this (a ULT joined before it starts runs on its
  // joiner's stack while this much is still free there) plus a guard page;
  // only touched pages use memory. Stacks are pooled per worker and reused.
  std::size_t stack_size = 256 * 1024;
  // Pin each worker to one CPU.
  bool pin_workers = true;
  // Worker 0 gets no kernel thread of its own: it runs only while a plain
  // thread lends it its own, inside Runtime::host(), and cpus[0] (or the
  // first CPU the placement chooses) is that thread's CPU, which the runtime
  // does not pin. For a program whose main thread must stay itself (its
  // thread-local storage) yet take part in the work as one worker among the
  // others (the OpenMP library's initial thread). Needs at least 2 workers.
  bool hosted_worker = false;
  // Explicit OS CPU ids for the workers (worker i on cpus[i]); empty = the
  // placement policy below chooses.
  std::vector<int> cpus;
  // Placement policy name (see weft/sched/placement.hpp); empty = sequential
  // over the allowed CPUs. NONE leaves the workers unpinned. Precedence (see
  // docs/runtime.md): WEFT_PLACEMENT > a placement here > OMP_PLACES /
  // OMP_PROC_BIND (resolved into `cpus`) > the default.
  std::string placement;
  // A saved topology (docs/topology-format.md, e.g. from `weft-topo infer
  // --save`) that places the workers and orders their steal victims, so a
  // measured MCTOP model replaces hwloc's estimate and start-up skips the
  // hwloc load. Empty = this machine as hwloc sees it. A file that does not
  // parse, or whose placement names CPUs this process may not use, is an
  // error naming the file.
  std::string topology_file;
  // How long an idle worker spins looking for work before it sleeps.
  int idle_spin_us = 50;
  // Free stacks each worker keeps at hand (more go to a process-wide pool
  // that every worker and later runtimes reuse); also sets how many free
  // control blocks it keeps (16 per stack).
  int stack_pool_limit = 256;
  // Most ULTs alive at once (spawned, not yet finished); spawn throws
  // weft::UltLimitError past it. 0 = from the machine: physical memory / 8 KiB
  // (a parked ULT costs about one stack page and its 256-byte control block),
  // at most 2^46 bytes of address space / the address space one stack reserves.
  long long max_ults = 0;
  // Print the statistics (Runtime::stats(), weft/runtime/stats.hpp) to stderr
  // when the runtime shuts down (destruction or shutdown()).
  bool print_stats = false;
  // Record a trace (weft/runtime/trace.hpp) from this runtime's start to the
  // program's exit (or trace::stop()) into this file, unless one is already
  // being recorded; empty = no. Its ring size per worker in events (0 =
  // trace::kDefaultBufferEvents).
  std::string trace_file;
  std::size_t trace_buffer_events = 0;

  // `base` with every WEFT_* variable that is set applied on top:
  // WEFT_WORKERS, WEFT_STACK_SIZE (bytes, or with K/M suffix), WEFT_PIN (0/1),
  // WEFT_CPUS (comma list), WEFT_IDLE_SPIN_US, WEFT_MAX_ULTS, WEFT_STATS (0/1),
  // WEFT_TRACE (a path), WEFT_TRACE_BUFFER (events per worker), WEFT_PLACEMENT and
  // WEFT_TOPOLOGY (a topology file). Then, if base.placement and
  // base.cpus are both still empty, the OpenMP affinity variables OMP_PLACES
  // and OMP_PROC_BIND (weft/sched/omp_places.hpp): bound workers get
  // `cpus` (and `workers` its size); OMP_PROC_BIND=false turns pin_workers
  // off unless WEFT_PIN is set. A placement of NONE also turns pin_workers
  // off unless WEFT_PIN is set.
  // Throws std::invalid_argument naming the variable when a value is invalid
  // (weft::sched::OmpEnvError, a subclass, for the OMP_* ones).
  static Config from_env(Config base);
  static Config from_env() { return from_env(Config{}); }
};

}  // namespace weft
