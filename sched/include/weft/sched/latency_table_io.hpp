#pragma once
// A latency table (MCTOP-ALG step 1's output, mctop_alg.hpp) as text, so that
// a measurement taken on one machine can be inferred from, compared and kept
// offline (`weft-topo infer --table FILE`, `weft-topo latency --save-table
// FILE`). Format: docs/topology-format.md, "Latency tables".

#include <iosfwd>
#include <string>
#include <vector>

#include "weft/sched/mctop_alg.hpp"
#include "weft/sched/topology_io.hpp"

namespace weft::sched {

// A table as read from text: the latencies and, when the text has a 'nodes'
// line, the OS NUMA node of each row (what AlgOptions::os_node_of_row takes).
struct LatencyTableFile {
  LatencyTable table;
  std::vector<int> os_nodes;  // empty: the file does not say
};

// Malformed text throws TopologyFormatError ("<source>:<line>: expected ...,
// got '...'"), as topology files do. `source` names the input in messages.
LatencyTableFile read_latency_table(std::istream& in, const std::string& source = "<stream>");
LatencyTableFile load_latency_table(const std::string& path);  // throws std::runtime_error if unreadable

// Writes `comments` as '#' lines, then a 'cpus' line, a 'nodes' line when
// `os_nodes` is given, and the rows.
void save_latency_table(const LatencyTable& table, std::ostream& out, const std::vector<std::string>& comments = {},
                        const std::vector<int>& os_nodes = {});
void save_latency_table(const LatencyTable& table, const std::string& path,
                        const std::vector<std::string>& comments = {}, const std::vector<int>& os_nodes = {});

}  // namespace weft::sched
