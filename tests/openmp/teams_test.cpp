// The teams construct on the host: the league's size and numbering, the
// initial team a parallel region inside a team descends from (thread 0 of
// 1 at level 0), distribute, `teams distribute parallel for` (team numbers
// and the thread limit inside), tasks inside a team's parallel region,
// nteams-var and OMP_NUM_TEAMS, many regions in a row, and, on weft, that
// the teams run at once (libgomp runs them one after another). OpenMP (and
// GCC) allow only distribute, parallel and loop regions and the team
// queries directly inside teams, so the rest is asked from a parallel
// region inside. With argv[1] = "nested", a teams region reached inside a
// parallel region (not allowed; libgomp would run it) must stop the program
// naming the rule.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

void teams_of_four() {
  const int n = 4;
  std::atomic<int> ran[n] = {};
  std::atomic<int> bad_shape{0}, bad_count{0};
#pragma omp teams num_teams(n)
  {
    const int k = omp_get_team_num();
    if (k >= 0 && k < n) ran[k]++;
    if (omp_get_num_teams() != n) bad_count++;
#pragma omp parallel num_threads(2)
    if (omp_get_team_num() != k || omp_get_level() != 1 ||
        omp_get_active_level() != (omp_get_num_threads() > 1 ? 1 : 0) ||
        omp_get_team_size(0) != 1 || omp_get_ancestor_thread_num(0) != 0 ||
        omp_get_num_threads() > omp_get_thread_limit())
      bad_shape++;
  }
  for (int k = 0; k < n; ++k) CHECK(ran[k] == 1, "team %d ran the region %d times", k, ran[k].load());
  CHECK(bad_count == 0, "%d teams saw another omp_get_num_teams() than %d", bad_count.load(), n);
  CHECK(bad_shape == 0, "%d members of regions inside teams did not descend from thread 0 of 1 at level 0",
        bad_shape.load());
  CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0, "outside teams: team %d of %d", omp_get_team_num(),
        omp_get_num_teams());
}

void distribute_covers_each_iteration_once() {
  const int count = 1000, n = 3;
  std::vector<std::atomic<int>> times(count);
  std::vector<int> team_of(count, -1);
#pragma omp teams num_teams(n)
#pragma omp distribute
  for (int i = 0; i < count; ++i) {
    times[i]++;
    team_of[i] = omp_get_team_num();
  }
  int wrong = 0, unordered = 0;
  for (int i = 0; i < count; ++i) {
    if (times[i] != 1) ++wrong;
    if (i > 0 && team_of[i] < team_of[i - 1]) ++unordered;
  }
  CHECK(wrong == 0, "distribute: %d of %d iterations did not run exactly once", wrong, count);
  CHECK(unordered == 0 && team_of[0] == 0 && team_of[count - 1] == n - 1,
        "distribute: the teams' blocks are not in team order (first %d, last %d)", team_of[0], team_of[count - 1]);
}

void teams_distribute_parallel_for() {
  const int count = 4000, teams = 2, limit = 2;
  std::vector<std::atomic<int>> times(count);
  std::atomic<int> bad_team{0}, bad_inside{0};
  std::vector<int> team_of(count, -1);
#pragma omp teams distribute parallel for num_teams(teams) thread_limit(limit)
  for (int i = 0; i < count; ++i) {
    times[i]++;
    team_of[i] = omp_get_team_num();
    if (omp_get_num_teams() != teams) bad_team++;
    if (omp_get_level() != 1 || omp_get_num_threads() > limit || omp_get_thread_limit() > limit) bad_inside++;
  }
  int wrong = 0, unordered = 0;
  for (int i = 0; i < count; ++i) {
    if (times[i] != 1) ++wrong;
    if (i > 0 && team_of[i] < team_of[i - 1]) ++unordered;
  }
  CHECK(wrong == 0, "teams distribute parallel for: %d of %d iterations did not run once", wrong, count);
  CHECK(unordered == 0 && team_of[count - 1] == teams - 1, "teams distribute parallel for: team numbers in the "
        "parallel regions do not follow the distribution (last %d)", team_of[count - 1]);
  CHECK(bad_team == 0, "%d iterations saw another number of teams", bad_team.load());
  CHECK(bad_inside == 0, "%d iterations saw a level other than 1 or more than %d threads", bad_inside.load(), limit);
}

void tasks_of_a_team() {
  const int n = 4, tasks = 50;
  std::atomic<int> done{0}, wrong_team{0};
#pragma omp teams num_teams(n)
  {
    const int k = omp_get_team_num();
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int t = 0; t < tasks; ++t) {
#pragma omp task
      {
        if (omp_get_team_num() != k) wrong_team++;
        done++;
      }
    }
  }
  CHECK(done == n * tasks, "tasks in teams: %d of %d done when the teams region ended", done.load(), n * tasks);
  CHECK(wrong_team == 0, "%d tasks saw another team number than their team's", wrong_team.load());
}

void the_number_of_teams() {
  int by_default = 0;
#pragma omp teams
  {
    if (omp_get_team_num() == 0) by_default = omp_get_num_teams();
  }
  if (const char* v = std::getenv("OMP_NUM_TEAMS"))
    CHECK(by_default == std::atoi(v), "OMP_NUM_TEAMS=%s gave %d teams", v, by_default);
  else
    CHECK(by_default >= 1, "the default league has %d teams", by_default);
  omp_set_num_teams(3);
  int set = 0;
#pragma omp teams
  {
    if (omp_get_team_num() == 0) set = omp_get_num_teams();
  }
  CHECK(set == 3 && omp_get_max_teams() == 3, "omp_set_num_teams(3): %d teams, nteams-var %d", set,
        omp_get_max_teams());
}

void many_regions() {
  const int rounds = 200 / omptest::kScale;
  std::atomic<int> runs{0};
  for (int r = 0; r < rounds; ++r) {
#pragma omp teams num_teams(r % 5 + 1)
    runs++;
  }
  int want = 0;
  for (int r = 0; r < rounds; ++r) want += r % 5 + 1;
  CHECK(runs == want, "%d regions: %d of %d team runs", rounds, runs.load(), want);
}

// On weft the teams run at once: each waits (10 s at most) for the other.
void teams_run_at_once() {
  std::atomic<int> arrived{0};
  std::atomic<int> waited_in_vain{0};
#pragma omp teams num_teams(2)
#pragma omp parallel num_threads(1)
  {
    arrived++;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (arrived.load() < 2) {
      if (std::chrono::steady_clock::now() > give_up) {
        waited_in_vain++;
        break;
      }
#pragma omp taskyield
    }
  }
  CHECK(waited_in_vain == 0, "teams did not run at once: %d waited 10 s for the other", waited_in_vain.load());
}

void teams_inside(std::atomic<int>* x) {
#pragma omp teams num_teams(2)
  (*x)++;
}

}  // namespace

int main(int argc, char** argv) {
  omptest::start("teams_test");
  if (argc > 1 && std::strcmp(argv[1], "nested") == 0) {
    std::atomic<int> x{0};
#pragma omp parallel num_threads(2)
    teams_inside(&x);
    std::printf("ran nested teams: x=%d\n", x.load());
    return 0;
  }
  teams_of_four();
  distribute_covers_each_iteration_once();
  teams_distribute_parallel_for();
  tasks_of_a_team();
  the_number_of_teams();
  many_regions();
  if (std::strcmp(omptest::runtime_name(), "weft") == 0) teams_run_at_once();
  return omptest::finish("teams_test");
}
