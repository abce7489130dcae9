#pragma once
// Argument checks shared by the kernels (private to src/graph).

#include <stdexcept>
#include <string>

#include "weft/apps/graph/types.hpp"

namespace weft::graph::detail {

template <class Graph>
void check_source(const Graph& g, NodeId source, const char* kernel) {
  if (source < 0 || source >= g.num_nodes())
    throw std::invalid_argument(std::string(kernel) + ": source " + std::to_string(source) +
                                " is not a vertex (the graph has " + std::to_string(g.num_nodes()) + " vertices)");
}

}  // namespace weft::graph::detail
