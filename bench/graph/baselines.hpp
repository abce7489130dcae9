#pragma once
// `weft-bench graph`'s baselines: each GAP kernel written with plain OpenMP
// (libgomp), the same algorithm as weft's (the per-vertex work is the very
// same code, weft/apps/graph/detail/*_steps.hpp; only the parallel
// structure differs: `#pragma omp parallel for` and regions where weft uses
// parallel_for, parallel_reduce and weft::parallel), with GAPBS's schedule
// clauses; and with oneTBB where it is natural (PageRank and TC, one
// reduction each). They return weft's result types, so weft's serial
// verifiers check them.

#include "weft/graph.hpp"

namespace weft::bench::graph {

namespace wg = weft::graph;

wg::BfsResult omp_bfs(const wg::CSRGraph& g, wg::NodeId source);
wg::SsspResult omp_sssp(const wg::WeightedCSRGraph& g, wg::NodeId source, wg::Weight delta);
wg::PageRankResult omp_pagerank(const wg::CSRGraph& g, const wg::PageRankOptions& options);
wg::CcResult omp_afforest(const wg::CSRGraph& g);
wg::CcResult omp_shiloach_vishkin(const wg::CSRGraph& g);
wg::BcResult omp_bc(const wg::CSRGraph& g, std::span<const wg::NodeId> sources);
wg::TcResult omp_tc(const wg::CSRGraph& g);

wg::PageRankResult tbb_pagerank(const wg::CSRGraph& g, const wg::PageRankOptions& options);
wg::TcResult tbb_tc(const wg::CSRGraph& g);

}  // namespace weft::bench::graph
