// A job in which one rank fails while the others wait for it in weft::mpi
// (tests/mpi/CMakeLists.txt runs it under mpirun with a time limit and
// checks mpirun's report): rank 1 fails, every other rank's ULT parks in a
// receive from rank 1 that never comes. What Open MPI 4.1 does then: when a
// process dies (a signal, or exit without MPI_Finalize) or calls MPI_Abort,
// mpirun kills the job's other processes and prints which rank failed and
// how; the test checks that the job ends, within ctest's limit, with that
// report, never hangs.
//
//   failing_rank throw   rank 1's ULT throws, uncaught (std::terminate: abort)
//   failing_rank abort   rank 1 prints its error and calls MPI_Abort(MPI_COMM_WORLD, 3)
#include <cstdio>
#include <stdexcept>
#include <string>

#include <weft/mpi.hpp>
#include <weft/runtime.hpp>

int main(int argc, char** argv) {
  weft::mpi::Environment env(argc, argv);
  const std::string how = argc > 1 ? argv[1] : "throw";
  weft::Config config;
  config.workers = 2;
  config.pin_workers = false;
  weft::Runtime rt(config);
  rt.run([&] {
    if (weft::mpi::rank() == 1) {
      if (how == "abort") {
        std::fprintf(stderr, "failing_rank: rank 1 gives up: MPI_Abort\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      weft::spawn([] { throw std::runtime_error("failing_rank: rank 1's ULT failed"); }).join();
    }
    int never = 0;
    weft::mpi::irecv(std::span<int>(&never, 1), 1, 0).wait();  // parks until the job is killed
  });
  std::fprintf(stderr, "failing_rank: rank %d was not stopped\n", weft::mpi::rank());
  return 0;
}
