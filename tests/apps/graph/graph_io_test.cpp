// Reading and writing graphs (reader.hpp, writer.hpp): every text format on
// good files (comments, blank lines, tabs, CRLF), each malformed case with
// the file, the line and what was expected in the message, missing, empty
// and unknown files, and the binary format's round trip and its defences
// (magic, truncation, corruption, weighted vs unweighted).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "graph_test_support.hpp"

namespace weft::graph::test {
namespace {

std::vector<Edge> edges_of(const EdgeList& el) { return {el.edges.begin(), el.edges.end()}; }
std::vector<WEdge> edges_of(const WEdgeList& el) { return {el.edges.begin(), el.edges.end()}; }

// The message of the GraphFileError that f throws ("no error" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const GraphFileError& e) {
    return e.what();
  }
  return "no error";
}

// Expects reading `content` as `name` to fail with `line` and `expected`
// (a part of the message) named.
void expect_read_error(const ScratchDir& dir, const std::string& name, const std::string& content, int line,
                       const std::string& expected, bool weighted = false, bool nonnegative = false) {
  const std::string path = dir.write(name, content);
  const std::string where = path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": ";
  const ReadOptions o{.require_nonnegative_weights = nonnegative};
  const std::string got = weighted ? error_of([&] { read_weighted_edge_list(path, o); })
                                   : error_of([&] { read_edge_list(path, o); });
  EXPECT_EQ(got.rfind(where, 0), 0u) << "message does not start with '" << where << "': " << got;
  EXPECT_NE(got.find(expected), std::string::npos) << "message lacks '" << expected << "': " << got;
}

TEST(GraphReaders, EdgeListsWithCommentsBlanksTabsAndCrlf) {
  ScratchDir dir;
  const std::string el = dir.write("g.el", "# a comment\n0 1\n\n  1\t2  \r\n% another\n2 0\n3 3");
  const EdgeList e = read_edge_list(el);
  EXPECT_EQ(edges_of(e), (std::vector<Edge>{{0, 1}, {1, 2}, {2, 0}, {3, 3}}));
  EXPECT_EQ(e.num_nodes, -1);
  EXPECT_FALSE(e.symmetric);
  const std::string wel = dir.write("g.wel", "0 1 5\n1 2 -7\n");
  EXPECT_EQ(edges_of(read_weighted_edge_list(wel)), (std::vector<WEdge>{{0, 1, 5}, {1, 2, -7}}));
  // Unweighted reading of a weighted file drops the weights; weighted reading
  // of an unweighted one adds weights in [1, 255].
  EXPECT_EQ(edges_of(read_edge_list(wel)), (std::vector<Edge>{{0, 1}, {1, 2}}));
  for (const WEdge& w : read_weighted_edge_list(el).edges) EXPECT_TRUE(w.w >= 1 && w.w <= 255);
}

TEST(GraphReaders, MatrixMarketAndDimacs) {
  ScratchDir dir;
  const std::string pattern = dir.write("p.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n4 4 3\n1 2\n2 3\n4 1\n");
  const EdgeList p = read_edge_list(pattern);
  EXPECT_EQ(edges_of(p), (std::vector<Edge>{{0, 1}, {1, 2}, {3, 0}}));
  EXPECT_EQ(p.num_nodes, 4);
  EXPECT_FALSE(p.symmetric);
  const std::string sym = dir.write("s.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 4\n3 2 9\n");
  const WEdgeList s = read_weighted_edge_list(sym);
  EXPECT_EQ(edges_of(s), (std::vector<WEdge>{{1, 0, 4}, {2, 1, 9}}));
  EXPECT_TRUE(s.symmetric);
  const CSRGraph sg = load_graph(sym);
  EXPECT_FALSE(sg.directed());
  EXPECT_EQ(sg.num_edges(), 2);
  const std::string real = dir.write("r.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 3.0\n");
  EXPECT_EQ(edges_of(read_weighted_edge_list(real)), (std::vector<WEdge>{{0, 1, 3}}));
  const std::string gr = dir.write("g.gr", "c road\np sp 3 2\nc arcs\na 1 2 7\na 3 1 2\n");
  const WEdgeList d = read_weighted_edge_list(gr);
  EXPECT_EQ(edges_of(d), (std::vector<WEdge>{{0, 1, 7}, {2, 0, 2}}));
  EXPECT_EQ(d.num_nodes, 3);
  // An isolated last vertex is kept by the declared count.
  EXPECT_EQ(load_weighted_graph(dir.write("iso.gr", "p sp 5 1\na 1 2 3\n")).num_nodes(), 5);
}

