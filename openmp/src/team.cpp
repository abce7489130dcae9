// Teams: fork and join of a parallel region, member placement, the barrier.
// See team.hpp.
#include "team.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <vector>

#include "doacross.hpp"
#include "fatal.hpp"
#include "omp_runtime.hpp"
#include "tasks.hpp"
#include "wait.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/sched/omp_places.hpp"
#include "weft/sched/topology.hpp"

namespace weft::omp {

__attribute__((tls_model("initial-exec"))) constinit thread_local TaskContext* tls_context = nullptr;

namespace {

// --------------------------------------------------------------- storage

std::size_t round_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

struct Layout {
  int arrival_node_count;
  std::size_t members, arrival_nodes, member_on_worker, worker_of, crew_worker, task_workers, total;
  Layout(int capacity, int workers) : arrival_node_count(ArrivalTree::nodes_for(std::max(capacity, 1))) {
    const std::size_t line = sched::cache_line_size;
    members = round_up(sizeof(Team), line);
    arrival_nodes = members + static_cast<std::size_t>(capacity) * sizeof(Member);
    member_on_worker = arrival_nodes + static_cast<std::size_t>(arrival_node_count) * sizeof(ArrivalNode);
    worker_of = member_on_worker + static_cast<std::size_t>(workers) * sizeof(int);
    crew_worker = worker_of + static_cast<std::size_t>(capacity) * sizeof(int);
    task_workers = crew_worker + static_cast<std::size_t>(capacity) * sizeof(int);
    total = task_workers + static_cast<std::size_t>(std::max(capacity, 1)) * sizeof(int);
  }
};

constexpr std::uint64_t kRetire = 1ull << 63;  // in Team::generation: the docked members leave

// The initial task of a plain thread, with its team of one; freed when the
// thread ends, unless it ends inside a region (exit() called by member 0,
// which destroys the initial thread's thread-local objects there): retiring
// the teams' crews would wait for members that are still in the region (the
// process hung), and the process is ending anyway.
struct InitialTask {
  Team* team = nullptr;
  InitialTask() {
    team = Team::create(1, 0);
    team->nthreads = 1;
    team->from_plain_thread = true;
    team->tasks_inline = true;
    TaskContext& c = team->members[0].ctx;
    c.team = team;
    c.member = &team->members[0].state;
    c.icv = settings().initial;
    team->member_icv = c.icv;
  }
  ~InitialTask() {
    TaskContext* const initial = &team->members[0].ctx;
    const bool in_region = this_ult::inside() || (tls_context && tls_context != initial);
    if (tls_context == initial) tls_context = nullptr;
    if (!in_region) Team::destroy(team);
  }
};

// --------------------------------------------------------------- members

void start_implicit_task(Team& t, int k) {
  Member& m = t.members[k];
  TaskContext& c = m.ctx;
  c.team = &t;
  c.thread_num = k;
  c.explicit_task = false;
  c.on_own_ult = false;
  c.final_task = false;
  c.member = &m.state;
  c.icv = t.member_icv;
  c.taskgroup = nullptr;
  c.enclosing_taskgroup = nullptr;
  c.reductions = t.reductions;
  m.state.reset(0);
  if (t.preset_loop) attach_to_preset_loop(t, m.state);
  set_current(&c);
}

// A docked member: runs member k of every region of `t` from generation
// `gen` on, until the crew is retired.
void run_member(Team* t, int k, std::uint64_t gen) {
  while (true) {
    start_implicit_task(*t, k);
    t->fn(t->data);
    finish_task_children(t->members[k].ctx);
    t->joined.arrive();
    wait_until(&t->generation, [t, gen] { return t->generation.load(std::memory_order_acquire) != gen; });
    gen = t->generation.load(std::memory_order_acquire);
    if (gen & kRetire) {
      t->crew_alive.arrive();  // the last touch of the team by this ULT
      return;
    }
  }
}

// Lets the docked members of `t` go and waits until they have. A member
// docked on the hosted worker leaves only while it runs, that is, under the
// host: the initial thread retires such a crew from there.
void retire_crew(Team& t) {
  if (t.crew == 0) return;
  if (std::find(t.crew_worker + 1, t.crew_worker + t.crew, 0) != t.crew_worker + t.crew &&
      initial_thread_hosts()) {
    ContextGuard keep;
    runtime().host([&t] { retire_crew(t); });
    return;
  }
  t.generation.fetch_or(kRetire, std::memory_order_acq_rel);
  unpark_all(&t.generation);
  wait_for(t.crew_alive);
  t.generation.store(0, std::memory_order_relaxed);
  t.crew = 0;
}

// Starts members 1..n-1: the docked crew when it matches, else a new one.
void start_members(Team& t) {
  const int n = t.nthreads;
  const bool same = t.crew == n && std::equal(t.worker_of + 1, t.worker_of + n, t.crew_worker + 1);
  if (same) {
    t.generation.fetch_add(1, std::memory_order_release);
    unpark_all(&t.generation);
    return;
  }
  // A region of one needs no members: a docked crew stays for the next
  // region of its shape. (Retiring it waits for its ULTs, which cannot run
  // while their workers run long tasks: a region of one, such as a target
  // region's, began 50 ms late behind a 50 ms task.)
  if (n == 1) return;
  retire_crew(t);
  try {
    Runtime& rt = runtime();
    Team* team = &t;
    const std::uint64_t gen = t.generation.load(std::memory_order_relaxed);
    t.crew_alive.reset(n - 1);
    for (int k = 1; k < n; ++k) {
      t.crew_worker[k] = t.worker_of[k];
      rt.spawn_on(t.worker_of[k], [team, k, gen] { run_member(team, k, gen); }).detach();
    }
    t.crew = n;
  } catch (const std::exception& e) {
    fatal("GOMP_parallel", std::string("cannot start the team's members: ") + e.what());
  }
}

// --------------------------------------------------------------- placement

sched::OmpBind bind_of_flags(unsigned flags, sched::OmpBind icv) {
  switch (flags & 7) {
    case 1: return sched::OmpBind::True;
    case 2: return sched::OmpBind::Primary;
    case 3: return sched::OmpBind::Close;
    case 4: return sched::OmpBind::Spread;
    default: return icv;
  }
}

// The first worker a team's members may go to: a hosted worker 0 runs only
// under the host (omp_runtime.hpp), so other teams leave it out.
int first_member_worker(const Team& t) { return runtime_config().hosted_worker && !t.under_host ? 1 : 0; }

// Members placed by an MCTOP-PLACE policy: the workers pinned to the CPUs
// sched::place chooses, in its order; member 0 keeps the caller's worker.
bool place_by_policy(Team& t, sched::Policy policy, int caller) {
  Runtime& rt = runtime();
  const sched::Topology& topo = rt.topology();
  const std::vector<int> cpus = rt.worker_cpus();
  const int m = std::min(t.nthreads, topo.num_contexts());
  const sched::Placement placed = sched::place(topo, policy, m);
  const int lowest = first_member_worker(t);
  std::vector<int> choice;
  for (int context : placed.contexts) {
    const auto w = std::find(cpus.begin(), cpus.end(), topo.os_cpu(context));
    const auto worker = static_cast<int>(w - cpus.begin());
    if (w != cpus.end() && worker >= lowest) choice.push_back(worker);
  }
  if (caller >= 0) {
    const auto mine = std::find(choice.begin(), choice.end(), caller);
    if (mine != choice.end()) choice.erase(mine);
  }
  if (choice.empty()) return false;  // only the initial thread's CPU chosen: the default order
  for (int k = 1; k < t.nthreads; ++k) t.worker_of[k] = choice[static_cast<std::size_t>(k - 1) % choice.size()];
  return true;
}

void place_members(Team& t, const TaskContext& enc, unsigned flags) {
  const int n = t.nthreads, workers = t.workers;
  const int caller = this_ult::worker_index();
  const sched::OmpBind bind = bind_of_flags(flags, enc.icv.bind);
  const Team::PlacementKey key{n, caller, static_cast<int>(bind), enc.icv.binding_policy, t.under_host};
  if (key == t.placed_for) return;  // the same region again: everything below still holds
  t.worker_of[0] = caller;
  if (n > 1) {
    const bool by_policy = enc.icv.binding_policy != sched::Policy::None &&
                           place_by_policy(t, enc.icv.binding_policy, caller);
    if (!by_policy) {
      // One place per worker, in the order the members would rotate over:
      // from a plain thread the workers from the first one for members
      // 1..n-1, from a ULT the workers from the caller's for members 0..n-1.
      const int lowest = first_member_worker(t), pool = workers - lowest;
      const int first = caller >= 0 ? 0 : 1;
      const int threads = n - first;
      std::vector<int> place(static_cast<std::size_t>(threads));
      if (bind == sched::OmpBind::False) {
        for (int i = 0; i < threads; ++i) place[static_cast<std::size_t>(i)] = i;
      } else {
        place = sched::omp_thread_places(bind, pool, threads);
      }
      const int base = caller >= 0 ? caller - lowest : 0;
      for (int k = first; k < n; ++k)
        t.worker_of[k] = lowest + (base + place[static_cast<std::size_t>(k - first)]) % pool;
      if (caller >= 0) t.worker_of[0] = caller;
    }
  }
  t.placed_for = key;
  // Where the team's tasks may run, and which member a worker stands for.
  std::fill(t.member_on_worker, t.member_on_worker + workers, -1);
  t.task_worker_count = 0;
  for (int k = 0; k < n; ++k) {
    const int w = t.worker_of[k];
    if (w < 0 || t.member_on_worker[w] >= 0) continue;
    t.member_on_worker[w] = k;
    t.task_workers[t.task_worker_count++] = w;
  }
  t.tasks_inline = t.task_worker_count == 0;
  t.tasks_stealable = t.task_worker_count == workers;
}

}  // namespace

// ------------------------------------------------------------------- Team

Team* Team::create(int capacity, int workers) {
  const Layout l(capacity, workers);
  void* block = ::operator new(l.total, std::align_val_t{sched::cache_line_size});
  auto* bytes = static_cast<unsigned char*>(block);
  Team* t = ::new (block) Team;
  t->capacity = capacity;
  t->workers = workers;
  t->members = reinterpret_cast<Member*>(bytes + l.members);
  for (int k = 0; k < capacity; ++k) ::new (&t->members[k]) Member;
  auto* nodes = reinterpret_cast<ArrivalNode*>(bytes + l.arrival_nodes);
  for (int k = 0; k < l.arrival_node_count; ++k) ::new (&nodes[k]) ArrivalNode;
  t->arrivals.attach(nodes);
  t->member_on_worker = reinterpret_cast<int*>(bytes + l.member_on_worker);
  t->worker_of = reinterpret_cast<int*>(bytes + l.worker_of);
  t->crew_worker = reinterpret_cast<int*>(bytes + l.crew_worker);
  t->task_workers = reinterpret_cast<int*>(bytes + l.task_workers);
  std::fill(t->worker_of, t->worker_of + capacity, -1);
  std::fill(t->member_on_worker, t->member_on_worker + workers, -1);
  for (int s = 0; s < kRing; ++s) t->ws[s].state.store(4 * static_cast<std::uint64_t>(s), std::memory_order_relaxed);
  return t;
}

void Team::destroy(Team* t) {
  if (!t) return;
  retire_crew(*t);
  for (int k = 0; k < t->capacity; ++k) {
    Team::destroy(t->members[k].ctx.cached_team);
    t->members[k].~Member();
  }
  for (WorkShare& w : t->ws) {
    std::free(w.extra);
    delete_doacross(w.doacross);
    delete[] w.ranges;
  }
  t->~Team();
  ::operator delete(static_cast<void*>(t), std::align_val_t{sched::cache_line_size});
}

TaskContext& initial_context() {
  thread_local InitialTask initial;
  TaskContext& c = initial.team->members[0].ctx;
  tls_context = &c;
  return c;
}

int thread_num_of(const TaskContext& c) noexcept {
  if (!c.on_own_ult) return c.thread_num;
  const Team& t = *c.team;
  const int w = this_ult::worker_index();
  if (w >= 0 && w < t.workers && t.member_on_worker[w] >= 0) return t.member_on_worker[w];
  return c.thread_num;
}

int resolve_num_threads(const TaskContext& enc, unsigned specified, unsigned count) {
  const Icv& icv = enc.icv;
  if (specified == 1) return 1;
  if (enc.team->active_level >= icv.max_active_levels) return 1;
  long n = specified == 0 ? icv.nthreads : static_cast<long>(std::min<unsigned>(specified, 1u << 20));
  if (icv.dynamic) {
    // dyn-var: no more members than there are places to run them (the
    // workers, and a plain thread's own CPU unless it hosts worker 0).
    const long places = num_workers() + (this_ult::inside() || runtime_config().hosted_worker ? 0 : 1);
    n = std::min(n, places);
    if (count > 0) n = std::min<long>(n, count);
  }
  n = std::min<long>(n, icv.thread_limit);
  return static_cast<int>(std::max<long>(n, 1));
}

Team* begin_region(TaskContext& enc, void (*fn)(void*), void* data, int n, unsigned flags,
                   void (*prepare)(Team&, void*), void* prepare_arg) {
  const bool plain = !this_ult::inside();
  const int workers = (n > 1 || !plain) ? num_workers() : 0;
  Team* t = enc.cached_team;
  if (!t || t->capacity < n || t->workers < workers) {
    const int keep_capacity = t ? t->capacity : 0;
    Team::destroy(t);
    t = Team::create(std::max(n, keep_capacity), workers);
    enc.cached_team = t;
  }
  t->fn = fn;
  t->data = data;
  t->nthreads = n;
  t->level = enc.team->level + 1;
  t->active_level = enc.team->active_level + (n > 1 ? 1 : 0);
  t->parent = enc.team;
  t->parent_thread_num = thread_num_of(enc);
  t->team_num = enc.team->team_num;
  t->num_teams = enc.team->num_teams;
  t->encountering = &enc;
  t->from_plain_thread = plain;
  // Worker 0 runs only under the host: a ULT there is under it, and so is
  // whatever a team under it begins.
  t->under_host = !plain && (this_ult::worker_index() == 0 || enc.team->under_host) &&
                  runtime_config().hosted_worker;
  t->reductions = nullptr;
  t->preset_loop = false;
  Icv icv = enc.icv;
  const Settings& s = settings();
  if (static_cast<std::size_t>(t->level) < s.nthreads_list.size()) icv.nthreads = s.nthreads_list[t->level];
  if (static_cast<std::size_t>(t->level) < s.bind_list.size()) icv.bind = s.bind_list[t->level];
  t->member_icv = icv;
  t->barrier_word.store(0, std::memory_order_relaxed);
  // A cancelled region may have left arrivals in the tree.
  if (t->cancelled.load(std::memory_order_relaxed)) t->arrivals.reset();
  t->arrivals.shape(n);
  t->cancelled.store(false, std::memory_order_relaxed);
  t->ws_cancelled.store(false, std::memory_order_relaxed);
  t->single_next.store(0, std::memory_order_relaxed);
  t->joined.reset(n - 1);
  for (int s2 = 0; s2 < kRing; ++s2) t->ws[s2].state.store(4 * static_cast<std::uint64_t>(s2), std::memory_order_relaxed);
  if (workers > 0) {
    t->workers = workers;
    place_members(*t, enc, flags);
  } else {
    t->worker_of[0] = -1;
    t->task_worker_count = 0;
    t->tasks_inline = true;
    t->tasks_stealable = false;
    // What place_members computed no longer holds: the next region of the
    // same shape must compute it again (else its tasks stay inline).
    t->placed_for = Team::PlacementKey{};
  }
  if (prepare) prepare(*t, prepare_arg);
  start_members(*t);
  start_implicit_task(*t, 0);
  return t;
}

Team* begin_initial_team(TaskContext& enc, const Icv& icv, int team_num, int num_teams) {
  // A nested team of one, on the caller's worker; then made an initial one.
  Team* t = begin_region(enc, nullptr, nullptr, 1, 0);
  t->level = 0;
  t->active_level = 0;
  t->parent = nullptr;
  t->parent_thread_num = 0;
  t->team_num = team_num;
  t->num_teams = num_teams;
  t->member_icv = icv;
  t->members[0].ctx.icv = icv;
  return t;
}

void end_region(Team& t) {
  finish_task_children(t.members[0].ctx);
  if (t.nthreads > 1) wait_for(t.joined);
  set_current(t.encountering);
}

namespace {

// A barrier completes: the worksharing construct it ends is not cancelled
// any more (cancel.hpp; libgomp clears its flag at every barrier too).
void clear_ws_cancelled(Team& t) {
  if (t.ws_cancelled.load(std::memory_order_relaxed)) t.ws_cancelled.store(false, std::memory_order_relaxed);
}

// Arrives at the team's barrier and waits for the others; a `cancellable`
// one stops waiting once the region is cancelled. Returns whether it did.
// (A template: the plain barrier keeps the code it had before cancellation.)
template <bool cancellable>
bool arrive_and_wait(Team& t, int member) {
  const auto n = static_cast<std::uint64_t>(t.nthreads);
  if (n == 1) {
    clear_ws_cancelled(t);
    return cancellable && t.cancelled.load(std::memory_order_acquire);
  }
  if (cancellable && t.cancelled.load(std::memory_order_acquire)) return true;
  std::uint64_t word;
  bool last;
  if (n <= ArrivalTree::kFanIn) {
    word = t.barrier_word.fetch_add(1, std::memory_order_acq_rel);
    last = (word & 0xFFFFFFFFu) + 1 == n;
  } else {
    word = t.barrier_word.load(std::memory_order_relaxed);  // the phase cannot move before this arrival
    last = t.arrivals.arrive(member);
  }
  const auto phase = static_cast<std::uint32_t>(word >> 32);
  if (last) {
    clear_ws_cancelled(t);
    t.barrier_word.store(static_cast<std::uint64_t>(phase + 1) << 32, std::memory_order_release);
    unpark_all(&t.barrier_word);
    return false;
  }
  auto passed = [&t, phase] {
    return static_cast<std::uint32_t>(t.barrier_word.load(std::memory_order_acquire) >> 32) != phase;
  };
  if constexpr (!cancellable) {
    wait_until(&t.barrier_word, passed);
    return false;
  } else {
    wait_until(&t.barrier_word, [&] { return passed() || t.cancelled.load(std::memory_order_acquire); });
    return !passed();
  }
}

}  // namespace

void team_barrier(TaskContext& self) {
  wait_children(self);
  arrive_and_wait<false>(*self.team, self.thread_num);
}

bool cancellable_team_barrier(TaskContext& self) {
  wait_children(self);
  return arrive_and_wait<true>(*self.team, self.thread_num);
}

void not_in_implicit_task(const char* entry) {
  fatal(entry,
        "called inside an explicit task; worksharing constructs, barriers and ordered regions bind to the "
        "implicit task of a team member and may not be nested in a task region (OpenMP 5.2 §17)");
}

}  // namespace weft::omp
