// Parallel regions: team sizes, thread numbers, num_threads and if clauses,
// nesting (levels, active levels, ancestors, team sizes), the ICVs a member
// changes, proc_bind clauses, many regions in a row, regions started by the
// program's own threads beside the initial thread's.
#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "check.hpp"

int main() {
  omptest::start("parallel_test");
  const int max = omp_get_max_threads();
  CHECK(max >= 1, "omp_get_max_threads() = %d", max);
  CHECK(!omp_in_parallel() && omp_get_level() == 0 && omp_get_thread_num() == 0 && omp_get_num_threads() == 1,
        "outside any region");

  // The default team: nthreads-var members, numbers 0..n-1 once each.
  {
    std::vector<std::atomic<int>> seen(static_cast<std::size_t>(max));
    int size = 0;
#pragma omp parallel
    {
      seen[static_cast<std::size_t>(omp_get_thread_num())]++;
#pragma omp single
      size = omp_get_num_threads();
    }
    CHECK(size == max, "default team of %d, expected %d", size, max);
    for (int i = 0; i < max; ++i) CHECK(seen[static_cast<std::size_t>(i)] == 1, "member %d ran %d times", i, seen[static_cast<std::size_t>(i)].load());
  }

  // num_threads larger than the machine, and the queries inside.
  for (int n : {1, 2, 3, 7, 16}) {
    std::vector<std::atomic<int>> seen(static_cast<std::size_t>(n));
    std::atomic<int> bad{0};
#pragma omp parallel num_threads(n)
    {
      const int id = omp_get_thread_num();
      if (id < 0 || id >= n || omp_get_num_threads() != n || omp_get_level() != 1 ||
          omp_in_parallel() != (n > 1) || omp_get_active_level() != (n > 1 ? 1 : 0) || omp_get_team_size(1) != n ||
          omp_get_ancestor_thread_num(1) != id || omp_get_ancestor_thread_num(0) != 0 || omp_get_team_size(0) != 1)
        bad++;
      else
        seen[static_cast<std::size_t>(id)]++;
    }
    CHECK(bad == 0, "num_threads(%d): %d members saw wrong team queries", n, bad.load());
    for (int i = 0; i < n; ++i) CHECK(seen[static_cast<std::size_t>(i)] == 1, "num_threads(%d): member %d", n, i);
  }

  // if(false): a team of one, level 1 but not active.
  {
    int size = 0, level = 0, active = 1, in_parallel = 1;
    const bool no = omp_get_max_threads() < 0;
#pragma omp parallel if (no) num_threads(4)
    {
      size = omp_get_num_threads();
      level = omp_get_level();
      active = omp_get_active_level();
      in_parallel = omp_in_parallel();
    }
    CHECK(size == 1 && level == 1 && active == 0 && in_parallel == 0, "if(false): size %d level %d active %d", size,
          level, active);
  }

  // Nesting with max-active-levels 1: the inner teams have one member.
  {
    omp_set_max_active_levels(1);
    std::atomic<int> inner_sizes{0};
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(3)
    {
      if (omp_get_level() == 2 && omp_get_active_level() == 1) inner_sizes += omp_get_num_threads();
    }
    CHECK(inner_sizes == 2, "inactive nested regions: summed inner sizes %d, expected 2", inner_sizes.load());
  }

  // Nesting three levels deep: 2 x 3 x 2 members, every (a, b, c) once,
  // ancestors and team sizes as seen from the innermost member.
  {
    omp_set_max_active_levels(3);
    std::vector<std::atomic<int>> seen(12);
    std::atomic<int> bad{0};
#pragma omp parallel num_threads(2)
    {
      const int a = omp_get_thread_num();
#pragma omp parallel num_threads(3)
      {
        const int b = omp_get_thread_num();
#pragma omp parallel num_threads(2)
        {
          const int c = omp_get_thread_num();
          if (omp_get_level() != 3 || omp_get_active_level() != 3 || omp_get_ancestor_thread_num(1) != a ||
              omp_get_ancestor_thread_num(2) != b || omp_get_ancestor_thread_num(3) != c ||
              omp_get_ancestor_thread_num(4) != -1 || omp_get_ancestor_thread_num(-1) != -1 ||
              omp_get_team_size(1) != 2 || omp_get_team_size(2) != 3 || omp_get_team_size(3) != 2 ||
              omp_get_team_size(4) != -1)
            bad++;
          seen[static_cast<std::size_t>(a * 6 + b * 2 + c)]++;
        }
      }
    }
    CHECK(bad == 0, "3-level nesting: %d members saw wrong ancestry", bad.load());
    for (int i = 0; i < 12; ++i) CHECK(seen[static_cast<std::size_t>(i)] == 1, "3-level member %d ran %d times", i, seen[static_cast<std::size_t>(i)].load());
  }

  // A member's omp_set_num_threads changes its own nested regions only.
  {
    std::atomic<int> sizes[2] = {0, 0};
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) omp_set_num_threads(3);
      else omp_set_num_threads(2);
#pragma omp parallel
      {
#pragma omp single
        sizes[omp_get_ancestor_thread_num(1)] = omp_get_num_threads();
      }
    }
    CHECK(sizes[0] == 2 && sizes[1] == 3, "per-member nthreads-var: %d %d", sizes[0].load(), sizes[1].load());
    CHECK(omp_get_max_threads() == max, "the initial task's nthreads-var changed to %d", omp_get_max_threads());
  }

  // proc_bind clauses: same team, numbers and sizes.
  {
    std::atomic<int> sum{0};
#pragma omp parallel num_threads(2) proc_bind(spread)
    sum += omp_get_thread_num() + 1;
#pragma omp parallel num_threads(2) proc_bind(close)
    sum += omp_get_thread_num() + 1;
#pragma omp parallel num_threads(2) proc_bind(primary)
    sum += omp_get_thread_num() + 1;
    CHECK(sum == 9, "proc_bind regions: %d", sum.load());
  }

  // Many regions in a row, each member adding its number.
  {
    long total = 0;
    const int regions = 2000 / omptest::kScale;
    for (int r = 0; r < regions; ++r) {
#pragma omp parallel num_threads(2) reduction(+ : total)
      total += omp_get_thread_num() + 1;
    }
    CHECK(total == 3L * regions, "%d regions: total %ld", regions, total);
  }

  // Explicit tasks report a thread number of their team.
  {
    std::atomic<int> bad{0};
#pragma omp parallel num_threads(3)
#pragma omp single
    for (int i = 0; i < 200; ++i) {
#pragma omp task
      {
        const int id = omp_get_thread_num();
        if (id < 0 || id >= 3 || omp_get_num_threads() != 3 || omp_get_level() != 1) bad++;
      }
    }
    CHECK(bad == 0, "%d tasks saw a thread number outside their team", bad.load());
  }
  // Threads the program made start regions of their own while the initial
  // thread runs its own: each is member 0 of its teams, whose sizes, thread
  // numbers, tasks and nested regions are their own (on weft their members
  // go to workers 1..N-1: worker 0 runs only inside the initial thread's
  // regions).
  {
    std::atomic<int> bad{0};
    auto regions = [&bad](int reps) {
      omp_set_max_active_levels(2);
      for (int rep = 0; rep < reps; ++rep) {
        std::atomic<int> members{0}, tasks{0}, inner{0};
#pragma omp parallel num_threads(2) shared(members, tasks, inner)
        {
          if (omp_get_num_threads() != 2 || omp_get_level() != 1) bad++;
          members.fetch_add(1 << (4 * omp_get_thread_num()));
#pragma omp task shared(tasks)
          tasks.fetch_add(1);
#pragma omp parallel num_threads(2) shared(inner)
          {
            if (omp_get_num_threads() != 2 || omp_get_level() != 2) bad++;
            inner.fetch_add(1);
          }
        }
        if (members.load() != 0x11 || tasks.load() != 2 || inner.load() != 4) bad++;
      }
    };
    std::thread first(regions, 300), second(regions, 300);
    regions(300);
    first.join();
    second.join();
    CHECK(bad == 0, "%d wrong team sizes, thread numbers, tasks or nested teams beside other threads' regions",
          bad.load());
  }
  return omptest::finish("parallel_test");
}
