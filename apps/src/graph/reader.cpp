// Reading the text graph formats (reader.hpp): .el, .wel, .mtx, .gr, parsed in
// parallel pieces; and load_graph / load_weighted_graph for any format.
#include "weft/apps/graph/reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text_reader.hpp"
#include "weft/apps/graph/builder.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/apps/graph/detail/progress_meter.hpp"
#include "weft/apps/graph/generator.hpp"

namespace weft::graph {

namespace {
// "path:line: problem" ("path: problem" without a line). Appended piece by
// piece: GCC 12 warns falsely (-Wrestrict) on `":" + std::to_string(line)`.
std::string file_error_message(const std::string& path, std::int64_t line, const std::string& problem) {
  std::string message = path;
  if (line > 0) {
    message += ':';
    message += std::to_string(line);
  }
  message += ": ";
  message += problem;
  return message;
}
}  // namespace

GraphFileError::GraphFileError(const std::string& path, std::int64_t line, const std::string& problem)
    : std::invalid_argument(file_error_message(path, line, problem)), path_(path), line_(line) {}

FileFormat file_format(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  const std::string suffix = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : path.substr(dot);
  if (suffix == ".el") return FileFormat::edge_list;
  if (suffix == ".wel") return FileFormat::weighted_edge_list;
  if (suffix == ".mtx") return FileFormat::matrix_market;
  if (suffix == ".gr") return FileFormat::dimacs;
  if (suffix == ".sg") return FileFormat::serialized;
  if (suffix == ".wsg") return FileFormat::weighted_serialized;
  throw GraphFileError(path, 0,
                       (suffix.empty() ? std::string("no format suffix") : "unknown format suffix '" + suffix + "'") +
                           " (expected .el, .wel, .mtx, .gr, .sg or .wsg)");
}

bool format_has_weights(FileFormat format) {
  return format == FileFormat::weighted_edge_list || format == FileFormat::dimacs ||
         format == FileFormat::matrix_market || format == FileFormat::weighted_serialized;
}

namespace {

using detail::LineError;
using detail::quoted;
using detail::Tokens;

constexpr std::size_t kPieceBytes = 4u << 20;

// The whole file; errors name it.
std::string read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw GraphFileError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw GraphFileError(path, 0, S_ISDIR(st.st_mode) ? "is a directory, not a graph file" : "cannot stat");
  }
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t r = ::read(fd, text.data() + got, text.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      const int err = errno;
      ::close(fd);
      throw GraphFileError(path, 0, r == 0 ? "file shrank while being read" : std::string("read failed: ") + std::strerror(err));
    }
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  if (text.empty()) throw GraphFileError(path, 0, "empty file: no graph in it");
  return text;
}

enum class WeightField { none, integer, real };

