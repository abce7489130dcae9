// The teams construct on the host (OpenMP 5.2 §10.2: GOMP_teams_reg) and
// the league's ICVs and queries.
//
// A teams region makes a league of initial teams, each of one initial
// thread that runs the region. libgomp runs the teams one after another on
// the encountering thread; weft runs them at once. The league is an
// ordinary region of num_teams members (begin_region: member 0 on the
// initial thread, as a ULT of its hosted worker, the others ULTs on the next
// workers), and each member then becomes the initial thread of a team of
// one of its own (begin_initial_team): level 0, thread 0 of 1, its member
// number as omp_get_team_num(), the encountering task's ICVs with the
// teams' thread limit. A parallel region inside it begins as one from the
// initial thread would (level 1, members on the next workers) and keeps the
// team number; the tasks a team makes run on its worker (a team's tasks are
// run by its threads).
//
// How many teams: the num_teams clause, else nteams-var (omp_set_num_teams,
// OMP_NUM_TEAMS), else one per worker. Thread limit: the thread_limit
// clause, else teams-thread-limit-var (omp_set_teams_thread_limit,
// OMP_TEAMS_THREAD_LIMIT), else the workers shared out among the teams (at
// least one each), so that `teams distribute parallel for` fills the
// machine once rather than num_teams times; never above thread-limit-var.
//
// Inside a target region GCC emits GOMP_teams4 instead (target.cpp).
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <climits>

#include "fatal.hpp"
#include "icv.hpp"
#include "omp_runtime.hpp"
#include "team.hpp"

namespace weft::omp {
namespace {

// nteams-var and teams-thread-limit-var as the program set them (0: not
// set, the environment's value holds).
std::atomic<int> nteams_set{0}, teams_thread_limit_set{0};

int nteams_var() {
  const int set = nteams_set.load(std::memory_order_relaxed);
  return set > 0 ? set : settings().num_teams;
}

int teams_thread_limit_var() {
  const int set = teams_thread_limit_set.load(std::memory_order_relaxed);
  return set > 0 ? set : settings().teams_thread_limit;
}

struct League {
  void (*fn)(void*);
  void* data;
  int thread_limit;
};

// What each member of the league region runs: the teams region, as the
// initial thread of its own team.
void run_league_member(void* p) {
  const League& league = *static_cast<const League*>(p);
  TaskContext& member = current();
  const Team& region = *member.team;
  Icv icv = region.encountering->icv;  // the task that encountered the teams construct
  icv.thread_limit = std::min(icv.thread_limit, league.thread_limit);
  Team* own = begin_initial_team(member, icv, member.thread_num, region.nthreads);
  league.fn(league.data);
  end_region(*own);
}

}  // namespace
}  // namespace weft::omp

using namespace weft::omp;

extern "C" {

void GOMP_teams_reg(void (*fn)(void*), void* data, unsigned num_teams, unsigned thread_limit, unsigned /*flags*/) {
  TaskContext& enc = current();
  if (enc.team->level > 0 || enc.explicit_task)
    fatal("GOMP_teams_reg",
          "a teams region inside a parallel region or a task (OpenMP 5.2 §10.2 allows one only in the implicit "
          "parallel region, or in a target region)");
  const int workers = std::max(num_workers(), 1);
  int n = num_teams > 0 ? static_cast<int>(std::min(num_teams, 1u << 20)) : nteams_var();
  if (n <= 0) n = workers;
  int limit = thread_limit > 0 ? static_cast<int>(std::min<unsigned>(thread_limit, INT_MAX)) : teams_thread_limit_var();
  if (limit <= 0) limit = std::max(1, workers / n);
  League league{fn, data, std::min(limit, enc.icv.thread_limit)};
  run_region(n, [&] {
    Team* t = begin_region(enc, run_league_member, &league, n, 0);
    run_league_member(&league);
    end_region(*t);
  });
}

int omp_get_num_teams() noexcept { return current().team->num_teams; }
int omp_get_team_num() noexcept { return current().team->team_num; }
void omp_set_num_teams(int n) noexcept {
  if (n > 0) nteams_set.store(n, std::memory_order_relaxed);
}
int omp_get_max_teams() noexcept { return nteams_var(); }
void omp_set_teams_thread_limit(int n) noexcept {
  if (n > 0) teams_thread_limit_set.store(n, std::memory_order_relaxed);
}
int omp_get_teams_thread_limit() noexcept { return teams_thread_limit_var(); }

}  // extern "C"
