#pragma once
// Reading graphs from files. The format comes from the file's suffix:
//
//   .el    edge list: one edge "u v" per line (0-based ids)
//   .wel   weighted edge list: "u v w"
//   .mtx   Matrix Market coordinate file (1-based; pattern, integer or real
//          values; general or symmetric, symmetric meaning undirected)
//   .gr    DIMACS shortest-path file: "p sp n m", then arcs "a u v w"
//          (1-based; read as 0-based)
//   .sg    weft's binary CSR (writer.hpp); .wsg the weighted one
//
// In the text formats blank lines are skipped, and so are comments: lines
// starting with '#' or '%' (.el/.wel), '%' (.mtx), 'c' (.gr). Blanks and
// tabs separate fields; a line with fewer or more fields than its format
// has is an error. docs/graph.md describes each format.
//
// Every problem is a GraphFileError (a std::invalid_argument) whose message
// starts "FILE:LINE: " (or "FILE: " for whole-file problems) and says what
// was expected and what was found: a missing or unreadable file, an empty
// file, a malformed line, an id outside the declared range (.mtx, .gr) or
// negative, a weight that is not a 32-bit integer, a count in a header that
// the body does not match, a negative weight when ReadOptions asks for
// non-negative ones (SSSP), a binary file that is truncated or not weft's.
//
// Text files are parsed in parallel: the file is read into memory and split
// at line boundaries into one piece per 4 MiB, each parsed on its own.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/edge_list.hpp"
#include "weft/apps/graph/progress.hpp"
#include "weft/apps/graph/types.hpp"

namespace weft::graph {

// A file that cannot be read as a graph. line() is 0 when the problem is not
// on one line.
class GraphFileError : public std::invalid_argument {
 public:
  GraphFileError(const std::string& path, std::int64_t line, const std::string& problem);
  const std::string& path() const noexcept { return path_; }
  std::int64_t line() const noexcept { return line_; }

 private:
  std::string path_;
  std::int64_t line_;
};

enum class FileFormat { edge_list, weighted_edge_list, matrix_market, dimacs, serialized, weighted_serialized };

// The format named by the path's suffix; GraphFileError for any other.
FileFormat file_format(const std::string& path);
// True for .wel, .gr, .wsg (and .mtx, whose weights depend on its header).
bool format_has_weights(FileFormat format);

struct ReadOptions {
  // A negative weight is an error naming its line (SSSP's inputs).
  bool require_nonnegative_weights = false;
  // Weights given to the edges of an unweighted file read as weighted
  // (GAPBS: uniform in [1, 255]).
  std::uint64_t weight_seed = kDefaultSeed;
  ProgressFn progress = {};  // the "read" step
};

// A text file (.el, .wel, .mtx, .gr) as an edge list; weights are dropped.
EdgeList read_edge_list(const std::string& path, const ReadOptions& options = {});
// A text file as a weighted edge list; an unweighted file (.el, a pattern
// .mtx) gets random weights in [1, 255] (generator.hpp, add_random_weights).
WEdgeList read_weighted_edge_list(const std::string& path, const ReadOptions& options = {});

// A binary .sg (unweighted) or .wsg (weighted) file written by
// write_serialized. The whole graph is checked (CSRGraph::validate) after
// loading; a weighted graph read from .sg (or the reverse) is an error.
CSRGraph read_serialized(const std::string& path, const ProgressFn& progress = {});
WeightedCSRGraph read_weighted_serialized(const std::string& path, const ProgressFn& progress = {});

struct LoadOptions {
  bool symmetrize = false;  // -s: for text formats (a .sg file is stored as it was built)
  ReadOptions read = {};
  ProgressFn progress = {};  // the "read" and "build" steps
};

// Any supported file as a graph: text formats are read and built
// (builder.hpp), binary ones loaded. -s on a binary file that holds a
// directed graph is an error (symmetrize when converting instead).
CSRGraph load_graph(const std::string& path, const LoadOptions& options = {});
WeightedCSRGraph load_weighted_graph(const std::string& path, const LoadOptions& options = {});

}  // namespace weft::graph