TEST(GraphReaders, MalformedEdgeLists) {
  ScratchDir dir;
  expect_read_error(dir, "a.el", "0 1\n1 x\n", 2, "expected a vertex id (an integer), found 'x'");
  expect_read_error(dir, "b.el", "0 1\n# c\n\n5\n", 4, "expected 2 fields 'u v', found 1");
  expect_read_error(dir, "c.el", "0 1 2\n", 1, "expected 2 fields 'u v', found 3");
  expect_read_error(dir, "d.el", "0 1\n-1 2\n", 2, "vertex id -1 is negative");
  expect_read_error(dir, "e.el", "0 3000000000\n", 1, "vertex id 3000000000 is too large");
  expect_read_error(dir, "f.wel", "0 1 2\n1 2 abc\n", 2, "expected an integer weight, found 'abc'");
  expect_read_error(dir, "g.wel", "0 1 5000000000\n", 1, "weight 5000000000 does not fit in 32 bits");
  expect_read_error(dir, "h.wel", "0 1 2\n1 2 -3\n", 2, "weight -3 is negative", true, true);
  expect_read_error(dir, "i.el", "# only comments\n\n", 0, "no edges in the file");
  expect_read_error(dir, "j.el", "", 0, "empty file");
}

TEST(GraphReaders, MalformedMatrixMarketFiles) {
  ScratchDir dir;
  const std::string banner = "%%MatrixMarket matrix coordinate pattern general\n";
  expect_read_error(dir, "a.mtx", "4 4 1\n1 2\n", 1, "expected the Matrix Market banner");
  expect_read_error(dir, "b.mtx", "%%MatrixMarket matrix array real general\n", 1, "only coordinate matrices");
  expect_read_error(dir, "c.mtx", "%%MatrixMarket matrix coordinate complex general\n", 1, "unsupported field 'complex'");
  expect_read_error(dir, "d.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n", 1,
                    "unsupported symmetry 'skew-symmetric'");
  expect_read_error(dir, "e.mtx", banner + "% no size\n", 0, "no size line");
  expect_read_error(dir, "f.mtx", banner + "4 four 1\n", 2, "expected the size line");
  expect_read_error(dir, "g.mtx", banner + "4 4 2\n1 2\n5 1\n", 4, "vertex id 5 is outside 1..4 (declared on line 2)");
  expect_read_error(dir, "h.mtx", banner + "4 4 2\n1 2\n0 1\n", 4, "vertex id 0 is outside 1..4");
  expect_read_error(dir, "i.mtx", banner + "4 4 3\n1 2\n2 3\n", 2, "the header declares 3 entries, the file has 2");
  expect_read_error(dir, "j.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 2.5\n", 3,
                    "weight 2.5 is not a 32-bit integer", true);
  expect_read_error(dir, "k.mtx", banner + "2 2 1\n1 2 7\n", 3, "expected 2 fields 'row column', found 3");
}

TEST(GraphReaders, MalformedDimacsFiles) {
  ScratchDir dir;
  expect_read_error(dir, "a.gr", "c x\na 1 2 3\np sp 2 1\n", 2, "arc line before the problem line");
  expect_read_error(dir, "b.gr", "p sp two 1\n", 1, "expected the problem line 'p sp <nodes> <arcs>'");
  expect_read_error(dir, "c.gr", "p max 2 1\n", 1, "expected the problem line");
  expect_read_error(dir, "d.gr", "p sp 2 1\na 1 2 3\np sp 2 1\n", 3, "a second problem line (the first is on line 1)");
  expect_read_error(dir, "e.gr", "p sp 2 1\na 1 3 3\n", 2, "vertex id 3 is outside 1..2");
  expect_read_error(dir, "f.gr", "p sp 3 2\na 1 2 3\n", 1, "the header declares 2 arcs, the file has 1");
  expect_read_error(dir, "g.gr", "p sp 3 1\nx 1 2\n", 2, "expected an arc 'a <from> <to> <weight>'");
  expect_read_error(dir, "h.gr", "p sp 3 1\na 1 2\n", 2, "expected 3 fields 'a <from> <to> <weight>', found 2");
  expect_read_error(dir, "i.gr", "c nothing\n", 0, "no problem line");
  expect_read_error(dir, "j.gr", "p sp 3 1\na 1 2 -4\n", 2, "weight -4 is negative", true, true);
}

TEST(GraphReaders, MissingUnknownAndDirectoryPaths) {
  ScratchDir dir;
  EXPECT_NE(error_of([&] { read_edge_list(dir.path("none.el")); }).find("none.el: cannot open: No such file"), std::string::npos);
  EXPECT_NE(error_of([&] { load_graph(dir.path("none.sg")); }).find("none.sg: cannot open"), std::string::npos);
  EXPECT_NE(error_of([&] { read_edge_list(dir.write("g.txt", "0 1\n")); }).find("unknown format suffix '.txt'"), std::string::npos);
  EXPECT_NE(error_of([&] { read_edge_list(dir.write("noext", "0 1\n")); }).find("no format suffix"), std::string::npos);
  std::filesystem::create_directory(dir.path("d.el"));
  EXPECT_NE(error_of([&] { read_edge_list(dir.path("d.el")); }).find("is a directory"), std::string::npos);
  EXPECT_NE(error_of([&] { read_edge_list(dir.write("g.sg", "x")); }).find("a binary graph, not an edge list"), std::string::npos);
}

