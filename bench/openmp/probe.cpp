// weft-omp-probe: one OpenMP measurement in a fresh process, for
// `weft-bench openmp` (suite.cpp). An ordinary `g++ -fopenmp` program,
// linked against libgomp: the suite runs it as is (libgomp) and with
// LD_PRELOAD=libweft-omp.so (weft), so both runtimes run the same binary.
//
//   weft-omp-probe <case> [reps]      prints "<ns per operation>"
//
// The EPCC OpenMP microbenchmarks' method (J. M. Bull, "Measuring
// Synchronisation and Scheduling Overheads in OpenMP", EWOMP 1999;
// syncbench, schedbench, taskbench), reimplemented: a construct's
// overhead is (time of `inner` executions of the construct around a small
// delay) - (time of the same delays without it), per construct, the median
// of `reps` outer repetitions after one warm-up. The cases:
//   sync/parallel, sync/for, sync/parallel-for, sync/barrier, sync/single,
//   sync/critical, sync/lock, sync/ordered, sync/atomic, sync/reduction
//   sched/static, sched/static-8, sched/dynamic-1, sched/dynamic-8,
//   sched/guided-1, sched/guided-8   (128 iterations per thread per loop)
//   task/parallel-task, task/master-task, task/included, task/taskwait,
//   task/task-barrier, task/tree      (per task; included: overhead of an
//                                      undeferred task, if(0), per member)
//   nested/2-level, nested/3-level    (per outermost region: 2x2, 2x2x2 members)
//   app/fib, app/mergesort, app/tree  (ms per run: fib(27) with a task per
//                                      call; a task-parallel mergesort of
//                                      2^20 ints; a task per node of a
//                                      2^18-node binary tree)
//   app/teams                         (ms per run: `teams distribute` of
//                                      2^15 iterations of ~1 us, as many
//                                      teams as the runtime chooses)
//   one-cpu/<case>                    (<case> with the process bound to its
//                                      first allowed CPU and 2 threads: the
//                                      members share one CPU, as the kernel
//                                      may make them under load)
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

volatile double sink = 0;
int delay_length = 40;  // iterations of the delay loop (~0.1 us here)

void delay(int n) {
  double a = 0;
  for (int i = 0; i < n; ++i) a += i;
  if (a < 0) sink = a;
}

double now_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median over reps of (test() - reference()) / inner, one warm-up first.
double overhead(int reps, int inner, const std::function<void()>& test, const std::function<void()>& reference) {
  test();
  reference();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    double t0 = now_ns();
    reference();
    const double ref = now_ns() - t0;
    t0 = now_ns();
    test();
    t.push_back(std::max(0.0, (now_ns() - t0 - ref) / inner));
  }
  return median(t);
}

// Median over reps of f() in ns / ops (absolute times: tasks, applications).
double per_op(int reps, double ops, const std::function<void()>& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_ns();
    f();
    t.push_back((now_ns() - t0) / ops);
  }
  return median(t);
}

int nthreads() { return omp_get_max_threads(); }

// ---------------------------------------------------------------- syncbench

double sync_case(const std::string& c, int reps) {
  const int inner = 2000;
  const int n = nthreads();
  auto ref = [&] {
    for (int j = 0; j < inner; ++j) delay(delay_length);
  };
  if (c == "parallel")
    return overhead(reps, inner, [&] {
      for (int j = 0; j < inner; ++j) {
#pragma omp parallel
        delay(delay_length);
      }
    }, ref);
  if (c == "for")
    return overhead(reps, inner, [&] {
#pragma omp parallel
      for (int j = 0; j < inner; ++j) {
#pragma omp for
        for (int i = 0; i < n; ++i) delay(delay_length);
      }
    }, ref);
  if (c == "parallel-for")
    return overhead(reps, inner, [&] {
      for (int j = 0; j < inner; ++j) {
#pragma omp parallel for
        for (int i = 0; i < n; ++i) delay(delay_length);
      }
    }, ref);
  if (c == "barrier")
    return overhead(reps, inner, [&] {
#pragma omp parallel
      for (int j = 0; j < inner; ++j) {
        delay(delay_length);
#pragma omp barrier
      }
    }, ref);
  if (c == "single")
    return overhead(reps, inner, [&] {
#pragma omp parallel
      for (int j = 0; j < inner; ++j) {
#pragma omp single
        delay(delay_length);
      }
    }, ref);
  if (c == "critical")
    return overhead(reps, inner, [&] {
#pragma omp parallel
      for (int j = 0; j < inner / n; ++j) {
#pragma omp critical
        delay(delay_length);
      }
    }, ref);
  if (c == "lock") {
    omp_lock_t lock;
    omp_init_lock(&lock);
    const double r = overhead(reps, inner, [&] {
#pragma omp parallel
      for (int j = 0; j < inner / n; ++j) {
        omp_set_lock(&lock);
        delay(delay_length);
        omp_unset_lock(&lock);
      }
    }, ref);
    omp_destroy_lock(&lock);
    return r;
  }
  if (c == "ordered")
    return overhead(reps, inner, [&] {
#pragma omp parallel for ordered schedule(static, 1)
      for (int j = 0; j < inner; ++j) {
#pragma omp ordered
        delay(delay_length);
      }
    }, ref);
  if (c == "atomic") {
    double a = 0;
    const double r = overhead(reps, inner, [&] {
#pragma omp parallel
      for (int j = 0; j < inner / n; ++j) {
        delay(delay_length);
#pragma omp atomic
        a += 1;
      }
    }, [&] {
      for (int j = 0; j < inner / n; ++j) delay(delay_length);
    });
    sink = a;
    return r;
  }
  if (c == "reduction") {
    int a = 0;
    const double r = overhead(reps, inner, [&] {
      for (int j = 0; j < inner; ++j) {
#pragma omp parallel reduction(+ : a)
        {
          delay(delay_length);
          a += 1;
        }
      }
    }, ref);
    sink = a;
    return r;
  }
  return -1;
}

