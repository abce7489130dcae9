#pragma once
// The key kernels of parallel_sort: merging two sorted runs and sorting one
// chunk, for 32- and 64-bit integer keys in ascending or descending order,
// with the instruction set chosen at run time.
//
// Thesis §7.7.2 (mctop_sort_sse): "Using 128-bit instructions, we can create
// a bitonic merge network that merges 8 elements at a time." The AVX2 and
// AVX-512 kernels are that network on wider registers: two sorted vectors of
// W keys (W = 8 or 16 for 32-bit keys, 4 or 8 for 64-bit keys) go through a
// bitonic merge (reverse one, min/max, log2(W) half-cleaner stages in
// registers); the lower W keys are stored and the upper W stay in a register
// while the next block comes from the run whose next key is smaller (Inoue et
// al.'s SIMD merge). The chunk sort is a bottom-up mergesort built from the
// same network: one bitonic sorting network per W-block, then merge passes
// (the first ones inside cache-sized blocks) ping-ponging between the chunk
// and an equally large scratch area.
//
// Isa::Scalar is the fallback everywhere: a branch-free scalar merge and
// std::sort.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace weft::detail::sort_simd {

enum class Isa { Scalar, Avx2, Avx512 };
std::string_view to_string(Isa isa);

// The best kernel this CPU runs (__builtin_cpu_supports): Avx512 needs
// AVX-512F/VL/BW/DQ, Avx2 needs AVX2.
Isa best_supported();
// The kernel parallel_sort uses now: the override if one is set, else
// best_supported().
Isa active();
// Forces a kernel (tests, benchmarks), or clears the override (nullopt).
// Throws std::invalid_argument if this CPU cannot run `isa`.
void set_override(std::optional<Isa> isa);

// Sets the override for one scope and restores the previous one.
class ScopedIsa {
 public:
  explicit ScopedIsa(Isa isa);
  ~ScopedIsa();
  ScopedIsa(const ScopedIsa&) = delete;
  ScopedIsa& operator=(const ScopedIsa&) = delete;

 private:
  std::optional<Isa> previous_;
};

enum class Order { Ascending, Descending };

// The integer types the kernels take (32- or 64-bit, signed or not; each
// standard type of those sizes by its own name, so no key is ever accessed
// through another type).
template <class T>
inline constexpr bool kIsKernelKey =
    (std::is_same_v<T, int> || std::is_same_v<T, unsigned> || std::is_same_v<T, long> ||
     std::is_same_v<T, unsigned long> || std::is_same_v<T, long long> || std::is_same_v<T, unsigned long long>) &&
    (sizeof(T) == 4 || sizeof(T) == 8);

// T itself when the kernels take it, else void.
template <class T>
using kernel_key_t = std::conditional_t<kIsKernelKey<T>, T, void>;

// For each kernel key type K:
//
// merge(isa, order, a, na, b, nb, out): merges the sorted runs a[0, na) and
// b[0, nb) into out[0, na + nb) (no overlap). Equal keys are
// indistinguishable, so the merge need not say which run a tie came from.
//
// sort(isa, order, data, scratch, n, result_in_scratch): sorts data[0, n),
// using scratch[0, n) (no overlap) as the other buffer of the ping-pong; the
// result lands in scratch when `result_in_scratch`, else in data, and the
// other buffer is left with unspecified keys.
//
// `isa` must be one this CPU runs (set_override checks; active() is always).
#define WEFT_SORT_SIMD_DECLARE(K)                                                                    \
  void merge(Isa isa, Order order, const K* a, std::size_t na, const K* b, std::size_t nb, K* out); \
  void sort(Isa isa, Order order, K* data, K* scratch, std::size_t n, bool result_in_scratch);
WEFT_SORT_SIMD_DECLARE(int)
WEFT_SORT_SIMD_DECLARE(unsigned)
WEFT_SORT_SIMD_DECLARE(long)
WEFT_SORT_SIMD_DECLARE(unsigned long)
WEFT_SORT_SIMD_DECLARE(long long)
WEFT_SORT_SIMD_DECLARE(unsigned long long)
#undef WEFT_SORT_SIMD_DECLARE

}  // namespace weft::detail::sort_simd
