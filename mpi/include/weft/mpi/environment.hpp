#pragma once
// weft::mpi::Environment: MPI's lifetime for a weft program. Construct one in
// main() (before any weft::mpi call, usually before the weft::Runtime) and
// keep it until every request has completed; it initializes MPI asking for
// MPI_THREAD_MULTIPLE and finalizes it on destruction.
//
// weft::mpi funnels each of its own MPI calls through the progress engine's
// lock, so it is correct at MPI_THREAD_SERIALIZED too: any worker may make
// the call, never two at once. MPI_THREAD_MULTIPLE is still asked for by
// default so the program's own MPI calls from other threads stay legal.
// Below SERIALIZED (SINGLE, FUNNELED) ULTs on several workers cannot use MPI
// and the constructor throws weft::mpi::Error naming the level it got.

#include <mpi.h>

#include <memory>
#include <string_view>

namespace weft::mpi {

enum class ThreadLevel { single, funneled, serialized, multiple };

// "MPI_THREAD_MULTIPLE" etc.
std::string_view to_string(ThreadLevel level);

namespace detail {
class Engine;
}

class Environment {
 public:
  // MPI_Init_thread(&argc, &argv, requested); if MPI is already initialized
  // (by the program), adopts it (MPI_Query_thread) and does not finalize it.
  Environment(int& argc, char**& argv, ThreadLevel requested = ThreadLevel::multiple);
  explicit Environment(ThreadLevel requested = ThreadLevel::multiple);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  // The level MPI provided.
  ThreadLevel thread_level() const { return provided_; }

 private:
  void init(int* argc, char*** argv, ThreadLevel requested);

  ThreadLevel provided_ = ThreadLevel::single;
  bool finalize_ = false;
  std::unique_ptr<detail::Engine> engine_;
};

// Rank of the caller and number of ranks in `comm` (through the engine's lock).
int rank(MPI_Comm comm = MPI_COMM_WORLD);
int size(MPI_Comm comm = MPI_COMM_WORLD);

// Sets MPI_ERRORS_RETURN on a communicator of the program's own, so that
// errors on it become weft::mpi::Error instead of aborting the job.
void return_errors(MPI_Comm comm);

}  // namespace weft::mpi