// ---------------------------------------------------------------- schedbench

double sched_case(const std::string& c, int reps) {
  const int inner = 200, per_thread = 128;
  const int n = nthreads(), iters = per_thread * n;
  auto ref = [&] {
    for (int j = 0; j < inner; ++j)
      for (int i = 0; i < per_thread; ++i) delay(delay_length);
  };
  auto run = [&](auto body) {
    return overhead(reps, inner, [&] {
#pragma omp parallel
      for (int j = 0; j < inner; ++j) body();
    }, ref);
  };
  if (c == "static") return run([&] {
#pragma omp for schedule(static)
      for (int i = 0; i < iters; ++i) delay(delay_length);
    });
  if (c == "static-8") return run([&] {
#pragma omp for schedule(static, 8)
      for (int i = 0; i < iters; ++i) delay(delay_length);
    });
  if (c == "dynamic-1") return run([&] {
#pragma omp for schedule(dynamic, 1)
      for (int i = 0; i < iters; ++i) delay(delay_length);
    });
  if (c == "dynamic-8") return run([&] {
#pragma omp for schedule(dynamic, 8)
      for (int i = 0; i < iters; ++i) delay(delay_length);
    });
  if (c == "guided-1") return run([&] {
#pragma omp for schedule(guided, 1)
      for (int i = 0; i < iters; ++i) delay(delay_length);
    });
  if (c == "guided-8") return run([&] {
#pragma omp for schedule(guided, 8)
      for (int i = 0; i < iters; ++i) delay(delay_length);
    });
  return -1;
}

// ---------------------------------------------------------------- taskbench

long tree(int depth) {
  if (depth == 0) {
    delay(delay_length);
    return 1;
  }
  long a = 0, b = 0;
#pragma omp task shared(a)
  a = tree(depth - 1);
#pragma omp task shared(b)
  b = tree(depth - 1);
#pragma omp taskwait
  return a + b;
}

double task_case(const std::string& c, int reps) {
  const int inner = 8192;
  const int n = nthreads();
  if (c == "parallel-task")
    return per_op(reps, inner, [&] {
#pragma omp parallel
      for (int j = 0; j < inner / n; ++j) {
#pragma omp task
        delay(delay_length);
      }
    });
  if (c == "master-task")
    return per_op(reps, inner, [&] {
#pragma omp parallel
#pragma omp master
      for (int j = 0; j < inner; ++j) {
#pragma omp task
        delay(delay_length);
      }
    });
  if (c == "included")  // the cost of an undeferred task around the delay, per member
    return overhead(reps, inner / n, [&] {
#pragma omp parallel
      for (int j = 0; j < inner / n; ++j) {
#pragma omp task if (0)
        delay(delay_length);
      }
    }, [&] {
      for (int j = 0; j < inner / n; ++j) delay(delay_length);
    });
  if (c == "taskwait")
    return per_op(reps, inner, [&] {
#pragma omp parallel
      for (int j = 0; j < inner / n; ++j) {
#pragma omp task
        delay(delay_length);
#pragma omp taskwait
      }
    });
  if (c == "task-barrier")
    return per_op(reps, inner / 8, [&] {
#pragma omp parallel
      for (int j = 0; j < inner / 8 / n; ++j) {
#pragma omp task
        delay(delay_length);
#pragma omp barrier
      }
    });
  if (c == "tree")
    return per_op(reps, 2.0 * (1 << 13), [&] {
      long r = 0;
#pragma omp parallel
#pragma omp single
      r = tree(13);
      if (r != 1 << 13) std::abort();
    });
  return -1;
}

// ---------------------------------------------------------------- nested

double nested_case(const std::string& c, int reps) {
  omp_set_max_active_levels(3);
  const int inner = 500;
  auto ref = [&] {
    for (int j = 0; j < inner; ++j) delay(delay_length);
  };
  if (c == "2-level")
    return overhead(reps, inner, [&] {
      for (int j = 0; j < inner; ++j) {
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
        delay(delay_length);
      }
    }, ref);
  if (c == "3-level")
    return overhead(reps, inner, [&] {
      for (int j = 0; j < inner; ++j) {
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
        delay(delay_length);
      }
    }, ref);
  return -1;
}

