// Cancellation (OpenMP 5.2 §16), run with OMP_CANCELLATION=true. Each case
// makes the members or tasks that are to be cancelled wait at a
// cancellation point until it fires (with a 10 s limit that counts a
// failure instead of hanging), and the canceller cancel only once they all
// wait there, so what is checked holds on every schedule:
//  * cancel parallel: members waiting in a barrier leave it and skip the rest
//    of the region; an `if(false)` cancel cancels nothing; a cancelled inner
//    region leaves its outer region running; the next region runs whole.
//  * cancel for / cancel sections: members spinning on a cancellation point
//    leave the construct, everyone goes on after it, and the next loop runs
//    every iteration (the cancellation ended with the construct).
//  * cancel taskgroup: tasks spinning on a cancellation point leave; tasks
//    made in the group after that never run; the next taskgroup runs all.
// Run without OMP_CANCELLATION (cancel-var false), it checks instead that
// cancel constructs do nothing.
#include <atomic>
#include <chrono>

#include "check.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPatience = std::chrono::seconds(10);

// Spins until `count` reaches `n` (or the patience runs out: false).
bool wait_for_count(const std::atomic<int>& count, int n) {
  const auto give_up = Clock::now() + kPatience;
  while (count.load() < n) {
    if (Clock::now() > give_up) return false;
#pragma omp taskyield
  }
  return true;
}

// Spins at a cancellation point (`directive`, e.g. "omp cancellation point
// for") until it fires, which leaves the construct; sets `timed_out` if the
// patience runs out first. A macro: the directive must be nested in the
// construct it cancels, not in a function called there.
#define SPIN_AT_CANCELLATION_POINT(directive, timed_out) \
  do {                                                   \
    const auto give_up = Clock::now() + kPatience;       \
    while (true) {                                       \
      _Pragma(directive)                                 \
      if (Clock::now() > give_up) {                      \
        (timed_out).store(true);                         \
        break;                                           \
      }                                                  \
      _Pragma("omp taskyield")                           \
    }                                                    \
  } while (0)

// Counts `*counter` up when the scope is left, also by a cancellation
// point's jump out of it.
struct CountOnExit {
  std::atomic<int>* counter;
  ~CountOnExit() { counter->fetch_add(1); }
};

// A team of `n` (past 4: arrivals through a tree of counters) whose members
// 1..n-1 wait in a barrier that member 0 cancels; then a region of the same
// team, whose barriers must start clean.
void cancel_parallel_leaves_the_barrier(int n) {
  std::atomic<int> waiting{0}, after_barrier{0}, at_end{0};
  bool others_waited = true;
#pragma omp parallel num_threads(n)
  {
    CountOnExit end{&at_end};
    if (omp_get_thread_num() == 0) {
      others_waited = wait_for_count(waiting, n - 1);
#pragma omp cancel parallel
#pragma omp barrier
      // Only if the cancel did not cancel: the others then pass the barrier.
    } else {
      waiting++;
#pragma omp barrier
      after_barrier++;  // the barrier can only end by the cancellation
    }
  }
  CHECK(others_waited, "cancel parallel: the other members never reached the barrier");
  CHECK(after_barrier == 0, "cancel parallel: %d members went on past the barrier", after_barrier.load());
  CHECK(at_end == n, "cancel parallel: %d of %d members left the region", at_end.load(), n);
  const int early = omptest::early_barrier_passes(n, 20);
  CHECK(early == 0, "after a cancelled barrier of %d: %d members passed the next ones early", n, early);
}

void cancel_parallel_if_false_cancels_nothing() {
  const int n = 3;
  std::atomic<int> after{0};
#pragma omp parallel num_threads(n)
  {
    const bool cancel = false;
#pragma omp cancel parallel if (cancel)
#pragma omp barrier
    after++;
  }
  CHECK(after == n, "cancel parallel if(false): %d of %d members ran the whole region", after.load(), n);
}

void cancelled_inner_region_leaves_outer_running() {
  omp_set_max_active_levels(2);
  const int outer = 2, inner = 3;
  std::atomic<int> after_inner{0}, inner_past_barrier{0};
#pragma omp parallel num_threads(outer)
  {
    std::atomic<int> waiting{0};
#pragma omp parallel num_threads(inner)
    {
      if (omp_get_thread_num() == 0) {
        if (!wait_for_count(waiting, inner - 1)) inner_past_barrier += 100;
#pragma omp cancel parallel
#pragma omp barrier
      } else {
        waiting++;
#pragma omp barrier
        inner_past_barrier++;
      }
    }
#pragma omp barrier
    after_inner++;
  }
  omp_set_max_active_levels(1);
  CHECK(inner_past_barrier == 0, "nested cancel: %d inner members went on past the barrier",
        inner_past_barrier.load());
  CHECK(after_inner == outer, "nested cancel: %d of %d outer members went on", after_inner.load(), outer);
}

void next_region_runs_whole() {
  const int n = 4, rounds = 50;
  std::atomic<int> passes{0};
#pragma omp parallel num_threads(n)
  for (int r = 0; r < rounds; ++r) {
#pragma omp barrier
    passes++;
  }
  CHECK(passes == n * rounds, "after a cancelled region: %d of %d barrier passes", passes.load(), n * rounds);
}

