#pragma once
// The error a lock reports when it is unlocked by a caller that does not
// hold it (where the lock can tell).

#include <stdexcept>
#include <string>

namespace weft::sync::detail {

[[noreturn]] inline void throw_not_held(const char* lock_name) {
  throw std::logic_error(std::string("weft::sync::") + lock_name + "::unlock: the lock is not held");
}

}  // namespace weft::sync::detail
