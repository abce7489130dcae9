// Worksharing loops: every schedule (static, dynamic, guided, runtime,
// auto, nonmonotonic) on int, long and unsigned long long loops, upward and
// downward, near the ends of the types' ranges, empty, collapsed, nowait
// (more loops in flight than there are worksharing slots), combined
// `parallel for`, lastprivate, ordered, and ordered(n) with depend(sink)
// and depend(source).
#include <sched.h>

#include <climits>
#include <atomic>
#include <vector>

#include "check.hpp"

namespace {

constexpr int kN = 1000;

// Runs `loop(hits)` and checks that every iteration hit exactly once.
template <class Loop>
void coverage(const char* what, int n, Loop loop) {
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
  loop(hits);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += hits[static_cast<std::size_t>(i)] != 1;
  CHECK(wrong == 0, "%s: %d of %d iterations not run exactly once", what, wrong, n);
}

using Hits = std::vector<std::atomic<int>>;

// Work the compiler cannot drop: makes some iterations slower than others.
void burn(int n) {
  for (int k = 0; k < n; ++k) asm volatile("" ::: "memory");
}

}  // namespace

int main() {
  omptest::start("loop_test");
  coverage("static", kN, [](Hits& h) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < kN; ++i) h[i]++;
  });
  coverage("static,7", kN, [](Hits& h) {
#pragma omp parallel for schedule(static, 7)
    for (int i = 0; i < kN; ++i) h[i]++;
  });
  coverage("dynamic", kN, [](Hits& h) {
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < kN; ++i) h[i]++;
  });
  coverage("dynamic,13", kN, [](Hits& h) {
#pragma omp parallel for schedule(dynamic, 13)
    for (int i = 0; i < kN; ++i) h[i]++;
  });
  coverage("guided", kN, [](Hits& h) {
#pragma omp parallel for schedule(guided)
    for (int i = 0; i < kN; ++i) h[i]++;
  });
  coverage("guided,9", kN, [](Hits& h) {
#pragma omp parallel for schedule(guided, 9)
    for (int i = 0; i < kN; ++i) h[i]++;
  });
  coverage("auto", kN, [](Hits& h) {
#pragma omp parallel for schedule(auto)
    for (int i = 0; i < kN; ++i) h[i]++;
  });
  coverage("nonmonotonic:dynamic,4", kN, [](Hits& h) {
#pragma omp parallel for schedule(nonmonotonic : dynamic, 4)
    for (int i = 0; i < kN; ++i) h[i]++;
  });
  coverage("monotonic:guided", kN, [](Hits& h) {
#pragma omp parallel for schedule(monotonic : guided)
    for (int i = 0; i < kN; ++i) h[i]++;
  });
  for (omp_sched_t kind : {omp_sched_static, omp_sched_dynamic, omp_sched_guided, omp_sched_auto}) {
    for (int chunk : {0, 1, 5}) {
      omp_set_schedule(kind, chunk);
      omp_sched_t k;
      int c;
      omp_get_schedule(&k, &c);
      CHECK(k == kind, "omp_get_schedule kind %d after setting %d", static_cast<int>(k), static_cast<int>(kind));
      coverage("runtime", kN, [](Hits& h) {
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < kN; ++i) h[i]++;
      });
    }
  }
  // Orphaned loops inside a region, not combined, with nowait: more loops in
  // flight than a team keeps slots for.
  coverage("20 nowait loops", 20 * 100, [](Hits& h) {
#pragma omp parallel num_threads(3)
    {
      for (int l = 0; l < 20; ++l) {
#pragma omp for schedule(dynamic, 3) nowait
        for (int i = 0; i < 100; ++i) h[l * 100 + i]++;
      }
#pragma omp barrier
    }
  });
  // long, downward, step -3; unsigned long long; near the types' limits.
  coverage("long downward step -3", 400, [](Hits& h) {
#pragma omp parallel for schedule(dynamic, 2)
    for (long i = 1199; i >= 0; i -= 3) h[static_cast<std::size_t>(i / 3)]++;
  });
  coverage("unsigned long long", 300, [](Hits& h) {
#pragma omp parallel for schedule(guided)
    for (unsigned long long i = 0; i < 300ull; ++i) h[static_cast<std::size_t>(i)]++;
  });
  coverage("unsigned long long downward", 300, [](Hits& h) {
#pragma omp parallel for schedule(static, 4)
    for (unsigned long long i = 300; i > 0; --i) h[static_cast<std::size_t>(i - 1)]++;
  });
  coverage("long near LONG_MAX", 100, [](Hits& h) {
#pragma omp parallel for schedule(dynamic, 7)
    for (long i = LONG_MAX - 100; i < LONG_MAX; ++i) h[static_cast<std::size_t>(i - (LONG_MAX - 100))]++;
  });
  coverage("unsigned long long near the top", 64, [](Hits& h) {
#pragma omp parallel for schedule(dynamic, 5)
    for (unsigned long long i = ~0ull - 64; i < ~0ull; ++i) h[static_cast<std::size_t>(i - (~0ull - 64))]++;
  });
  coverage("long near LONG_MIN", 100, [](Hits& h) {
#pragma omp parallel for schedule(guided, 3)
    for (long i = LONG_MIN + 100; i > LONG_MIN; --i) h[static_cast<std::size_t>(i - LONG_MIN - 1)]++;
  });
  // Values above LONG_MAX: GOMP's unsigned long long entry points.
  coverage("unsigned long long above LONG_MAX, dynamic", 100, [](Hits& h) {
    const unsigned long long base = 1ull << 63;
#pragma omp parallel for schedule(dynamic, 3)
    for (unsigned long long i = base; i < base + 100; ++i) h[static_cast<std::size_t>(i - base)]++;
  });
  coverage("unsigned long long above LONG_MAX, runtime, downward", 100, [](Hits& h) {
    const unsigned long long base = 1ull << 63;
#pragma omp parallel
#pragma omp for schedule(runtime)
    for (unsigned long long i = base + 99; i >= base; --i) h[static_cast<std::size_t>(i - base)]++;
  });
  coverage("unsigned long long above LONG_MAX, ordered guided", 100, [](Hits& h) {
    const unsigned long long base = 1ull << 63;
    unsigned long long expected = base;
    bool in_order = true;
#pragma omp parallel for ordered schedule(guided, 2)
    for (unsigned long long i = base; i < base + 100; ++i) {
      h[static_cast<std::size_t>(i - base)]++;
#pragma omp ordered
      {
        in_order = in_order && i == expected;
        ++expected;
      }
    }
    CHECK(in_order, "unsigned long long ordered loop out of order");
  });
  // Empty loops under every schedule.
  {
    int ran = 0;
    const int zero = omp_get_max_threads() - omp_get_max_threads();
#pragma omp parallel reduction(+ : ran)
    {
#pragma omp for schedule(static)
      for (int i = 0; i < zero; ++i) ++ran;
#pragma omp for schedule(dynamic)
      for (int i = 0; i < zero; ++i) ++ran;
#pragma omp for schedule(guided)
      for (int i = 5; i < zero; ++i) ++ran;
#pragma omp for schedule(runtime)
      for (long i = 0; i > zero; --i) ++ran;
    }
    CHECK(ran == 0, "empty loops ran %d iterations", ran);
  }
  // collapse(2) and collapse(3) (GOMP's unsigned long long loops when the
  // product may overflow long).
  coverage("collapse(2)", 7 * 13, [](Hits& h) {
#pragma omp parallel for collapse(2) schedule(dynamic, 5)
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 13; ++j) h[i * 13 + j]++;
  });
  coverage("collapse(3) unsigned", 4 * 5 * 6, [](Hits& h) {
#pragma omp parallel for collapse(3) schedule(guided)
    for (unsigned long long i = 0; i < 4; ++i)
      for (unsigned long long j = 0; j < 5; ++j)
        for (unsigned long long k = 0; k < 6; ++k) h[static_cast<std::size_t>(i * 30 + j * 6 + k)]++;
  });
  // Uneven iterations (the first member's block slow, every member's own
  // range of chunks is stolen from, on weft: nonmonotonic:dynamic steals),
  // many times over: each iteration once, and lastprivate still the last.
  for (int round = 0; round < 20; ++round) {
    coverage("dynamic,1 uneven", kN, [](Hits& h) {
#pragma omp parallel for schedule(nonmonotonic : dynamic, 1)
      for (int i = 0; i < kN; ++i) {
        if (i < kN / 4) burn(2000);
        h[i]++;
      }
    });
    int last = -1;
#pragma omp parallel for schedule(dynamic, 1) lastprivate(last)
    for (int i = 0; i < kN; ++i) {
      if (i % 97 == 0) burn(5000);
      last = i;
    }
    CHECK(last == kN - 1, "dynamic,1 uneven lastprivate %d", last);
  }
  // A member does not leave a dynamic loop while iterations are left: the
  // member that runs iteration 0 waits there until another member has run one
  // of iterations 1..31 (the rest of its block, on weft) or every other member
  // has left the loop; the check is that one ran them. weft's stealing loop
  // used to stop a member once it had taken the loop's final chunk, which was
  // at the back of the last member's block: that member left without
  // stealing, and the first member ran its whole block alone.
  {
    constexpr int n = 64, block = 32;
    std::vector<std::atomic<int>> runner(n);
    for (auto& r : runner) r = -1;
    std::atomic<int> left{0};
#pragma omp parallel num_threads(2)
    {
      const int me = omp_get_thread_num();
#pragma omp for schedule(dynamic) nowait
      for (int i = 0; i < n; ++i) {
        runner[i] = me;
        if (i == 0) {
          auto helped = [&] {
            for (int j = 1; j < block; ++j)
              if (const int r = runner[j]; r != -1 && r != me) return true;
            return false;
          };
          while (!helped() && left.load() < omp_get_num_threads() - 1) sched_yield();
        }
      }
      left.fetch_add(1);
    }
    int by_others = 0;
    for (int j = 1; j < block; ++j) by_others += runner[j] != runner[0];
    CHECK(by_others > 0, "dynamic: a member left the loop while iterations 1..%d waited for the member "
          "stuck in iteration 0", block - 1);
  }
  // lastprivate: the value of the sequentially last iteration.
  {
    int last = -1;
#pragma omp parallel for schedule(dynamic, 3) lastprivate(last)
    for (int i = 0; i < kN; ++i) last = i * 2;
    CHECK(last == 2 * (kN - 1), "lastprivate %d", last);
  }
  // ordered: the ordered regions run in iteration order under every schedule.
  {
    const char* names[] = {"static", "static,3", "dynamic", "dynamic,4", "guided"};
    for (int s = 0; s < 5; ++s) {
      std::vector<int> order;
      order.reserve(kN);
      auto body = [&](int i) {
#pragma omp ordered
        order.push_back(i);
      };
      switch (s) {
        case 0:
#pragma omp parallel for ordered schedule(static)
          for (int i = 0; i < kN; ++i) body(i);
          break;
        case 1:
#pragma omp parallel for ordered schedule(static, 3)
          for (int i = 0; i < kN; ++i) body(i);
          break;
        case 2:
#pragma omp parallel for ordered schedule(dynamic)
          for (int i = 0; i < kN; ++i) body(i);
          break;
        case 3:
#pragma omp parallel for ordered schedule(dynamic, 4)
          for (int i = 0; i < kN; ++i) body(i);
          break;
        default:
#pragma omp parallel for ordered schedule(guided)
          for (int i = 0; i < kN; ++i) body(i);
          break;
      }
      bool in_order = static_cast<int>(order.size()) == kN;
      for (int i = 0; in_order && i < kN; ++i) in_order = order[static_cast<std::size_t>(i)] == i;
      CHECK(in_order, "ordered %s: regions out of order", names[s]);
    }
  }
  // ordered(1) with depend(sink: i-1): a chain through the whole loop.
  {
    std::vector<long> a(kN, 0);
    a[0] = 1;
#pragma omp parallel for ordered(1) schedule(dynamic, 3)
    for (int i = 1; i < kN; ++i) {
#pragma omp ordered depend(sink : i - 1)
      a[i] = a[i - 1] + 1;
#pragma omp ordered depend(source)
    }
    CHECK(a[kN - 1] == kN, "ordered(1) chain ends at %ld", a[kN - 1]);
  }
  // ordered(2): a wavefront, each cell after its upper and left neighbours.
  {
    const int n = 40, m = 30;
    // Unsigned: the values outgrow 64 bits (C(70, 40)); the check holds modulo 2^64.
    std::vector<unsigned long> g(static_cast<std::size_t>(n * m), 0);
#pragma omp parallel for ordered(2) schedule(static, 1)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
        g[i * m + j] = (i ? g[(i - 1) * m + j] : 0ul) + (j ? g[i * m + j - 1] : 0ul) + 1;
#pragma omp ordered depend(source)
      }
    // g[i][j] = C(i+j+2, i+1) - 1 for this recurrence; check the corner cells' relation instead.
    bool ok = true;
    for (int i = 1; i < n && ok; ++i)
      for (int j = 1; j < m && ok; ++j) ok = g[i * m + j] == g[(i - 1) * m + j] + g[i * m + j - 1] + 1;
    CHECK(ok && g[0] == 1, "ordered(2) wavefront inconsistent");
  }
  // ordered(17): more dimensions than fit the library's iteration vector on
  // the stack (and than its old limit, 16). Each cell waits for the same cell
  // of the previous outer iteration; the inner dimensions of one extent are
  // still passed and checked.
  {
    long cell[6][2][2][2] = {};
#pragma omp parallel for ordered(17) schedule(static, 1)
    for (int i0 = 0; i0 < 6; ++i0)
    for (int i1 = 0; i1 < 2; ++i1)
    for (int i2 = 0; i2 < 2; ++i2)
    for (int i3 = 0; i3 < 2; ++i3)
    for (int i4 = 0; i4 < 1; ++i4)
    for (int i5 = 0; i5 < 1; ++i5)
    for (int i6 = 0; i6 < 1; ++i6)
    for (int i7 = 0; i7 < 1; ++i7)
    for (int i8 = 0; i8 < 1; ++i8)
    for (int i9 = 0; i9 < 1; ++i9)
    for (int i10 = 0; i10 < 1; ++i10)
    for (int i11 = 0; i11 < 1; ++i11)
    for (int i12 = 0; i12 < 1; ++i12)
    for (int i13 = 0; i13 < 1; ++i13)
    for (int i14 = 0; i14 < 1; ++i14)
    for (int i15 = 0; i15 < 1; ++i15)
    for (int i16 = 0; i16 < 1; ++i16)
    {
#pragma omp ordered depend(sink : i0 - 1, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15, i16)
      cell[i0][i1][i2][i3] = (i0 ? cell[i0 - 1][i1][i2][i3] : 0) + 1 + (i4 + i5 + i6 + i7 + i8 + i9 + i10 + i11 + i12 + i13 + i14 + i15 + i16);
#pragma omp ordered depend(source)
    }
    bool ok = true;
    for (int a = 0; a < 6; ++a)
      for (int b = 0; b < 8; ++b) ok = ok && cell[a][b / 4][b / 2 % 2][b % 2] == a + 1;
    CHECK(ok, "ordered(17): a cell ran before the one it depends on");
  }
  return omptest::finish("loop_test");
}
