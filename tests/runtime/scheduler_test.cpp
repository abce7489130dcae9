// Work stealing, sleeping idle workers, pinning, statistics, configuration
// errors and shutdown of a deadlocked program.

#include <sched.h>
#include <sys/resource.h>

#include <atomic>
#include <fstream>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <set>
#include <thread>
#include <utility>

#include "test_support.hpp"
#if defined(WEFT_ASAN)
#include <sanitizer/lsan_interface.h>
#endif
#include "weft/sched/cpuset.hpp"

namespace weft::test {
namespace {

Config two_workers() {
  Config c;
  c.workers = 2;
  c.pin_workers = false;
  return c;
}

TEST(Scheduler, IdleWorkersStealUnstartedUlts) {
  Runtime rt(two_workers());
  std::set<int> workers_seen;
  Mutex m;
  std::atomic<bool> stolen{false};
  rt.spawn_on(0, [&] {
      std::vector<Ult<void>> children;
      for (int i = 0; i < 200; ++i)
        children.push_back(spawn([&] {
          auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
          while (std::chrono::steady_clock::now() < until) {
          }
          std::lock_guard lock(m);
          workers_seen.insert(this_ult::worker_index());
          if (this_ult::worker_index() != 0) stolen = true;
        }));
      // Keep worker 0 busy without yielding, so only a thief can run them:
      // until one has been stolen (within ms), or 10 s on a loaded machine.
      auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!stolen && std::chrono::steady_clock::now() < give_up) {
      }
      for (auto& c : children) c.join();
    }).join();
  EXPECT_TRUE(workers_seen.count(1)) << "worker 1 never ran a stolen ULT";
  EXPECT_GT(rt.stats().workers[1].steals, 0u);
}

// A lone entry (the victim's only unstarted ULT) is stolen only once it has
// stayed a few looks (a child about to be joined should not be); one whose
// owner goes on working without joining is still stolen, here while worker 0
// spins without yielding until the child has run.
TEST(Scheduler, ALoneUnstartedUltIsStolenWhenItsOwnerStaysBusy) {
  Runtime rt(two_workers());
  for (int round = 0; round < 20; ++round) {
    const int ran_on = rt.spawn_on(0, [] {
        std::atomic<int> where{-1};
        Ult<void> child = spawn([&where] { where.store(this_ult::worker_index(), std::memory_order_release); });
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (where.load(std::memory_order_acquire) < 0 && std::chrono::steady_clock::now() < deadline) {
        }
        const int w = where.load(std::memory_order_acquire);
        child.join();  // runs it here if nobody stole it within the deadline
        return w;
      }).join();
    ASSERT_EQ(ran_on, 1) << "round " << round << ": the lone child was not stolen while worker 0 was busy";
  }
}

// Beside an owner that spawns and joins one child at a time, the other
// worker sees a lone entry that never settles: it naps between looks rather
// than spinning all along (it spun ~100 % of the loop before the nap).
// Measured as the CPU time each worker's thread burned during the loop, not
// the stats' spinning and sleeping times: those are wall time, and beside
// other processes a napping worker's looks between naps (preempted, or
// yielding its CPU) added up to as much "spinning" as it slept (150 ms each
// of the 300, failing 3 of 5 runs), while its thread burned 7-11 ms of CPU
// against worker 0's 150. A worker that spins all along burns about what
// worker 0 does (less where it yields its CPU to other processes).
std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

TEST(Scheduler, AnIdleWorkerNapsBesideOneSpawningAndJoiningOneChildAtATime) {
  Runtime rt(two_workers());
  const std::int64_t worker1_before = rt.spawn_on(1, [] { return thread_cpu_ns(); }).join();
  const WorkerStats before = rt.stats().workers[1];
  const auto [sum, worker0_cpu] = rt.spawn_on(0, [] {
      const std::int64_t cpu_before = thread_cpu_ns();
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
      long s = 0;
      while (std::chrono::steady_clock::now() < until)
        for (long i = 0; i < 1000; ++i) s += spawn([i] { return i; }).join() - i;
      return std::pair{s, thread_cpu_ns() - cpu_before};
    }).join();
  const WorkerStats after = rt.stats().workers[1];
  const std::int64_t worker1_cpu = rt.spawn_on(1, [] { return thread_cpu_ns(); }).join() - worker1_before;
  EXPECT_EQ(sum, 0);
  EXPECT_LT(worker1_cpu, worker0_cpu / 2)
      << "worker 1 burned " << worker1_cpu / 1000 << " us of CPU beside worker 0's " << worker0_cpu / 1000
      << " us; it spun " << (after.spinning_ns - before.spinning_ns) / 1000 << " us and slept "
      << (after.sleeping_ns - before.sleeping_ns) / 1000 << " us (wall), stole " << after.steals - before.steals;
}

TEST(Scheduler, StartedUltsStayOnTheirWorker) {
  Runtime rt(two_workers());
  std::atomic<bool> moved{false};
  rt.run([&] {
    TaskGroup group;
    for (int i = 0; i < 100; ++i)
      group.run([&] {
        int w = this_ult::worker_index();
        for (int k = 0; k < 100; ++k) {
          this_ult::yield();
          if (k % 10 == 0) this_ult::sleep_for(std::chrono::microseconds(10));
          if (this_ult::worker_index() != w) moved = true;
        }
      });
    group.wait();
  });
  EXPECT_FALSE(moved.load());
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

TEST(Scheduler, IdleRuntimeUsesAlmostNoCpu) {
  Runtime rt(two_workers());
  rt.run([] {});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let the workers fall asleep
  double before = cpu_seconds();
  auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double used = cpu_seconds() - before;
  // Generous bound: 10% of one core (a spinning worker would use 100% per worker).
  EXPECT_LT(used / wall, 0.10) << "idle runtime used " << used << " s of CPU in " << wall << " s";
  EXPECT_GT(rt.stats().total().sleeps, 0u);
}

TEST(Scheduler, NewWorkWakesASleepingWorker) {
  Runtime rt(two_workers());
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // workers asleep
    EXPECT_EQ(rt.spawn_on(i % 2, [] { return 1; }).join(), 1);
  }
}

TEST(Scheduler, WorkersArePinnedWhereConfigured) {
  auto allowed = sched::allowed_cpus();
  Config c;
  c.workers = 1;
  c.cpus = {allowed.back()};
  Runtime rt(c);
  EXPECT_EQ(rt.worker_cpus(), std::vector<int>{allowed.back()});
  int cpu_count = rt.run([] {
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    return CPU_COUNT(&set);
  });
  EXPECT_EQ(cpu_count, 1);
  EXPECT_EQ(rt.run([] {
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    for (int i = 0; i < CPU_SETSIZE; ++i)
      if (CPU_ISSET(i, &set)) return i;
    return -1;
  }),
            allowed.back());
}

TEST(Scheduler, DefaultWorkerCountFollowsTheAllowedCpus) {
  Runtime rt;
  EXPECT_EQ(rt.num_workers(), sched::default_worker_count());
}

TEST(Scheduler, StatsCountTheEvents) {
  Config c = two_workers();
  Runtime rt(c);
  rt.spawn_on(0, [] {
      auto other = spawn_on(0, [] {
        for (int i = 0; i < 100; ++i) this_ult::yield();
      });
      for (int i = 0; i < 100; ++i) this_ult::yield();
      other.join();
    }).join();
  Stats s = rt.stats();
  ASSERT_EQ(s.workers.size(), 2u);
  EXPECT_GE(s.workers[0].yields, 100u);
  EXPECT_GE(s.workers[0].switches, 200u);
  EXPECT_GE(s.total().spawns, 1u);
  EXPECT_NE(s.to_string().find("total"), std::string::npos);
}

void expect_invalid(const Config& c, const std::string& fragment) {
  try {
    Runtime rt(c);
    ADD_FAILURE() << "expected std::invalid_argument mentioning '" << fragment << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(SchedulerConfig, ImpossibleSettingsAreClearErrors) {
  Config c;
  c.workers = -1;
  expect_invalid(c, "negative");
  c.workers = static_cast<int>(sched::allowed_cpus().size()) + 1;
  expect_invalid(c, "CPUs are allowed");
  c = Config{};
  c.cpus = {100000};
  expect_invalid(c, "CPU 100000");
  c = Config{};
  c.stack_size = 1024;
  expect_invalid(c, "too small");
  c = Config{};
  c.placement = "NO_SUCH_POLICY";
  expect_invalid(c, "NO_SUCH_POLICY");
}

// A saved topology (Config::topology_file) places the workers: here two
// sockets of one context each, where waking socket 0 costs more power than
// socket 1, so POWER puts a single worker on the second CPU, which only the
// file can cause (the default placement takes the first).
std::string write_topology_file(const std::string& name, int cpu_a, int cpu_b) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream out(path);
  out << "weft-topology 1\ndescription test: two sockets, numbered backwards\nsource measured\ncontexts 2\n"
      << "ctx 0 " << cpu_a << " 0 0 0\nctx 1 " << cpu_b << " 1 1 0\n"
      << "latency 0 0 300\nlatency 1 300 0\n"
      << "power-source estimated\npower 0 15 30 4 1 3 5\npower 1 15 10 4 1 3 5\nend\n";
  return path;
}

TEST(SchedulerConfig, TopologyFilePlacesTheWorkers) {
  auto allowed = sched::allowed_cpus();
  if (allowed.size() < 2) GTEST_SKIP() << "needs 2 allowed CPUs";
  Config c;
  c.workers = 1;
  c.placement = "POWER";
  c.topology_file = write_topology_file("weft_power.topo", allowed[0], allowed[1]);
  Runtime rt(c);
  EXPECT_EQ(rt.worker_cpus(), (std::vector<int>{allowed[1]}));
  auto cpu_of_worker = [&](int w) {
    return rt.spawn_on(w, [] {
               cpu_set_t set;
               CPU_ZERO(&set);
               sched_getaffinity(0, sizeof set, &set);
               return CPU_COUNT(&set) == 1 && CPU_ISSET(sched_getcpu(), &set) ? sched_getcpu() : -1;
             }).join();
  };
  EXPECT_EQ(cpu_of_worker(0), allowed[1]);
}

TEST(SchedulerConfig, BadTopologyFilesAreClearErrors) {
  Config c;
  c.workers = 1;
  c.topology_file = write_topology_file("weft_foreign.topo", 100000, 100001);
  expect_invalid(c, "OS CPU 100000");
  c.topology_file = ::testing::TempDir() + "weft_no_such_file.topo";
  try {
    Runtime rt(c);
    ADD_FAILURE() << "a missing topology file was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("weft_no_such_file.topo"), std::string::npos) << e.what();
  }
  const std::string bad = ::testing::TempDir() + "weft_bad.topo";
  std::ofstream(bad) << "weft-topology 1\ndescription bad\nsource measured\ncontexts two\n";
  c.topology_file = bad;
  try {
    Runtime rt(c);
    ADD_FAILURE() << "a malformed topology file was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("weft_bad.topo:4"), std::string::npos) << e.what();
  }
}

TEST(SchedulerConfig, OversubscriptionNeedsPinningOff) {
  Config c;
  c.workers = static_cast<int>(sched::allowed_cpus().size()) + 2;
  c.pin_workers = false;
  Runtime rt(c);
  EXPECT_EQ(rt.num_workers(), c.workers);
  EXPECT_EQ(rt.run([] { return this_ult::num_workers(); }), c.workers);
}

// New worker threads are created in parallel, each new one creating some
// of the rest (worker_threads.cpp): every worker still gets a thread of its
// own. Two runtimes alive at once: the second finds no idle pooled thread,
// so all of its threads are new, made by a tree of creators.
TEST(SchedulerStart, EveryWorkerGetsItsOwnThreadWhenManyAreCreated) {
  for (int workers : {3, 7, 13}) {
    Config c;
    c.workers = workers;
    c.pin_workers = false;
    Runtime first(c);
    Runtime second(c);
    for (Runtime* rt : {&first, &second}) {
      std::vector<Ult<std::thread::id>> tasks;
      for (int w = 0; w < workers; ++w)
        tasks.push_back(rt->spawn_on(w, [w] {
          EXPECT_EQ(this_ult::worker_index(), w);
          return std::this_thread::get_id();
        }));
      std::set<std::thread::id> threads;
      for (auto& t : tasks) threads.insert(t.join());
      EXPECT_EQ(threads.size(), static_cast<std::size_t>(workers)) << workers << " workers";
      EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
    }
  }
}

struct EnvVar {
  std::string name;
  EnvVar(std::string n, const char* value) : name(std::move(n)) { setenv(name.c_str(), value, 1); }
  ~EnvVar() { unsetenv(name.c_str()); }
};

TEST(SchedulerConfig, EnvironmentOverridesTheConfig) {
  {
    EnvVar w("WEFT_WORKERS", "1");
    EnvVar s("WEFT_STACK_SIZE", "128K");
    Runtime rt(two_workers());
    EXPECT_EQ(rt.num_workers(), 1);
    EXPECT_EQ(rt.config().stack_size, 128u * 1024);
  }
  for (auto [name, value] : {std::pair{"WEFT_WORKERS", "two"}, std::pair{"WEFT_WORKERS", "-3"},
                             std::pair{"WEFT_STACK_SIZE", "12Q"}, std::pair{"WEFT_PIN", "maybe"},
                             std::pair{"WEFT_CPUS", "0,,x"}, std::pair{"WEFT_IDLE_SPIN_US", ""}}) {
    EnvVar v(name, value);
    try {
      Runtime rt;
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

TEST(SchedulerShutdown, DeadlockedUltsAreReportedAndAbandoned) {
  testing::internal::CaptureStderr();
  {
    Runtime rt(two_workers());
#if defined(WEFT_ASAN)
    __lsan::ScopedDisabler abandoned_on_purpose;  // the blocked ULT's block is never freed
#endif
    rt.spawn([] { park(); }).detach();  // nothing will ever unpark it
  }
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("1 ULT(s) blocked"), std::string::npos) << err;
}

// The kernel threads of this process (/proc/self/task).
std::size_t process_threads() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// A runtime whose workers sleep lets go of them at shutdown instead of waking
// each and waiting for it to leave: their threads go back to the pool asleep,
// and the next runtime must get them (woken when it hands them a worker), not
// new ones. Losing them would add two threads a round; not waking them would
// hang the next round.
TEST(SchedulerShutdown, ThreadsOfWorkersLetGoInTheirSleepAreReused) {
  Config c;
  c.workers = 2;
  c.pin_workers = false;
  c.idle_spin_us = 0;  // asleep as soon as idle
  std::size_t after_first = 0;
  for (int round = 0; round < 20; ++round) {
    {
      Runtime rt(c);
      for (int w = 0; w < c.workers; ++w) EXPECT_EQ(rt.spawn_on(w, [] { return this_ult::worker_index(); }).join(), w);
      std::this_thread::sleep_for(std::chrono::milliseconds(3));  // both fall asleep
    }
    if (round == 0) after_first = process_threads();
  }
  // A worker still awake at shutdown leaves and gives its thread back after
  // ~Runtime returned, so now and then the next runtime makes a new one.
  EXPECT_LE(process_threads(), after_first + 6);
}

// Both orders of the process's exit and the topology loader's delay end the
// process cleanly: a short program exits while the loader's thread waits out
// its delay; one whose exit outlasts the delay (an atexit handler that
// sleeps) has the thread wake during the exit, where it must end without
// loading. Each in a fresh process, where the topology is not loaded yet.
TEST(SchedulerShutdown, TheProcessExitsWhileTheTopologyLoaderWaits) {
  if (sched::allowed_cpus().size() < 2) GTEST_SKIP() << "the loader serves pinned runtimes of 2 or more workers";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const int exit_sleep_ms : {0, 60}) {
    EXPECT_EXIT(
        {
          static int sleep_ms = exit_sleep_ms;
          std::atexit([] { std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms)); });
          Config c;
          c.workers = 2;
          Runtime rt(c);
          for (int w = 0; w < c.workers; ++w) rt.spawn_on(w, [] {}).join();
          std::exit(0);
        },
        ::testing::ExitedWithCode(0), "")
        << "exit lasting " << exit_sleep_ms << " ms";
  }
}

TEST(SchedulerShutdown, DetachedExceptionIsReported) {
  testing::internal::CaptureStderr();
  {
    Runtime rt(two_workers());
    rt.spawn([] { throw std::runtime_error("lost"); }).detach();
  }
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("lost"), std::string::npos) << err;
}

}  // namespace
}  // namespace weft::test
