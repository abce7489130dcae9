// The ICVs as the environment set them: prints them on one line for the
// suite's regular expressions (tests/openmp/CMakeLists.txt runs this under
// several environments, and under malformed ones to check the error). With
// an argument, also checks that a member can use a stack that size (KiB).
#include <cstring>

#include "check.hpp"

namespace {
int touch_stack(int kib) {
  volatile char big[1];
  char* block = static_cast<char*>(__builtin_alloca(static_cast<std::size_t>(kib) * 1024));
  std::memset(block, 1, static_cast<std::size_t>(kib) * 1024);
  big[0] = block[kib * 1024 - 1];
  return big[0];
}
}  // namespace

int main(int argc, char** argv) {
  omptest::start("icv_test");
  omp_sched_t kind;
  int chunk;
  omp_get_schedule(&kind, &chunk);
  int team = 0, inner = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
#pragma omp parallel
#pragma omp single
    if (omp_get_ancestor_thread_num(1) == 0) inner = omp_get_num_threads();
  }
  std::printf(
      "max_threads=%d dynamic=%d nested=%d max_active_levels=%d schedule=%d,%d monotonic=%d thread_limit=%d "
      "proc_bind=%d cancellation=%d max_task_priority=%d default_device=%d team=%d inner=%d\n",
      omp_get_max_threads(), omp_get_dynamic(), omp_get_nested(), omp_get_max_active_levels(),
      static_cast<int>(kind) & 0x7fffffff, chunk, (static_cast<unsigned>(kind) & 0x80000000u) != 0,
      omp_get_thread_limit(), static_cast<int>(omp_get_proc_bind()), omp_get_cancellation(),
      omp_get_max_task_priority(), omp_get_default_device(), team, inner);
  if (argc > 1) {
    const int kib = std::atoi(argv[1]);
    int touched = 0;
#pragma omp parallel num_threads(2) reduction(+ : touched)
    touched += touch_stack(kib);
    std::printf("stack of %d KiB used by every member: %d\n", kib, touched == 2);
  }
  return 0;
}
