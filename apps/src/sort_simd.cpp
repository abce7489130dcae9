// The key kernels of parallel_sort (see weft/apps/detail/sort_simd.hpp): the
// scalar ones, and the AVX2 and AVX-512 instantiations of
// sort_simd_kernels.inc, each compiled for its instruction set with
// `#pragma GCC target` and chosen at run time with __builtin_cpu_supports.

#include "weft/apps/detail/sort_simd.hpp"

#include "weft/apps/detail/sort_merge.hpp"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace weft::detail::sort_simd {
namespace {

// Scalar helpers shared by every instruction set (and the Isa::Scalar kernel).
template <class K, bool Desc>
struct Scalar {
  // The order, as a function object (so that std::sort inlines it).
  struct Before {
    bool operator()(K a, K b) const { return Desc ? b < a : a < b; }
  };
  static constexpr Before before{};
  // The key that sorts last (pads a run's last block in the SIMD merge).
  static constexpr K kSortsLast = Desc ? std::numeric_limits<K>::min() : std::numeric_limits<K>::max();

  // The scalar merge: branch-free (a conditional move per key), which beats a
  // branching merge on random keys.
  static K* merge_branch_free(const K* a, const K* end_a, const K* b, const K* end_b, K* out) {
    while (a != end_a && b != end_b) {
      const bool take_b = before(*b, *a);
      *out++ = take_b ? *b : *a;
      b += take_b;
      a += !take_b;
    }
    out = std::copy(a, end_a, out);
    return std::copy(b, end_b, out);
  }

  // Merges a short run into a long one: a binary search per key of the
  // short run, the long run copied in blocks between them.
  static void merge_short_into_long(const K* s, std::size_t ns, const K* l, std::size_t nl, K* out) {
    const K* const end_l = l + nl;
    for (std::size_t i = 0; i < ns; ++i) {
      const K* pos = std::lower_bound(l, end_l, s[i], before);
      out = std::copy(l, pos, out);
      l = pos;
      *out++ = s[i];
    }
    std::copy(l, end_l, out);
  }

  static void merge(const K* a, std::size_t na, const K* b, std::size_t nb, K* out) {
    merge_branch_free(a, a + na, b, b + nb, out);
  }

  // std::sort, in the buffer the result must end in.
  static void sort(K* data, K* scratch, std::size_t n, bool result_in_scratch) {
    K* target = data;
    if (result_in_scratch) target = std::copy(data, data + n, scratch) - n;
    std::sort(target, target + n, before);
  }
};

// The _mm256/_mm512_shuffle_epi32 immediate for lane i <- lane i^x inside
// each 128-bit lane (x < 4).
constexpr int shuffle_xor_imm(int x) {
  int imm = 0;
  for (int i = 0; i < 4; ++i) imm |= ((i ^ x) & 3) << (2 * i);
  return imm;
}

}  // namespace

// ---------------------------------------------------------------- AVX2 ----
#pragma GCC push_options
#pragma GCC target("avx2")
// GCC 12 reports its own intrinsics' deliberately undefined registers as
// used uninitialized at -O1 (sanitizer builds); nothing here reads them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
namespace avx2 {

template <class Key>
struct Ops {
  using K = Key;
  using V = __m256i;
  static constexpr int W = 32 / sizeof(K);
  static constexpr bool kWide = sizeof(K) == 8;

