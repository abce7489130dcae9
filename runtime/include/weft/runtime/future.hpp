#pragma once
// Future<T>: the result of weft::async, in the style of std::future. get()
// parks the calling ULT (never its worker) until the value is there; an
// exception thrown by the function is rethrown by get().

#include <utility>

#include "weft/runtime/ult.hpp"

namespace weft {

template <class T>
class Future {
 public:
  Future() = default;
  explicit Future(Ult<T>&& ult) : ult_(std::move(ult)) {}

  bool valid() const noexcept { return ult_.joinable(); }
  bool ready() const noexcept { return ult_.done(); }
  // Parks until ready, leaves the value in place.
  void wait() const { ult_.wait(); }
  // Waits, then moves the value out (or rethrows). The future is then invalid.
  T get() { return ult_.join(); }

 private:
  Ult<T> ult_;
};

// Runs f on a new stealable ULT and returns the future of its result.
template <class F>
Future<ult_result_t<F>> async(F&& f) {
  return Future<ult_result_t<F>>(spawn(std::forward<F>(f)));
}
// The same, with a name for the ULT in a trace.
template <class F>
Future<ult_result_t<F>> async(label name, F&& f) {
  return Future<ult_result_t<F>>(spawn(name, std::forward<F>(f)));
}

}  // namespace weft
