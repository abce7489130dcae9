#pragma once
// The outcome of a checker (a graph kernel's serial verifier, a distributed
// sort's verify_sorted): ok, or the first problem found, in words (e.g.
// "vertex 17: parent 3 is at depth 2, but 17 is at depth 2"). True when ok.

#include <string>
#include <utility>

namespace weft {

struct Verification {
  bool ok = true;
  std::string problem;  // empty when ok

  explicit operator bool() const noexcept { return ok; }
  static Verification pass() { return {}; }
  static Verification fail(std::string why) { return {false, std::move(why)}; }
};

}  // namespace weft