  static V load(const K* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(K* p, V v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }

  // a > b per lane, 64-bit keys (AVX2 has only the signed compare).
  static V greater64(V a, V b) {
    if constexpr (std::is_signed_v<K>) {
      return _mm256_cmpgt_epi64(a, b);
    } else {
      const V sign = _mm256_set1_epi64x(INT64_MIN);
      return _mm256_cmpgt_epi64(_mm256_xor_si256(a, sign), _mm256_xor_si256(b, sign));
    }
  }
  static V min(V a, V b) {
    if constexpr (kWide) return _mm256_blendv_epi8(a, b, greater64(a, b));
    else if constexpr (std::is_signed_v<K>) return _mm256_min_epi32(a, b);
    else return _mm256_min_epu32(a, b);
  }
  static V max(V a, V b) {
    if constexpr (kWide) return _mm256_blendv_epi8(b, a, greater64(a, b));
    else if constexpr (std::is_signed_v<K>) return _mm256_max_epi32(a, b);
    else return _mm256_max_epu32(a, b);
  }
  // The blend immediate of _mm256_blend_epi32 for a mask of W lanes.
  static constexpr int blend_imm(unsigned lanes) {
    if constexpr (!kWide) return static_cast<int>(lanes);
    int imm = 0;
    for (int i = 0; i < W; ++i)
      if (lanes & (1u << i)) imm |= 3 << (2 * i);
    return imm;
  }
  template <unsigned M>
  static V minmax(V v, V t) {
    if constexpr (kWide) {
      const V gt = greater64(v, t);
      return _mm256_blend_epi32(_mm256_blendv_epi8(v, t, gt), _mm256_blendv_epi8(t, v, gt), blend_imm(M));
    } else {
      return _mm256_blend_epi32(min(v, t), max(v, t), blend_imm(M));
    }
  }
  template <int X>
  static V swap_lanes(V v) {
    constexpr int x32 = kWide ? 2 * X : X;  // the same permutation in 32-bit lanes
    if constexpr (x32 < 4) {
      return _mm256_shuffle_epi32(v, shuffle_xor_imm(x32));
    } else if constexpr (x32 == 4) {
      return _mm256_permute2x128_si256(v, v, 1);
    } else {
      const V idx = _mm256_setr_epi32(0 ^ x32, 1 ^ x32, 2 ^ x32, 3 ^ x32, 4 ^ x32, 5 ^ x32, 6 ^ x32, 7 ^ x32);
      return _mm256_permutevar8x32_epi32(v, idx);
    }
  }
};

#include "sort_simd_kernels.inc"

}  // namespace avx2
#pragma GCC diagnostic pop
#pragma GCC pop_options

// ------------------------------------------------------------- AVX-512 ----
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512dq")
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
namespace avx512 {

template <class Key>
struct Ops {
  using K = Key;
  using V = __m512i;
  static constexpr int W = 64 / sizeof(K);
  static constexpr bool kWide = sizeof(K) == 8;
  static constexpr bool kSigned = std::is_signed_v<K>;

