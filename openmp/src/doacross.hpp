#pragma once
// Cross-iteration dependences of ordered(n) loops (internal): `ordered
// depend(sink: v)` waits until iteration v has executed `ordered
// depend(source)` (OpenMP 5.2 §15.9.7).
//
// GCC hands the library the loop nest normalized: dimension d runs 0 ..
// counts[d]-1, only dimension 0 is shared among the members, and the inner
// dimensions of one outer iteration run in order on one member. So the
// posted part of an outer iteration i is a prefix of its inner iterations in
// lexicographic order: one word per outer iteration holds 1 + the flattened
// inner position posted last, and wait(v) waits until done[v0] > flat(v1..).

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace weft::omp {

struct Doacross {
  std::vector<std::uint64_t> counts;                 // iterations per dimension
  std::unique_ptr<std::atomic<std::uint64_t>[]> done;  // [counts[0]]
};

Doacross* make_doacross(unsigned dims, const std::uint64_t* counts);
void delete_doacross(Doacross* d);

// The calling member's iteration `v` (dims values) has reached its source.
void doacross_post(Doacross& d, const std::uint64_t* v);
// Waits until iteration `v` has posted; returns at once when v lies outside
// the iteration space (a sink before the first iteration, OpenMP's rule).
void doacross_wait(Doacross& d, const std::uint64_t* v);

}  // namespace weft::omp
