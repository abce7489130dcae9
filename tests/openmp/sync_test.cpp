// Synchronisation constructs: barrier phases, single (and nowait), single
// copyprivate, master and masked, critical (unnamed and named, excluding
// members and tasks alike), atomic (hardware and the library's fallback for
// long double), sections, and the lock routines (plain and nestable).
#include <atomic>
#include <vector>

#include "check.hpp"

int main() {
  omptest::start("sync_test");
  const int rounds = 200 / omptest::kScale;

  // Barrier: nobody passes phase p before everyone wrote phase p. Team
  // sizes past 4 arrive through a tree of counters of 1 to 3 levels (17: 5
  // leaves, 2 nodes, a root); a member waits a varying while before each
  // barrier, so the last arrival comes from anywhere in the tree.
  for (const int n : {2, 3, 4, 5, 7, 16, 17, 21}) {
    const int early = omptest::early_barrier_passes(n, rounds);
    CHECK(early == 0, "barrier of %d: %d members passed early", n, early);
  }

  // single: once per construct; copyprivate broadcasts.
  {
    std::atomic<int> singles{0}, nowaits{0}, bad{0};
#pragma omp parallel num_threads(3)
    {
      for (int k = 0; k < rounds; ++k) {
#pragma omp single
        singles++;
#pragma omp single nowait
        nowaits++;
        int v = -1;
#pragma omp single copyprivate(v)
        v = k * 3 + 1;
        if (v != k * 3 + 1) bad++;
      }
    }
    CHECK(singles == rounds && nowaits == rounds, "single ran %d and %d times", singles.load(), nowaits.load());
    CHECK(bad == 0, "copyprivate: %d members got another value", bad.load());
  }

  // master / masked.
  {
    std::atomic<int> by_master{0}, by_one{0}, wrong{0};
#pragma omp parallel num_threads(3)
    {
#pragma omp master
      {
        by_master++;
        if (omp_get_thread_num() != 0) wrong++;
      }
#pragma omp masked filter(1)
      {
        by_one++;
        if (omp_get_thread_num() != 1) wrong++;
      }
    }
    CHECK(by_master == 1 && by_one == 1 && wrong == 0, "master %d masked %d", by_master.load(), by_one.load());
  }

  // critical: plain increments stay exact, from members and from tasks.
  {
    long a = 0, b = 0, c = 0;
#pragma omp parallel num_threads(4)
    {
      for (int k = 0; k < 1000 / omptest::kScale; ++k) {
#pragma omp critical
        ++a;
#pragma omp critical(other)
        b += 2;
      }
#pragma omp single
      for (int k = 0; k < 300; ++k) {
#pragma omp task
        {
#pragma omp critical
          ++c;
        }
      }
    }
    CHECK(a == 4 * (1000 / omptest::kScale) && b == 2 * a && c == 300, "critical: %ld %ld %ld", a, b, c);
  }

  // atomic: hardware atomics and GOMP_atomic_start/end (long double).
  {
    long counter = 0;
    long double ld = 0;
    long captured_max = 0;
#pragma omp parallel num_threads(4)
    for (int k = 0; k < 500; ++k) {
      long mine;
#pragma omp atomic capture
      mine = counter++;
#pragma omp atomic update
      ld += 0.5L;
#pragma omp critical
      if (mine > captured_max) captured_max = mine;
    }
    CHECK(counter == 2000 && ld == 1000.0L && captured_max == 1999, "atomic: %ld %Lf %ld", counter, ld, captured_max);
  }

  // sections: each once, more sections than members.
  {
    std::atomic<int> ran[5] = {0, 0, 0, 0, 0};
#pragma omp parallel sections num_threads(2)
    {
#pragma omp section
      ran[0]++;
#pragma omp section
      ran[1]++;
#pragma omp section
      ran[2]++;
#pragma omp section
      ran[3]++;
#pragma omp section
      ran[4]++;
    }
    bool once = true;
    for (auto& r : ran) once = once && r == 1;
    std::atomic<int> orphan{0};
#pragma omp parallel num_threads(3)
    {
#pragma omp sections nowait
      {
#pragma omp section
        orphan++;
#pragma omp section
        orphan += 10;
      }
#pragma omp sections
      {
#pragma omp section
        orphan += 100;
      }
    }
    CHECK(once && orphan == 111, "sections: %d", orphan.load());
  }

  // Locks: exclusion, test_lock, nestable locks owned by tasks.
  {
    omp_lock_t lock;
    omp_init_lock(&lock);
    long plain = 0;
    std::atomic<int> test_ok{0};
#pragma omp parallel num_threads(4)
    {
      for (int k = 0; k < 1000 / omptest::kScale; ++k) {
        omp_set_lock(&lock);
        ++plain;
        omp_unset_lock(&lock);
      }
#pragma omp barrier
#pragma omp single
      {
        omp_set_lock(&lock);
#pragma omp task shared(test_ok, lock)
        {
          if (!omp_test_lock(&lock)) test_ok++;  // held by the single's member
        }
#pragma omp taskwait
        omp_unset_lock(&lock);
        if (omp_test_lock(&lock)) {
          test_ok++;
          omp_unset_lock(&lock);
        }
      }
    }
    omp_destroy_lock(&lock);
    CHECK(plain == 4 * (1000 / omptest::kScale) && test_ok == 2, "omp_lock: %ld, test_lock %d", plain, test_ok.load());

    omp_nest_lock_t nest;
    omp_init_nest_lock(&nest);
    long nested = 0;
    std::atomic<int> bad{0};
#pragma omp parallel num_threads(3)
    for (int k = 0; k < 200 / omptest::kScale; ++k) {
      omp_set_nest_lock(&nest);
      omp_set_nest_lock(&nest);
      if (omp_test_nest_lock(&nest) != 3) bad++;
      ++nested;
      omp_unset_nest_lock(&nest);
      omp_unset_nest_lock(&nest);
      omp_unset_nest_lock(&nest);
    }
    omp_destroy_nest_lock(&nest);
    CHECK(nested == 3 * (200 / omptest::kScale) && bad == 0, "nest lock: %ld, %d wrong counts", nested, bad.load());
  }
  return omptest::finish("sync_test");
}
