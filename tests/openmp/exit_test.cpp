// exit() from inside a parallel region, on member `argv[1]` (0: the initial
// thread), while the other member waits at a barrier: the process ends with
// the status given, running its exit handlers, as under libgomp. (weft's
// library hung here: the initial thread's thread-local objects, destroyed in
// exit(), retired the team's members, which were still in the region.)
#include <omp.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const int exiting = argc > 1 ? std::atoi(argv[1]) : 0;
  std::atexit([] { std::printf("exit handlers ran\n"); });
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == exiting) {
      std::printf("member %d calls exit\n", exiting);
      std::fflush(stdout);
      std::exit(3);
    }
#pragma omp barrier
  }
  std::printf("FAIL: the region ended\n");
  return 0;
}
