// Latency tables as text (docs/topology-format.md, "Latency tables").
#include "weft/sched/latency_table_io.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <optional>
#include <ostream>
#include <sstream>

#include "text_format.hpp"

namespace weft::sched {

namespace {

using detail::shortest_number;

// One line of the input: its number, its text and its words (comment cut).
struct Line {
  int number = 0;
  std::string text;
  std::vector<std::string> words;
};

class TableReader {
 public:
  TableReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

  bool next(Line& l) {
    std::string s;
    while (std::getline(in_, s)) {
      ++lineno_;
      if (!s.empty() && s.back() == '\r') s.pop_back();
      if (auto hash = s.find('#'); hash != std::string::npos) s.erase(hash);
      std::istringstream ws(s);
      l.words.clear();
      for (std::string w; ws >> w;) l.words.push_back(w);
      if (l.words.empty()) continue;
      l.number = lineno_;
      l.text = s.substr(s.find_first_not_of(" \t"));
      while (!l.text.empty() && (l.text.back() == ' ' || l.text.back() == '\t')) l.text.pop_back();
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const Line& l, const std::string& expected) const {
    throw TopologyFormatError(source_, l.number, "expected " + expected + ", got '" + l.text + "'");
  }
  [[noreturn]] void fail_at_end(const std::string& expected) const {
    throw TopologyFormatError(source_, lineno_ + 1, "expected " + expected + ", got end of file");
  }

 private:
  std::istream& in_;
  std::string source_;
  int lineno_ = 0;
};

template <class T>
bool parse_word(const std::string& w, T& v) {
  auto r = std::from_chars(w.data(), w.data() + w.size(), v);
  return r.ec == std::errc() && r.ptr == w.data() + w.size();
}

}  // namespace

LatencyTableFile read_latency_table(std::istream& in, const std::string& source) {
  TableReader r(in, source);
  std::optional<Line> cpus_line, nodes_line;
  std::vector<int> cpus, nodes;
  std::vector<Line> row_lines;
  std::vector<std::vector<double>> rows;
  size_t n = 0;
  for (Line l; r.next(l);) {
    const std::string& key = l.words[0];
    if (key == "cpus" || key == "nodes") {
      const std::string what = "'" + key + "' followed by one integer >= 0 per row";
      if (!rows.empty()) r.fail(l, "a row of latencies ('" + key + "' must come before the rows)");
      auto& seen = key == "cpus" ? cpus_line : nodes_line;
      if (seen) r.fail(l, "at most one '" + key + "' line (the first is line " + std::to_string(seen->number) + ")");
      seen = l;
      auto& ids = key == "cpus" ? cpus : nodes;
      for (size_t i = 1; i < l.words.size(); ++i) {
        int v = -1;
        if (!parse_word(l.words[i], v) || v < 0) r.fail(l, what);
        ids.push_back(v);
      }
      if (ids.empty()) r.fail(l, what);
      continue;
    }
    if (rows.empty()) n = l.words.size();
    const std::string what = rows.empty() ? std::string("a row of latencies in cycles (numbers >= 0)")
                                          : std::to_string(n) + " latencies in cycles (row " +
                                                std::to_string(rows.size()) + "; numbers >= 0, as many as in row 0)";
    if (rows.size() == n) r.fail(l, "the end of the table after " + std::to_string(n) + " rows of " + std::to_string(n));
    std::vector<double> row;
    for (const auto& w : l.words) {
      double v = 0;
      if (!parse_word(w, v) || !std::isfinite(v) || v < 0) r.fail(l, what);
      row.push_back(v);
    }
    if (row.size() != n) r.fail(l, what);
    if (row[rows.size()] != 0)
      r.fail(l, "0 on the diagonal (column " + std::to_string(rows.size()) + " of row " + std::to_string(rows.size()) + ")");
    rows.push_back(std::move(row));
    row_lines.push_back(l);
  }
  if (rows.empty()) r.fail_at_end("a latency table: N rows of N numbers");
  if (rows.size() < n)
    r.fail_at_end(std::to_string(n) + " rows (the first row has " + std::to_string(n) + " numbers), not " +
                  std::to_string(rows.size()));
  if (cpus_line) {
    if (cpus.size() != n) r.fail(*cpus_line, "one OS cpu per row (" + std::to_string(n) + ")");
    for (size_t i = 1; i < n; ++i)
      if (cpus[i] <= cpus[i - 1]) r.fail(*cpus_line, "OS cpus in strictly ascending order");
  } else {
    for (size_t i = 0; i < n; ++i) cpus.push_back(static_cast<int>(i));
  }
  if (nodes_line && nodes.size() != n) r.fail(*nodes_line, "one OS node per row (" + std::to_string(n) + ")");
  LatencyTableFile f;
  f.table.os_cpus = cpus;
  f.os_nodes = nodes;
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = 0; b < n; ++b) {
      if (a != b && rows[a][b] == 0 && rows[b][a] == 0)
        r.fail(row_lines[a], "a latency between cpus " + std::to_string(cpus[a]) + " and " + std::to_string(cpus[b]) +
                                 " in column " + std::to_string(b) + " or in row " + std::to_string(b) +
                                 " (both are 0: not measured)");
    }
    f.table.values.insert(f.table.values.end(), rows[a].begin(), rows[a].end());
  }
  return f;
}

LatencyTableFile load_latency_table(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("weft::sched: cannot read latency table \"" + path + "\"");
  return read_latency_table(f, path);
}

void save_latency_table(const LatencyTable& t, std::ostream& out, const std::vector<std::string>& comments,
                        const std::vector<int>& os_nodes) {
  const int n = t.size();
  for (const auto& c : comments) {
    std::istringstream lines(c);
    for (std::string l; std::getline(lines, l);) out << "# " << l << "\n";
  }
  out << "# latency table: row i, column j = cycles between cpu i and cpu j; format: docs/topology-format.md\n";
  std::vector<std::string> cells(t.values.size());
  size_t width = 1;
  for (size_t i = 0; i < cells.size(); ++i) width = std::max(width, (cells[i] = shortest_number(t.values[i])).size());
  for (int c : t.os_cpus) width = std::max(width, std::to_string(c).size());
  auto line = [&](const char* key, const std::vector<int>& v) {
    out << key;
    for (int x : v) out << ' ' << std::string(width - std::to_string(x).size(), ' ') << x;
    out << "\n";
  };
  line("cpus ", t.os_cpus);
  if (!os_nodes.empty()) line("nodes", os_nodes);
  for (int a = 0; a < n; ++a) {
    out << "     ";
    for (int b = 0; b < n; ++b) {
      const std::string& s = cells[static_cast<size_t>(a) * n + b];
      out << ' ' << std::string(width - s.size(), ' ') << s;
    }
    out << "\n";
  }
}

void save_latency_table(const LatencyTable& t, const std::string& path, const std::vector<std::string>& comments,
                        const std::vector<int>& os_nodes) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("weft::sched: cannot write latency table \"" + path + "\"");
  save_latency_table(t, f, comments, os_nodes);
  f.flush();
  if (!f) throw std::runtime_error("weft::sched: error writing latency table \"" + path + "\"");
}

}  // namespace weft::sched
