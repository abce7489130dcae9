// Explicit tasks: a recursive task tree, dependences (in, out, inout,
// mutexinoutset, depobj, taskwait depend) and the order
// they impose, taskgroup (waits for descendants), if(false) and final
// (undeferred, omp_in_final), included tasks one after another and nested,
// untied, mergeable, priority, detach with
// omp_fulfill_event, taskyield, taskloop (grainsize, num_tasks, nogroup),
// tasks in nested regions, many tasks from one creator, and the primary
// thread running another member's tasks.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "check.hpp"

namespace {

long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
#pragma omp task shared(a) untied
  a = fib(n - 1);
#pragma omp task shared(b) mergeable
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

// Appends under a lock, returning the position.
struct Log {
  std::mutex m;
  std::vector<int> events;
  void add(int e) {
    std::lock_guard<std::mutex> l(m);
    events.push_back(e);
  }
  int pos(int e) {
    for (std::size_t i = 0; i < events.size(); ++i)
      if (events[i] == e) return static_cast<int>(i);
    return -1;
  }
};

void spin(int n) {
  volatile int x = 0;
  for (int i = 0; i < n; ++i) x = x + 1;
}

// Firstprivate data of a given size and alignment, filled from a seed: a
// task checks that its copy is whole (the library keeps small task records
// for reuse and allocates large or over-aligned ones).
template <int Bytes, int Align>
struct alignas(Align) Payload {
  unsigned char bytes[Bytes];
  explicit Payload(unsigned seed) {
    for (int i = 0; i < Bytes; ++i) bytes[i] = static_cast<unsigned char>(seed * 31u + static_cast<unsigned>(i));
  }
  bool intact(unsigned seed) const {
    if (reinterpret_cast<std::uintptr_t>(this) % Align != 0) return false;
    for (int i = 0; i < Bytes; ++i)
      if (bytes[i] != static_cast<unsigned char>(seed * 31u + static_cast<unsigned>(i))) return false;
    return true;
  }
};

template <int Bytes, int Align>
int broken_firstprivate_copies(int tasks_per_member) {
  std::atomic<int> broken{0};
#pragma omp parallel shared(broken)
  for (int k = 0; k < tasks_per_member; ++k) {
    const unsigned seed = static_cast<unsigned>(omp_get_thread_num() * 100003 + k);
    Payload<Bytes, Align> p(seed);
#pragma omp task firstprivate(p, seed) shared(broken)
    {
      if (seed % 3 == 0) spin(200);
      if (!p.intact(seed)) broken++;
    }
  }
  return broken.load();
}

}  // namespace

