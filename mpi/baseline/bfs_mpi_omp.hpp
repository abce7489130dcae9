#pragma once
// The baseline the Graph500 BFS on weft is measured against (issue #18): a
// plain MPI+OpenMP level-synchronous top-down BFS over the same distributed
// graph (same generator, same 1D partition). Each level: an OpenMP parallel
// loop over the local frontier claims local neighbours with a CAS and
// buckets remote ones per destination rank; one blocking MPI_Alltoall of the
// counts and one blocking MPI_Alltoallv of the (vertex, parent) pairs; an
// OpenMP loop applies the received pairs; a blocking MPI_Allreduce of the
// next frontier's size ends the level. No overlap, no bottom-up.
//
// Call it from a plain thread (main()), every rank with the same root; the
// OpenMP team has `threads` threads (0: omp_get_max_threads()). Not installed: a benchmark
// and test baseline only. (Under ThreadSanitizer it is built without
// OpenMP, serial: libgomp is not instrumented.)

#include "weft/mpi/graph500/bfs.hpp"

namespace weft::mpi::graph500 {

BfsResult bfs_mpi_omp(const DistributedGraph& g, NodeId root, int threads = 0);

}  // namespace weft::mpi::graph500
