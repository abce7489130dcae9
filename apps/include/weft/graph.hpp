#pragma once
// weft's graph layer: the six GAP benchmark kernels (BFS, SSSP, PageRank,
// connected components, betweenness centrality, triangle counting) on weft's
// parallel layer, with the CSR graph, its builder, generators, file readers
// and writer, and a serial verifier per kernel. docs/graph.md describes them;
// `weft-graph` is the GAPBS-style command line.
//
// A separate umbrella from <weft/weft.hpp>: the graph layer is a workload
// built on weft, not part of every program's API; its code is in the
// weft_apps library (link weft::weft).

#include "weft/apps/graph/array.hpp"
#include "weft/apps/graph/betweenness.hpp"
#include "weft/apps/graph/bfs.hpp"
#include "weft/apps/graph/builder.hpp"
#include "weft/apps/graph/connected_components.hpp"
#include "weft/apps/graph/csr_graph.hpp"
#include "weft/apps/graph/edge_list.hpp"
#include "weft/apps/graph/generator.hpp"
#include "weft/apps/graph/pagerank.hpp"
#include "weft/apps/graph/progress.hpp"
#include "weft/apps/graph/reader.hpp"
#include "weft/apps/graph/source_picker.hpp"
#include "weft/apps/graph/sssp.hpp"
#include "weft/apps/graph/triangle_count.hpp"
#include "weft/apps/graph/types.hpp"
#include "weft/apps/graph/verification.hpp"
#include "weft/apps/graph/writer.hpp"
