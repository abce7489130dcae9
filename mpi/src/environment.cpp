#include "weft/mpi/environment.hpp"

#include <mutex>
#include <string>

#include "engine.hpp"
#include "weft/mpi/error.hpp"

namespace weft::mpi {

namespace {
int to_mpi(ThreadLevel level) {
  switch (level) {
    case ThreadLevel::single: return MPI_THREAD_SINGLE;
    case ThreadLevel::funneled: return MPI_THREAD_FUNNELED;
    case ThreadLevel::serialized: return MPI_THREAD_SERIALIZED;
    case ThreadLevel::multiple: return MPI_THREAD_MULTIPLE;
  }
  return MPI_THREAD_MULTIPLE;
}

ThreadLevel from_mpi(int level) {
  if (level >= MPI_THREAD_MULTIPLE) return ThreadLevel::multiple;
  if (level >= MPI_THREAD_SERIALIZED) return ThreadLevel::serialized;
  if (level >= MPI_THREAD_FUNNELED) return ThreadLevel::funneled;
  return ThreadLevel::single;
}
}  // namespace

std::string_view to_string(ThreadLevel level) {
  switch (level) {
    case ThreadLevel::single: return "MPI_THREAD_SINGLE";
    case ThreadLevel::funneled: return "MPI_THREAD_FUNNELED";
    case ThreadLevel::serialized: return "MPI_THREAD_SERIALIZED";
    case ThreadLevel::multiple: return "MPI_THREAD_MULTIPLE";
  }
  return "?";
}

Environment::Environment(int& argc, char**& argv, ThreadLevel requested) { init(&argc, &argv, requested); }
Environment::Environment(ThreadLevel requested) { init(nullptr, nullptr, requested); }

void Environment::init(int* argc, char*** argv, ThreadLevel requested) {
  engine_ = std::make_unique<detail::Engine>();
  detail::Engine::install(engine_.get());  // throws if another Environment lives
  try {
    int initialized = 0;
    MPI_Initialized(&initialized);
    int provided = MPI_THREAD_SINGLE;
    if (initialized) {
      MPI_Query_thread(&provided);
    } else {
      const int rc = MPI_Init_thread(argc, argv, to_mpi(requested), &provided);
      if (rc != MPI_SUCCESS) throw std::runtime_error("weft::mpi: MPI_Init_thread failed (code " + std::to_string(rc) + ")");
      finalize_ = true;
    }
    provided_ = from_mpi(provided);
    if (provided_ < ThreadLevel::serialized) {
      throw Error(MPI_ERR_OTHER, "MPI_Init_thread (MPI provided " + std::string(to_string(provided_)) +
                                     "; ULTs on several workers need MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE)");
    }
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler(MPI_COMM_WORLD)");
    check(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler(MPI_COMM_SELF)");
  } catch (...) {
    if (finalize_) MPI_Finalize();
    detail::Engine::install(nullptr);
    throw;
  }
}

Environment::~Environment() {
  detail::Engine::install(nullptr);
  if (finalize_) MPI_Finalize();
}

int rank(MPI_Comm comm) {
  std::lock_guard guard(detail::Engine::get().lock());
  int r = 0;
  check(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}

int size(MPI_Comm comm) {
  std::lock_guard guard(detail::Engine::get().lock());
  int s = 0;
  check(MPI_Comm_size(comm, &s), "MPI_Comm_size");
  return s;
}

void return_errors(MPI_Comm comm) {
  std::lock_guard guard(detail::Engine::get().lock());
  check(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
}

}  // namespace weft::mpi
