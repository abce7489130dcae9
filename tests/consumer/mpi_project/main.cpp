// A program using the installed weft::mpi (find_package(weft COMPONENTS mpi)):
// one rank (MPI's singleton start), a reduction waited for by a ULT, and a
// small Graph500 search, validated.
#include <cstdio>

#include <weft/mpi.hpp>
#include <weft/mpi/graph500/bfs.hpp>
#include <weft/mpi/graph500/validation.hpp>
#include <weft/runtime.hpp>

int main(int argc, char** argv) {
  weft::mpi::Environment env(argc, argv);
  weft::Config config;
  config.workers = 2;
  config.pin_workers = false;
  weft::Runtime rt(config);
  return rt.run([] {
    long x = 41;
    weft::mpi::iallreduce(std::span<long>(&x, 1), MPI_SUM).wait();
    namespace g500 = weft::mpi::graph500;
    const g500::DistributedGraph g = g500::build_kronecker_graph({.scale = 10});
    const g500::NodeId root = g500::pick_search_keys(g, 1, 1)[0];
    const g500::Validation v = g500::validate_bfs(g, root, g500::bfs(g, root).parent);
    std::printf("weft::mpi consumer: %d rank(s), sum %ld, bfs from %d reached %lld vertices: %s\n", weft::mpi::size(), x,
                root, static_cast<long long>(v.vertices_reached), v ? "valid" : v.problem.c_str());
    return x == 41 && v ? 0 : 1;
  });
}
