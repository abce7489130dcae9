#pragma once
// The outcome of a kernel's serial verifier: weft::Verification
// (weft/apps/verification.hpp), true when the kernel's output is right,
// otherwise the first problem found, in words.

#include "weft/apps/verification.hpp"

namespace weft::graph {

using weft::Verification;

}  // namespace weft::graph
