#pragma once
// Writing graphs: weft's binary CSR (.sg, weighted .wsg), which loads at
// memory speed, and text edge lists (.el, .wel).
//
// The binary layout (all integers little-endian; docs/graph.md):
//
//   offset  size       field
//   0       8          magic "WEFTCSR1"
//   8       4          flags: bit 0 directed, bit 1 weighted
//   12      4          bytes per vertex id (4)
//   16      8          num_nodes n
//   24      8          out entries m (the neighbour array's length)
//   32      8          in entries (m for a directed graph, 0 otherwise)
//   40      8*(n+1)    out offsets
//   ...     4*m        out neighbours (8*m weighted: id, weight)
//   ...                in offsets and in neighbours, when directed
//   end-8   8          checksum
//
// The checksum is FNV-1a 64 (over 64-bit words) of the digests of the
// sections: the header, then each array. A section's digest is FNV-1a 64 of
// its 1 MiB blocks' digests, and a block's digest FNV-1a 64 over its 64-bit
// words (the last one zero-padded): blocks are hashed in parallel, and the
// result does not depend on how many.
//
// read_serialized (reader.hpp) checks the magic, the sizes against the
// file's length, the checksum and the graph itself (CSRGraph::validate).

#include <string>

#include "weft/apps/graph/csr_graph.hpp"

namespace weft::graph {

// Writes g to `path` (suffix .sg, or .wsg for a weighted graph: anything else
// is a std::invalid_argument). Throws std::runtime_error naming the file when
// it cannot be written.
void write_serialized(const CSRGraph& g, const std::string& path);
void write_serialized(const WeightedCSRGraph& g, const std::string& path);

// Writes every edge as a line "u v" (.el) or "u v w" (.wel); an undirected
// graph's edges once each (u < v), so read it back with symmetrize.
void write_edge_list(const CSRGraph& g, const std::string& path);
void write_edge_list(const WeightedCSRGraph& g, const std::string& path);

}  // namespace weft::graph
