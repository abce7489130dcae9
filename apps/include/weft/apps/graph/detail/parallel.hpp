#pragma once
// Small parallel building blocks of the graph code (internal), all on weft's
// public parallel layer: running a whole kernel on one ULT, filling and
// copying arrays with a static loop (NUMA first touch), prefix sums.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "weft/apps/default_runtime.hpp"
#include "weft/apps/parallel_for.hpp"
#include "weft/apps/parallel_reduce.hpp"
#include "weft/apps/schedule.hpp"
#include "weft/runtime/runtime.hpp"
#include "weft/runtime/this_ult.hpp"

namespace weft::graph::detail {

// Runs f() on a ULT and returns what it returns: at once when the caller is a
// ULT, else on worker 0 of the runtime a parallel loop would use (the most
// recent live weft::Runtime, else the default one), blocking until done. A
// kernel called from main() then pays one hand-off, not one per loop.
template <class F>
decltype(auto) on_runtime(F&& f) {
  if (this_ult::inside()) return std::forward<F>(f)();
  Runtime* rt = Runtime::current();
  if (rt == nullptr) rt = &default_runtime();
  return rt->spawn_on(0, std::forward<F>(f)).join();
}

// Elements per block of the static fill and copy loops: 64 KiB of memory.
template <class T>
constexpr std::size_t kBlockElements = std::max<std::size_t>(1, (64u << 10) / sizeof(T));

// Calls body(lo, hi) over [0, n) in blocks of kBlockElements<T>, the blocks
// split statically among the workers (block k of P on worker k): the same
// loop shape every time, so the same worker touches the same pages. Short
// ranges run on the caller.
template <class T, class Body>
void for_blocks_static(std::size_t n, Body&& body) {
  const std::size_t block = kBlockElements<T>;
  const std::size_t blocks = (n + block - 1) / block;
  if (blocks <= 1) {
    if (n > 0) body(std::size_t{0}, n);
    return;
  }
  weft::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    body(b * block, std::min(n, (b + 1) * block));
  }, schedule_static());
}

template <class T>
void parallel_fill(T* data, std::size_t n, const T& value) {
  for_blocks_static<T>(n, [&](std::size_t lo, std::size_t hi) { std::fill(data + lo, data + hi, value); });
}

template <class T>
void parallel_copy(const T* from, std::size_t n, T* to) {
  for_blocks_static<T>(n, [&](std::size_t lo, std::size_t hi) {
    std::memcpy(static_cast<void*>(to + lo), from + lo, (hi - lo) * sizeof(T));
  });
}

// Vertices per iteration of for_each_vertex's loop.
inline constexpr std::int64_t kVertexBlock = 256;

// body(u) for every vertex u in [0, n), in parallel: a weft loop over blocks
// of kVertexBlock vertices, each block an inner loop here. A light body is
// then inlined into that inner loop, where as the body of parallel_for
// itself GCC keeps it out of line (a call per vertex; 25-40 % more
// instructions in CC's loops than OpenMP's). `schedule` applies to the
// blocks.
template <class Body>
void for_each_vertex(std::int32_t n, Body&& body, const Schedule& schedule = schedule_adaptive()) {
  const std::int64_t blocks = (static_cast<std::int64_t>(n) + kVertexBlock - 1) / kVertexBlock;
  weft::parallel_for(std::int64_t{0}, blocks, [&](std::int64_t b) {
    const auto hi = static_cast<std::int32_t>(std::min<std::int64_t>(n, (b + 1) * kVertexBlock));
    for (auto u = static_cast<std::int32_t>(b * kVertexBlock); u < hi; ++u) body(u);
  }, schedule);
}

// Exclusive prefix sum: out[i] = in[0] + ... + in[i-1] for i in [0, n],
// computed in parallel blocks (two passes, as GAPBS's ParallelPrefixSum).
// `out` has n + 1 elements; returns out[n].
template <class In, class Out>
Out parallel_prefix_sum(const In* in, std::size_t n, Out* out) {
  constexpr std::size_t kBlock = 1 << 16;
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  if (blocks <= 1) {
    Out total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = total;
      total += static_cast<Out>(in[i]);
    }
    out[n] = total;
    return total;
  }
  std::vector<Out> block_sum(blocks + 1, 0);
  weft::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    Out s = 0;
    for (std::size_t i = b * kBlock, e = std::min(n, (b + 1) * kBlock); i < e; ++i) s += static_cast<Out>(in[i]);
    block_sum[b] = s;
  }, schedule_static());
  Out total = 0;
  for (std::size_t b = 0; b < blocks; ++b) total += std::exchange(block_sum[b], total);
  weft::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    Out s = block_sum[b];
    for (std::size_t i = b * kBlock, e = std::min(n, (b + 1) * kBlock); i < e; ++i) {
      out[i] = s;
      s += static_cast<Out>(in[i]);
    }
  }, schedule_static());
  out[n] = total;
  return total;
}

}  // namespace weft::graph::detail
