#include "weft/mpi/request.hpp"

#include <mutex>
#include <stdexcept>
#include <vector>

#include "engine.hpp"
#include "weft/mpi/detail/post.hpp"
#include "weft/mpi/error.hpp"

namespace weft::mpi {

namespace {
// Takes a done operation's result out of `op` (which is then freed).
Status finish(std::unique_ptr<detail::Operation>& op) {
  std::unique_ptr<detail::Operation> done = std::move(op);
  if (done->error != MPI_SUCCESS) throw Error(done->error, done->call);
  return Status{done->source, done->tag, done->count};
}
}  // namespace

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    if (op_ != nullptr) {
      try {
        wait();
      } catch (...) {
        // As in the destructor: the error of a request nobody waited for is dropped.
      }
    }
    op_ = std::move(other.op_);
  }
  return *this;
}

Request::~Request() {
  if (op_ == nullptr) return;
  try {
    wait();
  } catch (...) {
    // Documented: the error of a request nobody waited for is dropped.
  }
}

Status Request::wait() {
  if (op_ == nullptr) throw std::logic_error("weft::mpi::Request::wait on an empty request");
  detail::Operation* op = op_.get();
  detail::Engine::get().await(std::span<detail::Operation* const>(&op, 1));
  return finish(op_);
}

bool Request::test() {
  if (op_ == nullptr) throw std::logic_error("weft::mpi::Request::test on an empty request");
  detail::Engine& engine = detail::Engine::get();
  std::lock_guard guard(engine.lock());
  if (!op_->done) engine.poll_locked();
  return op_->done;
}

void wait_all(std::span<Request> requests) {
  std::exception_ptr first_error;
  for (Request& r : requests) {
    if (!r.valid()) continue;
    try {
      r.wait();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
}

Completion wait_any(std::span<Request> requests) {
  std::vector<detail::Operation*> ops(requests.size(), nullptr);
  bool any = false;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    ops[i] = requests[i].op_.get();
    any = any || ops[i] != nullptr;
  }
  if (!any) throw std::invalid_argument("weft::mpi::wait_any: no valid request among " + std::to_string(requests.size()));
  const std::size_t i = detail::Engine::get().await(ops);
  return Completion{i, finish(requests[i].op_)};
}

namespace detail {
Request post(std::unique_ptr<Operation> op, const char* call, StartCall start, void* context) {
  Engine& engine = Engine::get();
  op->call = call;
  std::lock_guard guard(engine.lock());
  check(start(context, &op->handle), call);
  engine.add_locked(op.get());
  return Request(std::move(op));
}
}  // namespace detail

}  // namespace weft::mpi
