// The progress engine: see engine.hpp for the design.
#include "engine.hpp"

#include <atomic>
#include <optional>
#include <stdexcept>

#include "weft/mpi/error.hpp"
#include "weft/runtime/this_ult.hpp"

namespace weft::mpi::detail {

namespace {
std::atomic<Engine*> g_engine{nullptr};

std::optional<std::size_t> first_done(std::span<Operation* const> ops) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i] != nullptr && ops[i]->done) return i;
  }
  return std::nullopt;
}

void set_waiter(std::span<Operation* const> ops, UltRef waiter) {
  for (Operation* op : ops) {
    if (op != nullptr) op->waiter = waiter;
  }
}
}  // namespace

Engine& Engine::get() {
  Engine* e = g_engine.load(std::memory_order_acquire);
  if (e == nullptr) throw std::logic_error("weft::mpi: no weft::mpi::Environment is alive (construct one in main())");
  return *e;
}

void Engine::install(Engine* engine) {
  if (engine != nullptr && g_engine.load() != nullptr) {
    throw std::logic_error("weft::mpi: a second weft::mpi::Environment (one per process)");
  }
  g_engine.store(engine, std::memory_order_release);
}

std::size_t Engine::await(std::span<Operation* const> ops) {
  std::unique_lock guard(mutex_);
  const UltRef self = this_ult::ref();
  for (;;) {
    if (auto i = first_done(ops)) {
      set_waiter(ops, UltRef());
      return *i;
    }
    if (!polling_) {
      polling_ = true;
      set_waiter(ops, UltRef());
      for (;;) {
        poll_locked();
        if (auto i = first_done(ops)) {
          polling_ = false;
          hand_off_locked();
          return *i;
        }
        guard.unlock();
        this_ult::yield();  // outside a ULT: std::this_thread::yield()
        guard.lock();
      }
    }
    set_waiter(ops, self);
    guard.unlock();
    park();  // spurious returns (stale tokens) just loop
    guard.lock();
  }
}

void Engine::poll_locked() {
  const std::size_t n = outstanding_.size();
  if (n == 0) return;
  handles_.resize(n);
  indices_.resize(n);
  statuses_.resize(n);
  for (std::size_t i = 0; i < n; ++i) handles_[i] = outstanding_[i]->handle;
  int completed = 0;
  const int rc = MPI_Testsome(static_cast<int>(n), handles_.data(), &completed, indices_.data(), statuses_.data());
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    // Not attributable to one call: every outstanding operation fails with it.
    for (Operation* op : outstanding_) complete_locked(op, MPI_Status{}, rc);
    outstanding_.clear();
    return;
  }
  if (completed == MPI_UNDEFINED) {  // no active handle left (cannot happen: each is live until done)
    for (Operation* op : outstanding_) complete_locked(op, MPI_Status{}, MPI_SUCCESS);
    outstanding_.clear();
    return;
  }
  for (int k = 0; k < completed; ++k) {
    const int i = indices_[k];
    Operation* op = outstanding_[i];
    op->handle = handles_[i];  // MPI_REQUEST_NULL now
    complete_locked(op, statuses_[k], rc == MPI_ERR_IN_STATUS ? statuses_[k].MPI_ERROR : MPI_SUCCESS);
    outstanding_[i] = nullptr;
  }
  std::erase(outstanding_, nullptr);
}

void Engine::complete_locked(Operation* op, const MPI_Status& status, int error) {
  op->error = error;
  if (error == MPI_SUCCESS && op->type != MPI_DATATYPE_NULL) {
    op->source = status.MPI_SOURCE;
    op->tag = status.MPI_TAG;
    int units = 0;
    MPI_Get_count(&status, op->type, &units);
    op->count = units == MPI_UNDEFINED ? 0 : static_cast<std::size_t>(units / op->units_per_element);
  }
  op->done = true;
  if (op->waiter) {
    unpark(op->waiter);
    op->waiter = UltRef();
  }
}

void Engine::hand_off_locked() {
  for (Operation* op : outstanding_) {
    if (op->waiter) {
      unpark(op->waiter);  // it re-checks, finds no poller and becomes one
      return;
    }
  }
}

}  // namespace weft::mpi::detail
