// Target constructs on a host without offload devices: every target region
// runs on the host (both runtimes: no offload plugin is installed, and the
// test is built with -foffload=disable). Checked: mapped data written back,
// firstprivate and scalar data left alone, the region as a new initial
// thread (level 0, team of one, on the initial device) even inside a
// parallel region, `target teams distribute parallel for`, the teams of a
// target region (each once), thread_limit, the data constructs, a depend
// clause ordering a target region after a task, omp_target_memcpy and
// omp_target_memcpy_rect, and the device queries. With argv[1] =
// "mandatory" (run with OMP_TARGET_OFFLOAD=MANDATORY) a target region must
// stop the program.
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "check.hpp"

namespace {

void maps_and_firstprivate() {
  int a[100];
  for (int i = 0; i < 100; ++i) a[i] = i;
  int scalar = 5, fp = 7;
  double sum = 0;
#pragma omp target map(tofrom : a, sum) firstprivate(fp)
  {
    for (int i = 0; i < 100; ++i) {
      sum += a[i];
      a[i] *= 2;
    }
    scalar = 6;  // firstprivate by default: the host's copy keeps 5
    fp = 8;
  }
  CHECK(sum == 4950.0, "target: sum %g, not 4950", sum);
  CHECK(a[99] == 198, "target: a[99] = %d after map(tofrom), not 198", a[99]);
  CHECK(scalar == 5 && fp == 7, "target changed the host's firstprivate copies (%d, %d)", scalar, fp);

  struct Big {
    long v[40];
  } big{};
  big.v[39] = 1;
#pragma omp target firstprivate(big) map(from : sum)
  {
    big.v[39] = 2;
    sum = static_cast<double>(big.v[39]);
  }
  CHECK(big.v[39] == 1 && sum == 2.0, "a 320-byte firstprivate: host %ld, inside %g", big.v[39], sum);
}

void region_is_an_initial_thread() {
  int level = -1, threads = -1, initial = -1, devices = -1;
#pragma omp target map(from : level, threads, initial, devices)
  {
    level = omp_get_level();
    threads = omp_get_num_threads();
    initial = omp_is_initial_device();
    devices = omp_get_num_devices();
  }
  CHECK(level == 0 && threads == 1 && initial == 1 && devices == 0,
        "target region: level %d, %d threads, initial device %d, %d devices", level, threads, initial, devices);
  std::atomic<int> wrong{0};
#pragma omp parallel num_threads(3)
  {
    int inner_level = -1;
#pragma omp target map(from : inner_level)
    inner_level = omp_get_level();
    if (inner_level != 0) wrong++;
  }
  CHECK(wrong == 0, "%d target regions inside a parallel region were not at level 0", wrong.load());
}

void teams_and_loops() {
  const int n = 10000;
  std::vector<double> x(n, 1.0);
  double* px = x.data();
  double sum = 0;
#pragma omp target teams distribute parallel for map(to : px[0 : n]) reduction(+ : sum)
  for (int i = 0; i < n; ++i) sum += px[i];
  CHECK(sum == n, "target teams distribute parallel for: sum %g, not %d", sum, n);

  int ran[4] = {0, 0, 0, 0};
  int num_teams = -1;
#pragma omp target teams num_teams(4) map(tofrom : ran, num_teams)
  {
    ran[omp_get_team_num() % 4]++;
    if (omp_get_team_num() == 0) num_teams = omp_get_num_teams();
  }
  CHECK(num_teams == 4, "target teams num_teams(4): %d teams", num_teams);
  for (int k = 0; k < 4; ++k) CHECK(ran[k] == 1, "target teams: team %d ran %d times", k, ran[k]);

  int limit = -1, in_parallel = -1;
#pragma omp target thread_limit(2) map(from : limit, in_parallel)
  {
    limit = omp_get_thread_limit();
#pragma omp parallel num_threads(8)
    if (omp_get_thread_num() == 0) in_parallel = omp_get_num_threads();
  }
  CHECK(limit == 2 && in_parallel <= 2, "thread_limit(2): limit %d, a parallel region of %d", limit, in_parallel);
}

void data_constructs_and_depend() {
  int v[16];
  for (int& e : v) e = 1;
#pragma omp target data map(tofrom : v)
  {
#pragma omp target update to(v)
#pragma omp target map(tofrom : v)
    v[0] = 2;
#pragma omp target update from(v)
  }
#pragma omp target enter data map(to : v)
#pragma omp target exit data map(from : v)
  CHECK(v[0] == 2 && v[15] == 1, "data constructs: v[0] %d, v[15] %d", v[0], v[15]);

  int x = 0, seen = -1;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task depend(out : x) shared(x)
    {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      x = 42;
    }
#pragma omp target nowait depend(in : x) map(to : x) map(from : seen)
    seen = x;
#pragma omp taskwait
  }
  CHECK(seen == 42, "target depend(in: x) ran before the task that writes x (saw %d)", seen);
}

void device_memory() {
  const int initial = omp_get_initial_device();
  CHECK(initial == omp_get_num_devices(), "the initial device is %d, not %d", initial, omp_get_num_devices());
  char src[64], dst[64] = {};
  for (int i = 0; i < 64; ++i) src[i] = static_cast<char>(i);
  CHECK(omp_target_memcpy(dst, src, 16, 8, 4, initial, initial) == 0 && dst[8] == 4 && dst[23] == 19,
        "omp_target_memcpy on the host");
  // A 2x3 block of a 4x5 matrix of ints, from (1, 1) to (0, 2) of a 3x6 one.
  int m[4][5], out[3][6] = {};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 5; ++c) m[r][c] = 10 * r + c;
  const std::size_t volume[] = {2, 3}, dst_off[] = {0, 2}, src_off[] = {1, 1}, dst_dims[] = {3, 6},
                    src_dims[] = {4, 5};
  const int rc = omp_target_memcpy_rect(out, m, sizeof(int), 2, volume, dst_off, src_off, dst_dims, src_dims,
                                        initial, initial);
  CHECK(rc == 0 && out[0][2] == 11 && out[0][4] == 13 && out[1][2] == 21 && out[1][4] == 23 && out[0][1] == 0 &&
            out[2][2] == 0,
        "omp_target_memcpy_rect: rc %d, out[0][2..4] %d %d %d, out[1][2..4] %d %d %d", rc, out[0][2], out[0][3],
        out[0][4], out[1][2], out[1][3], out[1][4]);
  CHECK(omp_target_memcpy_rect(nullptr, nullptr, 0, 0, nullptr, nullptr, nullptr, nullptr, nullptr, initial,
                               initial) > 2,
        "omp_target_memcpy_rect does not say how many dimensions it copies");
  void* p = omp_target_alloc(128, initial);
  CHECK(p != nullptr && omp_target_is_present(p, initial), "omp_target_alloc on the initial device");
  omp_target_free(p, initial);
  CHECK(omp_target_associate_ptr(src, dst, 8, 0, initial) != 0, "associating host memory with the host succeeded");
}

}  // namespace

int main(int argc, char** argv) {
  omptest::start("target_test");
  if (argc > 1 && std::strcmp(argv[1], "mandatory") == 0) {
    int x = 0;
#pragma omp target map(tofrom : x)
    x = 1;
    std::printf("ran target under OMP_TARGET_OFFLOAD=MANDATORY: x=%d\n", x);
    return 0;
  }
  // First: a later team may have to retire docked members first, which can
  // wait for the task and hide a target region that ignores its depend.
  data_constructs_and_depend();
  maps_and_firstprivate();
  region_is_an_initial_thread();
  teams_and_loops();
  device_memory();
  return omptest::finish("target_test");
}
