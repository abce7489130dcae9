#pragma once
// How the library stops a program it cannot serve: a line on stderr naming
// the entry point (or the environment variable) and the reason, then abort()
// (or exit(1) for a bad environment, which is the user's input, not a bug).

#include <string>

namespace weft::omp {

// "weft-omp: <entry>: <what>", then abort(). For misuse of the ABI and for
// broken invariants.
[[noreturn]] void fatal(const char* entry, const std::string& what);

// A malformed environment variable (the message names it): the message and
// exit(1).
[[noreturn]] void fatal_environment(const char* message);

}  // namespace weft::omp