// ---------------------------------------------------------------- applications

long fib(int k) {
  if (k < 2) return k;
  long a = 0, b = 0;
#pragma omp task shared(a)
  a = fib(k - 1);
  b = fib(k - 2);
#pragma omp taskwait
  return a + b;
}

void merge_sort(int* a, int* tmp, long n) {
  if (n < 64) {
    std::sort(a, a + n);
    return;
  }
  const long h = n / 2;
#pragma omp task
  merge_sort(a, tmp, h);
  merge_sort(a + h, tmp + h, n - h);
#pragma omp taskwait
  std::merge(a, a + h, a + h, a + n, tmp);
  std::memcpy(a, tmp, static_cast<std::size_t>(n) * sizeof(int));
}

struct Node {
  Node* left = nullptr;
  Node* right = nullptr;
  long value = 0;
};

long sum_tree(const Node* t) {
  if (!t) return 0;
  long a = 0;
#pragma omp task shared(a)
  a = sum_tree(t->left);
  const long b = sum_tree(t->right);
#pragma omp taskwait
  return a + b + t->value;
}

Node* build(std::vector<Node>& pool, std::size_t& next, int depth) {
  if (depth == 0) return nullptr;
  Node* t = &pool[next++];
  t->value = static_cast<long>(next % 7);
  t->left = build(pool, next, depth - 1);
  t->right = build(pool, next, depth - 1);
  return t;
}

double app_case(const std::string& c, int reps) {
  if (c == "fib")
    return per_op(reps, 1e6, [] {
      long r = 0;
#pragma omp parallel
#pragma omp single
      r = fib(27);
      if (r != 196418) std::abort();
    });
  if (c == "mergesort") {
    const long n = 1 << 20;
    std::vector<int> data(static_cast<std::size_t>(n)), tmp(static_cast<std::size_t>(n));
    return per_op(reps, 1e6, [&] {
      unsigned x = 12345;
      for (auto& v : data) v = static_cast<int>(x = x * 1103515245u + 12345u);
#pragma omp parallel
#pragma omp single
      merge_sort(data.data(), tmp.data(), n);
      if (!std::is_sorted(data.begin(), data.end())) std::abort();
    });
  }
  if (c == "teams") {
    const int count = 1 << 15;
    return per_op(reps, 1e6, [] {
      long sum = 0;
#pragma omp teams distribute reduction(+ : sum)
      for (int i = 0; i < count; ++i) {
        delay(10 * delay_length);
        sum += i;
      }
      if (sum != static_cast<long>(count) * (count - 1) / 2) std::abort();
    });
  }
  if (c == "tree") {
    const int depth = 18;
    std::vector<Node> pool(static_cast<std::size_t>(1) << depth);
    std::size_t next = 0;
    Node* root = build(pool, next, depth);
    long want = 0;
    for (std::size_t i = 0; i < next; ++i) want += pool[i].value;
    return per_op(reps, 1e6, [&] {
      long r = 0;
#pragma omp parallel
#pragma omp single
      r = sum_tree(root);
      if (r != want) std::abort();
    });
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: weft-omp-probe <group/case> [reps]\n");
    return 2;
  }
  std::string name = argv[1];
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (name.rfind("one-cpu/", 0) == 0) {
    // Bound before either runtime reads the CPUs: bind, then run again.
    if (!std::getenv("WEFT_OMP_PROBE_ONE_CPU")) {
      cpu_set_t allowed, one;
      CPU_ZERO(&one);
      if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 2;
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &allowed)) {
          CPU_SET(c, &one);
          break;
        }
      if (sched_setaffinity(0, sizeof one, &one) != 0) return 2;
      setenv("WEFT_OMP_PROBE_ONE_CPU", "1", 1);
      setenv("OMP_NUM_THREADS", "2", 1);
      execv("/proc/self/exe", argv);
      std::perror("weft-omp-probe: execv");
      return 2;
    }
    name = name.substr(8);
  }
  if (const char* d = std::getenv("WEFT_OMP_PROBE_DELAY")) delay_length = std::atoi(d);
  const std::size_t slash = name.find('/');
  const std::string group = name.substr(0, slash), c = slash == std::string::npos ? "" : name.substr(slash + 1);
  double r = -1;
  if (group == "sync") r = sync_case(c, reps);
  else if (group == "sched") r = sched_case(c, reps);
  else if (group == "task") r = task_case(c, reps);
  else if (group == "nested") r = nested_case(c, reps);
  else if (group == "app") r = app_case(c, reps);
  if (r < 0) {
    std::fprintf(stderr, "weft-omp-probe: unknown case '%s'\n", name.c_str());
    return 2;
  }
  std::printf("%.3f\n", r);
  return 0;
}
