#pragma once
// Reading the one-line files of the kernel's pseudo file systems (sysfs,
// cgroupfs, powercap) (internal).

#include <cerrno>
#include <fstream>
#include <optional>
#include <string>

namespace weft::sched::detail {

// The first line of a file; nullopt when it cannot be opened or is empty,
// with the reason in *error (an errno value) when error is given.
inline std::optional<std::string> read_first_line(const std::string& path, int* error = nullptr) {
  std::ifstream in(path);
  if (!in) {
    if (error) *error = errno;
    return std::nullopt;
  }
  std::string line;
  if (!std::getline(in, line)) {
    if (error) *error = errno ? errno : EIO;
    return std::nullopt;
  }
  return line;
}

// The number a file's first line starts with; nullopt as read_first_line, or
// with EINVAL when the line is not a number.
inline std::optional<double> read_number(const std::string& path, int* error = nullptr) {
  std::optional<std::string> line = read_first_line(path, error);
  if (!line) return std::nullopt;
  try {
    return std::stod(*line);
  } catch (...) {
    if (error) *error = EINVAL;
    return std::nullopt;
  }
}

}  // namespace weft::sched::detail