// How the body lines of a text file look, from its suffix and header.
struct Body {
  FileFormat format = FileFormat::edge_list;
  WeightField weight = WeightField::none;
  bool one_based = false;
  bool arcs = false;             // .gr: edge lines are "a u v w"
  std::int64_t rows = -1;        // declared id ranges (1-based formats)
  std::int64_t cols = -1;
  std::int64_t declared = -1;    // declared edge count (.mtx nnz, .gr m), -1: none
  std::int64_t header_line = 0;  // the line that declares it
  bool symmetric = false;
  std::string_view text;         // the body
  std::int64_t first_line = 1;   // its first line's number
};

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }
char first_char(std::string_view line) {
  const std::size_t i = line.find_first_not_of(" \t\r");
  return i == std::string_view::npos ? '\0' : line[i];
}
std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Reads the header of a .mtx or .gr file (nothing for .el, .wel).
Body parse_header(const std::string& path, FileFormat format, std::string_view text) {
  Body b;
  b.format = format;
  b.text = text;
  if (format == FileFormat::edge_list) return b;
  if (format == FileFormat::weighted_edge_list) {
    b.weight = WeightField::integer;
    return b;
  }
  b.one_based = true;
  std::optional<LineError> error;
  std::size_t consumed = 0;
  bool done = false;
  auto fail = [&](std::int64_t line, std::string message) {
    error = LineError{line, std::move(message)};
    return false;
  };
  if (format == FileFormat::matrix_market) {
    bool banner = false;
    detail::for_each_line(text, 1, [&](std::string_view line, std::int64_t number) {
      consumed += line.size() + 1;
      if (!banner) {
        const Tokens t = detail::tokenize(line);
        if (t.count < 1 || lower(t.token[0]) != "%%matrixmarket")
          return fail(number, "expected the Matrix Market banner '%%MatrixMarket matrix coordinate <field> "
                              "<symmetry>', found " + quoted(line));
        if (t.count != 5 || lower(t.token[1]) != "matrix" || lower(t.token[2]) != "coordinate")
          return fail(number, "expected '%%MatrixMarket matrix coordinate <field> <symmetry>' (only coordinate "
                              "matrices are graphs), found " + quoted(line));
        const std::string field = lower(t.token[3]), symmetry = lower(t.token[4]);
        if (field == "pattern") b.weight = WeightField::none;
        else if (field == "integer") b.weight = WeightField::integer;
        else if (field == "real" || field == "double") b.weight = WeightField::real;
        else return fail(number, "unsupported field '" + field + "' (expected pattern, integer or real)");
        if (symmetry == "symmetric") b.symmetric = true;
        else if (symmetry != "general")
          return fail(number, "unsupported symmetry '" + symmetry + "' (expected general or symmetric)");
        banner = true;
        return true;
      }
      if (is_blank(line) || first_char(line) == '%') return true;
      const Tokens t = detail::tokenize(line);
      const auto rows = t.count == 3 ? detail::to_int(t.token[0]) : std::nullopt;
      const auto cols = t.count == 3 ? detail::to_int(t.token[1]) : std::nullopt;
      const auto nnz = t.count == 3 ? detail::to_int(t.token[2]) : std::nullopt;
      if (!rows || !cols || !nnz || *rows < 0 || *cols < 0 || *nnz < 0)
        return fail(number, "expected the size line 'rows columns entries' (three non-negative integers), found " +
                                quoted(line));
      if (std::max(*rows, *cols) > kMaxNodes)
        return fail(number, "the matrix has " + std::to_string(std::max(*rows, *cols)) +
                                " rows or columns, more than 32-bit vertex ids allow (2^31 - 1)");
      b.rows = *rows;
      b.cols = *cols;
      b.declared = *nnz;
      b.header_line = number;
      b.first_line = number + 1;
      done = true;
      return false;
    });
    if (!error && !done)
      error = LineError{0, banner ? "no size line 'rows columns entries' after the banner" : "no Matrix Market banner"};
  } else {  // DIMACS .gr
    b.weight = WeightField::integer;
    b.arcs = true;
    detail::for_each_line(text, 1, [&](std::string_view line, std::int64_t number) {
      consumed += line.size() + 1;
      const char c = first_char(line);
      if (c == '\0' || c == 'c') return true;
      const Tokens t = detail::tokenize(line);
      if (t.token[0] == "a") return fail(number, "arc line before the problem line 'p sp <nodes> <arcs>'");
      if (t.token[0] != "p")
        return fail(number, "expected a comment 'c ...' or the problem line 'p sp <nodes> <arcs>', found " + quoted(line));
      const auto n = t.count == 4 ? detail::to_int(t.token[2]) : std::nullopt;
      const auto m = t.count == 4 ? detail::to_int(t.token[3]) : std::nullopt;
      if (t.count != 4 || t.token[1] != "sp" || !n || !m || *n < 0 || *m < 0)
        return fail(number, "expected the problem line 'p sp <nodes> <arcs>' (non-negative integers), found " + quoted(line));
      if (*n > kMaxNodes)
        return fail(number, "the problem line declares " + std::to_string(*n) +
                                " nodes, more than 32-bit vertex ids allow (2^31 - 1)");
      b.rows = b.cols = *n;
      b.declared = *m;
      b.header_line = number;
      b.first_line = number + 1;
      done = true;
      return false;
    });
    if (!error && !done) error = LineError{0, "no problem line 'p sp <nodes> <arcs>'"};
  }
  if (error) throw GraphFileError(path, error->line, error->message);
  b.text = text.substr(std::min(consumed, text.size()));
  return b;
}

template <class E>
struct Piece {
  std::vector<E> edges;
  std::int64_t lines = 0;
  std::optional<LineError> error;
};