int main() {
  omptest::start("task_test");
  long f = 0;
#pragma omp parallel
#pragma omp single
  f = fib(22 - 2 * (omptest::kScale > 1));
  CHECK(f == (omptest::kScale > 1 ? 6765 : 17711), "fib %ld", f);

  // Dependences: writer -> readers (concurrent) -> writer, on one variable.
  for (int rep = 0; rep < 20 / omptest::kScale + 1; ++rep) {
    Log log;
    [[maybe_unused]] int x = 0, y = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    {
#pragma omp task depend(out : x) shared(log)
      {
        spin(20000);
        log.add(1);
      }
      for (int r = 0; r < 4; ++r) {
#pragma omp task depend(in : x) shared(log) firstprivate(r)
        {
          spin(5000);
          log.add(10 + r);
        }
      }
#pragma omp task depend(inout : x) depend(out : y) shared(log)
      log.add(2);
#pragma omp task depend(in : y) shared(log)
      log.add(3);
#pragma omp taskwait depend(in : y)
      log.add(4);
    }
    // 4 follows the writer of y (2), not its reader (3).
    bool ok = log.events.size() == 8 && log.pos(1) == 0 && log.pos(2) == 5 && log.pos(3) > 5 && log.pos(4) > 5;
    for (int r = 0; r < 4; ++r) ok = ok && log.pos(10 + r) > 0 && log.pos(10 + r) < 5;
    CHECK(ok, "dependence order, repetition %d", rep);
  }

  // mutexinoutset: never two at once, after the out task, before the in.
  {
    std::atomic<int> inside{0}, overlap{0};
    Log log;
    [[maybe_unused]] int z = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    {
#pragma omp task depend(out : z) shared(log)
      log.add(1);
      for (int k = 0; k < 6; ++k) {
#pragma omp task depend(mutexinoutset : z) shared(inside, overlap, log)
        {
          if (inside++ != 0) overlap++;
          spin(3000);
          inside--;
          log.add(2);
        }
      }
#pragma omp task depend(in : z) shared(log)
      log.add(3);
    }
    CHECK(overlap == 0 && log.pos(1) == 0 && log.pos(3) == 7, "mutexinoutset: %d overlaps", overlap.load());
  }

  // depobj (GCC 12 has no omp_all_memory).
  {
    Log log;
    [[maybe_unused]] int a = 0;
    omp_depend_t obj;
#pragma omp depobj(obj) depend(inout : a)
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task depend(in : a) shared(log)
      {
        spin(10000);
        log.add(1);
      }
#pragma omp task depend(depobj : obj) shared(log)
      {
        spin(10000);
        log.add(2);
      }
#pragma omp task depend(in : a) shared(log)
      log.add(3);
    }
#pragma omp depobj(obj) destroy
    CHECK(log.events.size() == 3 && log.pos(1) == 0 && log.pos(2) == 1 && log.pos(3) == 2, "depobj order");
  }

  // taskgroup waits for descendants; taskwait for children (and here, with
  // grandchildren done before their parent, for them too).
  {
    std::atomic<int> done{0};
    bool all_done = false;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp taskgroup
      {
        for (int k = 0; k < 10; ++k) {
#pragma omp task shared(done)
          {
#pragma omp task shared(done)
            {
              spin(2000);
              done++;
            }
            done++;
          }
        }
      }
      all_done = done == 20;
    }
    CHECK(all_done, "taskgroup ended with %d of 20 tasks done", done.load());
  }

  // if(false) runs before the creator goes on; final makes descendants
  // included tasks, omp_in_final inside.
  {
    int step = 0;
    bool in_final = false, child_final = false, outside = true;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
      const bool no = omp_get_num_threads() < 0;
#pragma omp task if (no) shared(step)
      step = 1;
      const bool was_run = step == 1;
#pragma omp task final(true) shared(in_final, child_final)
      {
        in_final = omp_in_final();
#pragma omp task shared(child_final)
        child_final = omp_in_final();
      }
#pragma omp taskwait
      outside = omp_in_final();
      if (!was_run) step = -1;
    }
    CHECK(step == 1 && in_final && child_final && !outside, "if(false)/final: step %d final %d %d %d", step, in_final,
          child_final, outside);
  }

  // Included tasks one after another (they share one context in the
  // library): each starts with its parent's ICVs, whatever the one before
  // set; one inside another has its own; the deferred children they make
  // all run; the thread number is the encountering member's, also under a
  // deferred task.
  {
    constexpr int kSiblings = 4;
    int seen[2][kSiblings] = {}, inner[2][kSiblings] = {}, after[2] = {}, before[2] = {};
    std::atomic<int> children{0};
    bool thread_num_ok[2] = {false, false};
#pragma omp parallel num_threads(2)
    {
      const int me = omp_get_thread_num();
      before[me] = omp_get_max_threads();
      for (int k = 0; k < kSiblings; ++k) {
#pragma omp task if (0) shared(seen, inner, children)
        {
          seen[me][k] = omp_get_max_threads();
          omp_set_num_threads(before[me] + 1 + k);
#pragma omp task if (0) shared(inner)
          inner[me][k] = omp_get_max_threads();
          for (int c = 0; c < 3; ++c) {
#pragma omp task shared(children)
            {
              spin(2000);
              children++;
            }
          }
        }
      }
      after[me] = omp_get_max_threads();
#pragma omp task shared(thread_num_ok)
      {
        const int t = omp_get_thread_num();
        bool same = false;
#pragma omp task if (0) shared(same)
        same = omp_get_thread_num() == t;
        thread_num_ok[me] = same;
      }
#pragma omp taskwait
    }
    for (int me = 0; me < 2; ++me) {
      for (int k = 0; k < kSiblings; ++k) {
        CHECK(seen[me][k] == before[me], "included task %d of member %d started with %d threads, its parent had %d",
              k, me, seen[me][k], before[me]);
        CHECK(inner[me][k] == before[me] + 1 + k, "the task inside included task %d saw %d threads, not %d", k,
              inner[me][k], before[me] + 1 + k);
      }
      CHECK(after[me] == before[me], "member %d's ICV changed by its included tasks: %d, was %d", me, after[me],
            before[me]);
      CHECK(thread_num_ok[me], "an included task in a deferred task of member %d reported another thread number", me);
    }
    CHECK(children == 2 * kSiblings * 3, "the included tasks' deferred children: %d of %d ran", children.load(),
          2 * kSiblings * 3);
  }

  // detach: the task completes when its event is fulfilled (by a later task).
  {
    std::atomic<int> order{0};
    int seen_by_waiter = -1;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
      omp_event_handle_t ev;
#pragma omp task detach(ev) shared(order)
      order++;
#pragma omp task shared(order) firstprivate(ev)
      {
        spin(10000);
        order += 10;
        omp_fulfill_event(ev);
      }
#pragma omp taskwait
      seen_by_waiter = order;
    }
    CHECK(seen_by_waiter == 11, "detach: taskwait saw %d", seen_by_waiter);
  }

  // priority, taskyield, many tasks from one creator (beyond the throttle).
  {
    std::atomic<long> sum{0};
    const int n = 20000 / omptest::kScale;
#pragma omp parallel
#pragma omp single
    for (int k = 0; k < n; ++k) {
#pragma omp task priority(k % 5) shared(sum) firstprivate(k)
      {
#pragma omp taskyield
        sum += k;
      }
    }
    CHECK(sum == static_cast<long>(n) * (n - 1) / 2, "%d tasks summed to %ld", n, sum.load());
  }

  // taskloop: coverage with grainsize, num_tasks, nogroup.
  {
    const int n = 1000;
    std::vector<std::atomic<int>> hits(n);
    std::atomic<int> tasks_seen{0};
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop grainsize(64)
      for (int i = 0; i < n; ++i) hits[i]++;
#pragma omp taskloop num_tasks(7)
      for (int i = 0; i < n; ++i) hits[i]++;
#pragma omp taskloop nogroup
      for (int i = 0; i < n; ++i) hits[i]++;
#pragma omp taskwait
#pragma omp taskloop num_tasks(5) shared(tasks_seen)
      for (int i = 0; i < 5; ++i) tasks_seen++;
    }
    int wrong = 0;
    for (auto& h : hits) wrong += h != 3;
    CHECK(wrong == 0 && tasks_seen == 5, "taskloop: %d iterations wrong", wrong);
  }

  // Tasks whose data is small, large or over-aligned, made on every member
  // (so that records made on one worker are freed on another).
  {
    const int n = 2000 / omptest::kScale;
    CHECK((broken_firstprivate_copies<8, 8>(n)) == 0, "8-byte firstprivate data");
    CHECK((broken_firstprivate_copies<100, 4>(n)) == 0, "100-byte firstprivate data");
    CHECK((broken_firstprivate_copies<160, 16>(n)) == 0, "160-byte firstprivate data");
    CHECK((broken_firstprivate_copies<4096, 8>(n)) == 0, "4096-byte firstprivate data");
    CHECK((broken_firstprivate_copies<64, 128>(n)) == 0, "128-aligned firstprivate data");
  }

  // Tasks in nested teams.
  {
    omp_set_max_active_levels(2);
    std::atomic<int> count{0};
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
    {
#pragma omp single
      for (int k = 0; k < 50; ++k) {
#pragma omp task shared(count)
        count++;
      }
    }
    CHECK(count == 100, "tasks in nested teams: %d", count.load());
  }
  // The primary thread runs tasks another member created while it waits at
  // the region's end (libgomp's threads take tasks at a barrier; weft's
  // initial thread runs its hosted worker there). Each task waits up to 5 s
  // for one of them to have run on the initial thread.
  if (omp_get_max_threads() >= 2) {
    std::atomic<int> on_initial{0};
    const pid_t initial = getpid();
#pragma omp parallel num_threads(2) shared(on_initial)
    if (omp_get_thread_num() == 1) {
      for (int i = 0; i < 8; ++i) {
#pragma omp task shared(on_initial)
        {
          if (gettid() == initial) on_initial.fetch_add(1);
          const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
          while (on_initial.load() == 0 && std::chrono::steady_clock::now() < give_up) {
          }
        }
      }
    }
    CHECK(on_initial.load() > 0, "no task that member 1 created ran on the initial thread");
  }
  // A region of one between two of two members (the team object is reused
  // for all three) leaves the next one's tasks deferred: weft once kept the
  // one-member team's "run tasks at once" for it. A deferred task that
  // sleeps 5 ms has not finished right after it was made.
  if (std::strcmp(omptest::runtime_name(), "weft") == 0) {
    int unused = 0;
#pragma omp parallel num_threads(2)
    unused += 0;
#pragma omp parallel num_threads(1)
    unused += 0;
    bool deferred = false;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
      std::atomic<bool> finished{false};
#pragma omp task shared(finished)
      {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        finished = true;
      }
      deferred = !finished;
#pragma omp taskwait
    }
    CHECK(deferred, "after a region of one member, a 2-member region ran its task at once (undeferred)");
    (void)unused;
  }

  return omptest::finish("task_test");
}
