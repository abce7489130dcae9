#pragma once
// Parsing the text graph formats (private to src/graph): the file in memory,
// split at line boundaries into pieces parsed in parallel, each line cut
// into blank-separated tokens. Errors carry the line number.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft::graph::detail {

// A problem on one line of a piece (the line counted from the piece's start).
struct LineError {
  std::int64_t line = 0;  // 1-based within the piece
  std::string message;
};

// The tokens of one line (at most kMax are kept; count says how many there were).
struct Tokens {
  static constexpr int kMax = 5;
  std::string_view token[kMax];
  int count = 0;
};

inline Tokens tokenize(std::string_view line) {
  Tokens t;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (t.count < Tokens::kMax) t.token[t.count] = line.substr(start, i - start);
    ++t.count;
  }
  return t;
}

// A whole token as a 64-bit integer, or nullopt.
inline std::optional<std::int64_t> to_int(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// A whole token as a double, or nullopt.
inline std::optional<double> to_real(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

inline std::string quoted(std::string_view s) {
  constexpr std::size_t kShown = 40;
  std::string out(1, '\'');
  out.append(s.substr(0, kShown));
  out.append(s.size() > kShown ? "...'" : "'");
  return out;
}

// Calls on_line(line, line_number) for each line of text (without its '\n'),
// numbered from first_line; stops early when on_line returns false.
template <class OnLine>
void for_each_line(std::string_view text, std::int64_t first_line, OnLine&& on_line) {
  std::int64_t number = first_line;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    if (!on_line(line, number)) return;
    if (nl == std::string_view::npos) return;
    text.remove_prefix(nl + 1);
    ++number;
  }
}

// Splits text into pieces of about `piece` bytes, each ending after a '\n'
// (the last at the end): the offsets of the pieces' starts, then text.size().
inline std::vector<std::size_t> split_lines(std::string_view text, std::size_t piece) {
  std::vector<std::size_t> at{0};
  while (at.back() + piece < text.size()) {
    const std::size_t nl = text.find('\n', at.back() + piece);
    if (nl == std::string_view::npos) break;
    at.push_back(nl + 1);
  }
  if (at.back() != text.size()) at.push_back(text.size());
  if (at.size() == 1) at.push_back(text.size());
  return at;
}

}  // namespace weft::graph::detail