// A large file crosses several parse pieces: line numbers stay right.
TEST(GraphReaders, LineNumbersSurviveParallelPieces) {
  ScratchDir dir;
  std::string text;
  const int lines = kSanitized ? 400'000 : 1'200'000;  // > 4 MiB: more than one piece
  for (int i = 0; i < lines; ++i) text += std::to_string(i % 1000) + " " + std::to_string((i * 7) % 1000) + "\n";
  const EdgeList ok = read_edge_list(dir.write("big.el", text));
  EXPECT_EQ(ok.edges.size(), static_cast<std::size_t>(lines));
  EXPECT_EQ(ok.edges[lines - 1].u, (lines - 1) % 1000);
  text += "1 2\nbroken\n";
  expect_read_error(dir, "bad.el", text, lines + 2, "expected 2 fields");
}

// ------------------------------------------------------------------ binary

TEST(GraphBinary, RoundTripsUndirectedDirectedAndWeighted) {
  ScratchDir dir;
  const CSRGraph g = generated({GraphKind::kronecker, 10});
  write_serialized(g, dir.path("g.sg"));
  const CSRGraph back = read_serialized(dir.path("g.sg"));
  EXPECT_FALSE(back.directed());
  EXPECT_EQ(to_vector<EdgeOffset>(back.out_offsets()), to_vector<EdgeOffset>(g.out_offsets()));
  EXPECT_EQ(to_vector<NodeId>(back.out_neighbors()), to_vector<NodeId>(g.out_neighbors()));
  const CSRGraph d = generated_directed(9);
  write_serialized(d, dir.path("d.sg"));
  const CSRGraph dback = load_graph(dir.path("d.sg"));
  EXPECT_TRUE(dback.directed());
  EXPECT_EQ(to_vector<NodeId>(dback.in_neighbors()), to_vector<NodeId>(d.in_neighbors()));
  const WeightedCSRGraph w = generated_weighted({GraphKind::uniform, 9});
  write_serialized(w, dir.path("w.wsg"));
  const WeightedCSRGraph wback = load_weighted_graph(dir.path("w.wsg"));
  EXPECT_EQ(to_vector<WNode>(wback.out_neighbors()), to_vector<WNode>(w.out_neighbors()));
  EXPECT_EQ(wback.max_weight(), w.max_weight());
  // Text output read back (undirected edges written once: symmetrize).
  write_edge_list(g, dir.path("g.el"));
  EXPECT_EQ(to_vector<NodeId>(load_graph(dir.path("g.el"), {.symmetrize = true}).out_neighbors()),
            to_vector<NodeId>(g.out_neighbors()));
  write_edge_list(w, dir.path("w.wel"));
  EXPECT_EQ(to_vector<WNode>(load_weighted_graph(dir.path("w.wel"), {.symmetrize = true}).out_neighbors()),
            to_vector<WNode>(w.out_neighbors()));
}

TEST(GraphBinary, RejectsForeignTruncatedCorruptAndMismatchedFiles) {
  ScratchDir dir;
  const CSRGraph g = generated({GraphKind::uniform, 8});
  const std::string path = dir.path("g.sg");
  write_serialized(g, path);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto read = [&](const std::string& name, const std::string& content) {
    return error_of([&] { read_serialized(dir.write(name, content)); });
  };
  EXPECT_NE(read("gapbs.sg", std::string(1, '\0') + bytes.substr(1)).find("not a weft binary graph"), std::string::npos);
  EXPECT_NE(read("short.sg", bytes.substr(0, bytes.size() - 5)).find("truncated"), std::string::npos);
  EXPECT_NE(read("tiny.sg", bytes.substr(0, 10)).find("shorter than the 40-byte header"), std::string::npos);
  EXPECT_NE(read("long.sg", bytes + "xx").find("too long"), std::string::npos);
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  EXPECT_NE(read("flip.sg", flipped).find("checksum mismatch"), std::string::npos);
  EXPECT_NE(read("empty.sg", "").find("empty file"), std::string::npos);
  // Weighted vs unweighted, and the suffix.
  EXPECT_NE(error_of([&] { load_weighted_graph(path); }).find("an unweighted graph (.sg)"), std::string::npos);
  EXPECT_NE(error_of([&] { read_weighted_serialized(dir.write("x.wsg", bytes)); }).find("holds an unweighted graph"),
            std::string::npos);
  EXPECT_THROW(write_serialized(g, dir.path("g.wsg")), std::invalid_argument);
  EXPECT_THROW(write_edge_list(g, dir.path("g.wel")), std::invalid_argument);
  // -s on a directed binary graph.
  write_serialized(generated_directed(8), dir.path("d.sg"));
  EXPECT_NE(error_of([&] { load_graph(dir.path("d.sg"), {.symmetrize = true}); }).find("holds a directed graph"),
            std::string::npos);
  // Negative weights for SSSP.
  write_serialized(build_graph(wedge_list({{0, 1, -2}})), dir.path("n.wsg"));
  EXPECT_NE(error_of([&] { load_weighted_graph(dir.path("n.wsg"), {.read = {.require_nonnegative_weights = true}}); })
                .find("negative weight"),
            std::string::npos);
}

}  // namespace
}  // namespace weft::graph::test