// Parses one body line into `out` (or nothing for a comment or blank line);
// returns a message for a malformed one.
template <class E>
std::optional<std::string> parse_line(const Body& b, const ReadOptions& o, std::string_view line, std::vector<E>& out) {
  const char c = first_char(line);
  if (c == '\0') return std::nullopt;
  const bool hash_comments = b.format == FileFormat::edge_list || b.format == FileFormat::weighted_edge_list;
  if (c == '%' || (hash_comments && c == '#')) return std::nullopt;
  Tokens t = detail::tokenize(line);
  int first = 0;
  if (b.arcs) {
    if (t.token[0] == "c") return std::nullopt;
    if (t.token[0] == "p") return "a second problem line (the first is on line " + std::to_string(b.header_line) + ")";
    if (t.token[0] != "a") return "expected an arc 'a <from> <to> <weight>' or a comment 'c ...', found " + quoted(line);
    first = 1;
  }
  const int fields = b.weight == WeightField::none ? 2 : 3;
  if (t.count - first != fields) {
    static const char* const kShape[] = {"'u v'", "'u v w'"};
    const std::string shape = b.arcs ? "'a <from> <to> <weight>'" : b.format == FileFormat::matrix_market
                                                                        ? (fields == 2 ? "'row column'" : "'row column value'")
                                                                        : kShape[fields - 2];
    return "expected " + std::to_string(fields) + " fields " + shape + ", found " + std::to_string(t.count - first) +
           " in " + quoted(line);
  }
  NodeId id[2];
  for (int k = 0; k < 2; ++k) {
    const std::string_view tok = t.token[first + k];
    const auto v = detail::to_int(tok);
    if (!v) return "expected a vertex id (an integer), found " + quoted(tok);
    if (b.one_based) {
      const std::int64_t limit = k == 0 ? b.rows : b.cols;
      if (*v < 1 || *v > limit)
        return "vertex id " + std::string(tok) + " is outside 1.." + std::to_string(limit) + " (declared on line " +
               std::to_string(b.header_line) + ")";
      id[k] = static_cast<NodeId>(*v - 1);
    } else {
      if (*v < 0) return "vertex id " + std::string(tok) + " is negative";
      if (*v >= kMaxNodes) return "vertex id " + std::string(tok) + " is too large for 32-bit vertex ids";
      id[k] = static_cast<NodeId>(*v);
    }
  }
  Weight w = 0;
  if (b.weight != WeightField::none) {
    const std::string_view tok = t.token[first + 2];
    std::int64_t value = 0;
    if (b.weight == WeightField::integer) {
      const auto v = detail::to_int(tok);
      if (!v) return "expected an integer weight, found " + quoted(tok);
      value = *v;
    } else {
      const auto v = detail::to_real(tok);
      if (!v) return "expected a number, found " + quoted(tok);
      if constexpr (std::is_same_v<E, WEdge>) {
        if (*v != std::floor(*v) || std::fabs(*v) > 2147483647.0)
          return "weight " + std::string(tok) + " is not a 32-bit integer (weights are integers)";
      }
      value = std::is_same_v<E, WEdge> ? static_cast<std::int64_t>(*v) : 0;
    }
    if (value < INT32_MIN || value > INT32_MAX) return "weight " + std::string(tok) + " does not fit in 32 bits";
    if (o.require_nonnegative_weights && value < 0)
      return "weight " + std::string(tok) + " is negative (shortest paths need weights >= 0)";
    w = static_cast<Weight>(value);
  }
  if constexpr (std::is_same_v<E, WEdge>)
    out.push_back({id[0], id[1], w});
  else
    out.push_back({id[0], id[1]});
  return std::nullopt;
}

// The body in parallel pieces, then one array.
template <class E>
BasicEdgeList<E> parse_body(const std::string& path, const Body& b, const ReadOptions& o) {
  const std::vector<std::size_t> at = detail::split_lines(b.text, kPieceBytes);
  const std::size_t pieces = at.size() - 1;
  std::vector<Piece<E>> piece(pieces);
  detail::ProgressMeter progress(o.progress, "read", pieces);
  weft::parallel_for(std::size_t{0}, pieces, [&](std::size_t k) {
    Piece<E>& p = piece[k];
    const std::string_view text = b.text.substr(at[k], at[k + 1] - at[k]);
    p.edges.reserve(text.size() / 12 + 1);
    p.lines = static_cast<std::int64_t>(std::count(text.begin(), text.end(), '\n'));
    detail::for_each_line(text, 1, [&](std::string_view line, std::int64_t number) {
      if (auto problem = parse_line(b, o, line, p.edges)) {
        p.error = LineError{number, std::move(*problem)};
        return false;
      }
      return true;
    });
    progress.advance();
  }, schedule_dynamic(1));
  std::int64_t line = b.first_line;
  std::size_t total = 0;
  std::vector<std::size_t> offset(pieces + 1, 0);
  for (std::size_t k = 0; k < pieces; ++k) {
    if (piece[k].error) throw GraphFileError(path, line + piece[k].error->line - 1, piece[k].error->message);
    line += piece[k].lines;
    offset[k] = total;
    total += piece[k].edges.size();
  }
  if (b.declared >= 0 && static_cast<std::int64_t>(total) != b.declared)
    throw GraphFileError(path, b.header_line,
                         "the header declares " + std::to_string(b.declared) + (b.arcs ? " arcs" : " entries") +
                             ", the file has " + std::to_string(total));
  if (total == 0 && b.declared < 0) throw GraphFileError(path, 0, "no edges in the file (only blank or comment lines)");
  BasicEdgeList<E> el;
  el.edges = Array<E>(total);
  weft::parallel_for(std::size_t{0}, pieces, [&](std::size_t k) {
    std::copy(piece[k].edges.begin(), piece[k].edges.end(), el.edges.data() + offset[k]);
    std::vector<E>().swap(piece[k].edges);
  });
  if (b.one_based) el.num_nodes = static_cast<NodeId>(std::max(b.rows, b.cols));
  el.symmetric = b.symmetric;
  progress.finish();
  return el;
}