void cancel_for() {
  const int n = 4;
  std::atomic<int> waiting{0}, left_loop{0}, after_loop{0}, second_loop{0};
  std::atomic<bool> timed_out{false};
  bool others_waited = true;
#pragma omp parallel num_threads(n)
  {
#pragma omp for schedule(static, 1)
    for (int i = 0; i < n; ++i) {
      if (i == 0) {
        others_waited = wait_for_count(waiting, n - 1);
#pragma omp cancel for
      } else {
        CountOnExit left{&left_loop};
        waiting++;
        SPIN_AT_CANCELLATION_POINT("omp cancellation point for", timed_out);
      }
    }
    after_loop++;
#pragma omp for schedule(dynamic, 3)
    for (int i = 0; i < 1000; ++i) {
#pragma omp cancellation point for
      second_loop++;
    }
  }
  CHECK(others_waited && !timed_out, "cancel for: a cancellation point did not fire");
  CHECK(left_loop == n - 1, "cancel for: %d of %d members left by the cancellation point", left_loop.load(), n - 1);
  CHECK(after_loop == n, "cancel for: %d of %d members went on after the loop", after_loop.load(), n);
  CHECK(second_loop == 1000, "the loop after a cancelled one ran %d of 1000 iterations", second_loop.load());
}

void cancel_sections() {
  std::atomic<int> waiting{0}, left{0}, after{0};
  std::atomic<bool> timed_out{false};
  bool others_waited = true;
#pragma omp parallel num_threads(3)
  {
#pragma omp sections
    {
#pragma omp section
      {
        others_waited = wait_for_count(waiting, 2);
#pragma omp cancel sections
      }
#pragma omp section
      {
        CountOnExit exit{&left};
        waiting++;
        SPIN_AT_CANCELLATION_POINT("omp cancellation point sections", timed_out);
      }
#pragma omp section
      {
        CountOnExit exit{&left};
        waiting++;
        SPIN_AT_CANCELLATION_POINT("omp cancellation point sections", timed_out);
      }
    }
    after++;
  }
  CHECK(others_waited && !timed_out, "cancel sections: a cancellation point did not fire");
  CHECK(left == 2, "cancel sections: %d of 2 sections left", left.load());
  CHECK(after == 3, "cancel sections: %d of 3 members went on after the construct", after.load());
}

void cancel_taskgroup() {
  const int spinners = 2, late = 100, whole = 200;
  std::atomic<int> waiting{0}, left{0}, late_ran{0}, whole_ran{0};
  std::atomic<bool> timed_out{false};
  bool spinners_waited = true, spinners_left = true;
#pragma omp parallel num_threads(4)
#pragma omp single
  {
#pragma omp taskgroup
    {
#pragma omp task
      {
        spinners_waited = wait_for_count(waiting, spinners);
#pragma omp cancel taskgroup
      }
      for (int k = 0; k < spinners; ++k) {
#pragma omp task
        {
          CountOnExit exit{&left};
          waiting++;
          SPIN_AT_CANCELLATION_POINT("omp cancellation point taskgroup", timed_out);
        }
      }
      // Once the spinners have left, the group is cancelled: no new task of
      // it may run.
      spinners_left = wait_for_count(left, spinners);
      for (int k = 0; k < late; ++k) {
#pragma omp task
        late_ran++;
      }
    }
#pragma omp taskgroup
    {
      for (int k = 0; k < whole; ++k) {
#pragma omp task
        whole_ran++;
      }
    }
  }
  CHECK(spinners_waited && spinners_left && !timed_out, "cancel taskgroup: a cancellation point did not fire");
  CHECK(late_ran == 0, "cancel taskgroup: %d tasks made after the cancellation ran", late_ran.load());
  CHECK(whole_ran == whole, "the taskgroup after a cancelled one ran %d of %d tasks", whole_ran.load(), whole);
}

}  // namespace

// Cancellation off: every member runs the whole region, past the cancel.
void cancel_off_is_a_no_op() {
  const int n = 3;
  std::atomic<int> after{0};
#pragma omp parallel num_threads(n)
  {
#pragma omp cancel parallel
#pragma omp barrier
    after++;
  }
  CHECK(after == n, "cancellation off: %d of %d members ran past cancel parallel", after.load(), n);
}

int main() {
  omptest::start("cancel_test");
  if (omp_get_cancellation() == 0) {
    cancel_off_is_a_no_op();
    return omptest::finish("cancel_test");
  }
  for (int round = 0; round < 20 / omptest::kScale + 1; ++round) {
    cancel_parallel_leaves_the_barrier(4);
    cancel_parallel_leaves_the_barrier(9);
    cancel_parallel_if_false_cancels_nothing();
    cancelled_inner_region_leaves_outer_running();
    next_region_runs_whole();
    cancel_for();
    cancel_sections();
    cancel_taskgroup();
    if (omptest::failures > 0) break;
  }
  return omptest::finish("cancel_test");
}
