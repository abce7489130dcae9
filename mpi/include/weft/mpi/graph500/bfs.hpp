#pragma once
// The Graph500 BFS (kernel 2) across MPI ranks on weft: level-synchronous,
// direction-optimizing (Beamer, Asanović, Patterson, SC'12, §3-4: the same
// alpha/beta heuristic as weft::graph::bfs, on global counts), with
// communication overlapped with computation through ULTs:
//
//  * top-down level: weft::parallel_for over the local frontier; a local
//    neighbour is claimed with a CAS, a remote one becomes a (vertex, parent)
//    pair in a per-worker, per-destination chunk that is sent (isend) the
//    moment it fills, while a receiver ULT applies the chunks arriving from
//    the other ranks as they come (several exchanges in flight, no
//    all-to-all); a one-claim end marker (with the number of chunks sent)
//    closes a level's stream to each rank;
//  * bottom-up level: the frontier is a bitmap over all vertices, each rank
//    contributing its words through an iallgather; while that is in flight
//    (a ULT waits on it, which drives MPI's progress) every unvisited local
//    vertex scans its local neighbours against the local part of the
//    frontier, and only the vertices still unvisited then scan their remote
//    neighbours against the gathered bitmap (rows are sorted, so the local
//    neighbours are one contiguous range: each edge is looked at once).
//
//   auto r = weft::mpi::graph500::bfs(g, root);   // r.parent[l]: parent of local vertex l (global id), -1 unreached
//
// Collective: every rank calls it with the same root, from a ULT of a live
// weft::Runtime.

#include <cstdint>
#include <vector>

#include "weft/apps/graph/bfs.hpp"
#include "weft/mpi/graph500/distributed_graph.hpp"

namespace weft::mpi::graph500 {

// One level of a search, as this rank saw it.
struct LevelStats {
  bool bottom_up = false;
  std::int64_t frontier = 0;        // vertices in the level's frontier, all ranks
  std::uint64_t bytes_sent = 0;     // by this rank during the level (pairs or bitmap words; not counts/reductions)
  std::uint64_t messages_sent = 0;  // by this rank (point-to-point chunks and end markers, or 1 per allgather)
};

struct BfsResult {
  weft::graph::Array<NodeId> parent;  // per local vertex: parent's global id; -1 unreached; root's is root
  std::vector<LevelStats> levels;
};

struct BfsOptions {
  int alpha = 15;  // top-down -> bottom-up when m_f > m_u / alpha (>= 1)
  int beta = 18;   // bottom-up -> top-down when the frontier shrinks below n / beta (>= 1)
  weft::graph::BfsDirection direction = weft::graph::BfsDirection::optimizing;
  int chunk_pairs = 4096;  // (vertex, parent) pairs per top-down message (>= 1)
};

// Throws std::invalid_argument for a root that is not a vertex or bad options.
BfsResult bfs(const DistributedGraph& g, NodeId root, const BfsOptions& options = {});

}  // namespace weft::mpi::graph500
