#pragma once
// Text and JSON formatting shared by the sched layer's renderings (topology,
// placement, OpenMP bindings, saved files, error messages) and weft-topo
// (internal: tools/ reaches it through its private include path).

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace weft::sched::detail {

// A number through a printf format; "%.6g" is what `std::ostream << v` writes.
inline std::string format_number(double v, const char* printf_format = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, printf_format, v);
  return buf;
}

// The shortest text that reads back as exactly v (std::to_chars).
inline std::string shortest_number(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// "1,2,3" (or with another separator).
inline std::string join(const std::vector<int>& values, std::string_view separator = ",") {
  std::string s;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) s += separator;
    s += std::to_string(values[i]);
  }
  return s;
}

// The contents of a JSON string: '"' and '\' escaped, control characters dropped.
inline std::string json_escape(std::string_view text) {
  std::string r;
  for (char c : text) {
    if (c == '"' || c == '\\') r += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    r += c;
  }
  return r;
}

}  // namespace weft::sched::detail
