#pragma once
// A sequential object behind a lock meeting the standard Lockable
// requirements (std::mutex by default; weft::Mutex from ULTs): the baseline a
// user would write without thinking about synchronization.

#include <mutex>
#include <utility>

#include "weft/sync/combining.hpp"
#include "weft/sync/cpu.hpp"

namespace weft::sync {

template <SequentialObject Seq, class Mutex = std::mutex>
class MutexObject {
 public:
  using Sequential = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;
  struct Handle {};  // no per-caller state

  MutexObject() : MutexObject(Seq{}) {}
  explicit MutexObject(Seq seq, CombiningConfig = {}) : seq_(std::move(seq)) {}

  Handle handle() noexcept { return {}; }

  Result apply(Handle&, const Op& op) {
    std::lock_guard lk(m_);
    return seq_.apply(op);
  }

  Seq& unsafe_object() noexcept { return seq_; }

 private:
  alignas(cache_line_size) Mutex m_;
  alignas(cache_line_size) Seq seq_;
};

}  // namespace weft::sync