  static V load(const K* p) { return _mm512_loadu_si512(p); }
  static void store(K* p, V v) { _mm512_storeu_si512(p, v); }
  static V min(V a, V b) {
    if constexpr (kWide) return kSigned ? _mm512_min_epi64(a, b) : _mm512_min_epu64(a, b);
    else return kSigned ? _mm512_min_epi32(a, b) : _mm512_min_epu32(a, b);
  }
  static V max(V a, V b) {
    if constexpr (kWide) return kSigned ? _mm512_max_epi64(a, b) : _mm512_max_epu64(a, b);
    else return kSigned ? _mm512_max_epi32(a, b) : _mm512_max_epu32(a, b);
  }
  template <unsigned M>
  static V minmax(V v, V t) {
    if constexpr (kWide) {
      const auto k = static_cast<__mmask8>(M);
      return kSigned ? _mm512_mask_max_epi64(min(v, t), k, v, t) : _mm512_mask_max_epu64(min(v, t), k, v, t);
    } else {
      const auto k = static_cast<__mmask16>(M);
      return kSigned ? _mm512_mask_max_epi32(min(v, t), k, v, t) : _mm512_mask_max_epu32(min(v, t), k, v, t);
    }
  }
  template <int X>
  static V swap_lanes(V v) {
    constexpr int x32 = kWide ? 2 * X : X;  // the same permutation in 32-bit lanes
    if constexpr (x32 < 4) {
      return _mm512_shuffle_epi32(v, static_cast<_MM_PERM_ENUM>(shuffle_xor_imm(x32)));
    } else {
      const V idx = _mm512_setr_epi32(0 ^ x32, 1 ^ x32, 2 ^ x32, 3 ^ x32, 4 ^ x32, 5 ^ x32, 6 ^ x32, 7 ^ x32,
                                      8 ^ x32, 9 ^ x32, 10 ^ x32, 11 ^ x32, 12 ^ x32, 13 ^ x32, 14 ^ x32, 15 ^ x32);
      return _mm512_permutexvar_epi32(idx, v);
    }
  }
};

#include "sort_simd_kernels.inc"

}  // namespace avx512
#pragma GCC diagnostic pop
#pragma GCC pop_options

// ------------------------------------------------------------ dispatch ----
namespace {

std::atomic<int> g_override{-1};

bool cpu_runs(Isa isa) {
  switch (isa) {
    case Isa::Scalar:
      return true;
    case Isa::Avx2:
      return __builtin_cpu_supports("avx2");
    case Isa::Avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
  }
  return false;
}

template <class K>
void merge_with(Isa isa, Order order, const K* a, std::size_t na, const K* b, std::size_t nb, K* out) {
  const bool desc = order == Order::Descending;
  switch (isa) {
    case Isa::Avx512:
      return desc ? avx512::Kernel<avx512::Ops<K>, true>::merge(a, na, b, nb, out)
                  : avx512::Kernel<avx512::Ops<K>, false>::merge(a, na, b, nb, out);
    case Isa::Avx2:
      return desc ? avx2::Kernel<avx2::Ops<K>, true>::merge(a, na, b, nb, out)
                  : avx2::Kernel<avx2::Ops<K>, false>::merge(a, na, b, nb, out);
    case Isa::Scalar:
      return desc ? Scalar<K, true>::merge(a, na, b, nb, out) : Scalar<K, false>::merge(a, na, b, nb, out);
  }
}

template <class K>
void sort_with(Isa isa, Order order, K* data, K* scratch, std::size_t n, bool result_in_scratch) {
  const bool desc = order == Order::Descending;
  switch (isa) {
    case Isa::Avx512:
      return desc ? avx512::Kernel<avx512::Ops<K>, true>::sort(data, scratch, n, result_in_scratch)
                  : avx512::Kernel<avx512::Ops<K>, false>::sort(data, scratch, n, result_in_scratch);
    case Isa::Avx2:
      return desc ? avx2::Kernel<avx2::Ops<K>, true>::sort(data, scratch, n, result_in_scratch)
                  : avx2::Kernel<avx2::Ops<K>, false>::sort(data, scratch, n, result_in_scratch);
    case Isa::Scalar:
      return desc ? Scalar<K, true>::sort(data, scratch, n, result_in_scratch)
                  : Scalar<K, false>::sort(data, scratch, n, result_in_scratch);
  }
}

}  // namespace

std::string_view to_string(Isa isa) {
  switch (isa) {
    case Isa::Scalar:
      return "scalar";
    case Isa::Avx2:
      return "avx2";
    case Isa::Avx512:
      return "avx512";
  }
  return "?";
}

Isa best_supported() {
  static const Isa best = cpu_runs(Isa::Avx512) ? Isa::Avx512 : cpu_runs(Isa::Avx2) ? Isa::Avx2 : Isa::Scalar;
  return best;
}

Isa active() {
  const int forced = g_override.load(std::memory_order_relaxed);
  return forced < 0 ? best_supported() : static_cast<Isa>(forced);
}

void set_override(std::optional<Isa> isa) {
  if (isa && !cpu_runs(*isa))
    throw std::invalid_argument("weft sort kernel '" + std::string(to_string(*isa)) + "' is not supported by this CPU");
  g_override.store(isa ? static_cast<int>(*isa) : -1, std::memory_order_relaxed);
}

ScopedIsa::ScopedIsa(Isa isa) {
  const int forced = g_override.load(std::memory_order_relaxed);
  if (forced >= 0) previous_ = static_cast<Isa>(forced);
  set_override(isa);
}
ScopedIsa::~ScopedIsa() { set_override(previous_); }

#define WEFT_SORT_SIMD_ENTRY_POINTS(K)                                                                      \
  void merge(Isa isa, Order order, const K* a, std::size_t na, const K* b, std::size_t nb, K* out) {        \
    merge_with(isa, order, a, na, b, nb, out);                                                              \
  }                                                                                                         \
  void sort(Isa isa, Order order, K* data, K* scratch, std::size_t n, bool result_in_scratch) {            \
    sort_with(isa, order, data, scratch, n, result_in_scratch);                                             \
  }
WEFT_SORT_SIMD_ENTRY_POINTS(int)
WEFT_SORT_SIMD_ENTRY_POINTS(unsigned)
WEFT_SORT_SIMD_ENTRY_POINTS(long)
WEFT_SORT_SIMD_ENTRY_POINTS(unsigned long)
WEFT_SORT_SIMD_ENTRY_POINTS(long long)
WEFT_SORT_SIMD_ENTRY_POINTS(unsigned long long)
#undef WEFT_SORT_SIMD_ENTRY_POINTS

}  // namespace weft::detail::sort_simd