struct TextFile {
  std::string text;
  Body body;
};

TextFile open_text(const std::string& path, FileFormat format) {
  if (format == FileFormat::serialized || format == FileFormat::weighted_serialized)
    throw GraphFileError(path, 0, "a binary graph, not an edge list (load it with read_serialized or load_graph)");
  TextFile f{read_file(path), {}};
  f.body = parse_header(path, format, f.text);
  return f;
}

}  // namespace

EdgeList read_edge_list(const std::string& path, const ReadOptions& options) {
  const FileFormat format = file_format(path);
  TextFile f = open_text(path, format);
  return detail::on_runtime([&] { return parse_body<Edge>(path, f.body, options); });
}

WEdgeList read_weighted_edge_list(const std::string& path, const ReadOptions& options) {
  const FileFormat format = file_format(path);
  TextFile f = open_text(path, format);
  return detail::on_runtime([&] {
    if (f.body.weight != WeightField::none) return parse_body<WEdge>(path, f.body, options);
    return add_random_weights(parse_body<Edge>(path, f.body, options), options.weight_seed);
  });
}

namespace {

// A ProgressFn that forwards to `outer` (the load's own reporter).
ProgressFn forward(const LoadOptions& options) { return options.progress ? options.progress : options.read.progress; }

void refuse_symmetrize(const std::string& path, bool directed, bool symmetrize) {
  if (symmetrize && directed)
    throw GraphFileError(path, 0, "holds a directed graph; -s (symmetrize) applies to edge lists, so symmetrize "
                                  "when converting instead");
}

}  // namespace

namespace {

// load_graph and load_weighted_graph: a binary file of the right kind is
// loaded as it is; a text file is read and built.
template <class Graph>
Graph load(const std::string& path, const LoadOptions& options) {
  constexpr bool kW = Graph::kWeighted;
  const FileFormat format = file_format(path);
  if (format == (kW ? FileFormat::serialized : FileFormat::weighted_serialized))
    throw GraphFileError(path, 0, kW ? "an unweighted graph (.sg); this kernel needs a weighted one (.wsg)"
                                     : "a weighted graph (.wsg); this kernel needs an unweighted one (.sg)");
  if (format == FileFormat::serialized || format == FileFormat::weighted_serialized) {
    Graph g = [&] {
      if constexpr (kW)
        return read_weighted_serialized(path, forward(options));
      else
        return read_serialized(path, forward(options));
    }();
    refuse_symmetrize(path, g.directed(), options.symmetrize);
    if constexpr (kW)
      if (options.read.require_nonnegative_weights && g.num_edges_directed() > 0 && g.min_weight() < 0)
        throw GraphFileError(path, 0, "has a negative weight (" + std::to_string(g.min_weight()) +
                                          "); shortest paths need weights >= 0");
    return g;
  }
  ReadOptions read = options.read;
  read.progress = forward(options);
  auto edges = [&] {
    if constexpr (kW)
      return read_weighted_edge_list(path, read);
    else
      return read_edge_list(path, read);
  }();
  return build_graph(std::move(edges), {.symmetrize = options.symmetrize, .progress = forward(options)});
}

}  // namespace

CSRGraph load_graph(const std::string& path, const LoadOptions& options) { return load<CSRGraph>(path, options); }

WeightedCSRGraph load_weighted_graph(const std::string& path, const LoadOptions& options) {
  return load<WeightedCSRGraph>(path, options);
}

}  // namespace weft::graph
