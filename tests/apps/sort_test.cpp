// weft::parallel_sort / parallel_stable_sort (thesis §7.7.2): every result
// compared with std::sort / std::stable_sort, on every input shape, sizes
// around the serial cutoff and the chunk boundaries, custom comparators,
// stability, non-trivial and move-only elements, the SIMD and scalar key
// kernels, the cross-socket merge tree on injected 2- and 4-socket layouts,
// from main and from inside runtimes of 1 and 2 workers, and exceptions.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/apps/sort.hpp"
#include "weft/weft.hpp"

namespace {

using weft::detail::sort_plan::Layout;
using weft::detail::sort_plan::Plan;
using weft::detail::sort_plan::Seat;
namespace sort_simd = weft::detail::sort_simd;
namespace sort_plan = weft::detail::sort_plan;

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || defined(WEFT_TSAN) || defined(WEFT_ASAN)
// Sanitizers make every access 5-20x slower: smaller inputs, fewer rounds.
constexpr std::size_t kLarge = 60'000;
constexpr std::size_t kMedium = 30'011;
constexpr int kKernelRounds = 60;
constexpr std::size_t kKernelLarge = 70'000;  // still past one cache block of the chunk sort
#else
constexpr std::size_t kLarge = 1'000'003;
constexpr std::size_t kMedium = 100'003;
constexpr int kKernelRounds = 300;
constexpr std::size_t kKernelLarge = 300'000;
#endif

// ------------------------------------------------------------- inputs ----

// Sawtooth: sorted runs of n/3 (chunks may be in order while the whole is
// not).
enum class Shape { Uniform, Sorted, Reverse, FewDistinct, AllEqual, OrganPipe, Sawtooth };
constexpr Shape kShapes[] = {Shape::Uniform,  Shape::Sorted,    Shape::Reverse, Shape::FewDistinct,
                             Shape::AllEqual, Shape::OrganPipe, Shape::Sawtooth};
const char* name(Shape s) {
  switch (s) {
    case Shape::Uniform: return "uniform";
    case Shape::Sorted: return "sorted";
    case Shape::Reverse: return "reverse";
    case Shape::FewDistinct: return "few-distinct";
    case Shape::AllEqual: return "all-equal";
    case Shape::OrganPipe: return "organ-pipe";
    case Shape::Sawtooth: return "sawtooth";
  }
  return "?";
}

template <class T>
std::vector<T> make_input(Shape shape, std::size_t n, std::uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (shape) {
      case Shape::Uniform: v[i] = static_cast<T>(rng()); break;
      case Shape::Sorted: v[i] = static_cast<T>(i); break;
      case Shape::Reverse: v[i] = static_cast<T>(n - i); break;
      case Shape::FewDistinct: v[i] = static_cast<T>(rng() % 7); break;
      case Shape::AllEqual: v[i] = static_cast<T>(42); break;
      case Shape::OrganPipe: v[i] = static_cast<T>(i < n / 2 ? i : n - i); break;
      case Shape::Sawtooth: v[i] = static_cast<T>(i % (n / 3 + 1)); break;
    }
  }
  return v;
}

// Sizes around the cutoffs: 0..10, both serial cutoffs (8192 elements,
// 16384 integer keys) and a chunk past them, non-powers of two, and one
// large size.
std::vector<std::size_t> sizes() {
  std::vector<std::size_t> s;
  for (std::size_t n = 0; n <= 10; ++n) s.push_back(n);
  for (std::size_t n : {std::size_t{4095}, std::size_t{8191}, std::size_t{8192}, std::size_t{12289},
                        std::size_t{16383}, std::size_t{16384}, std::size_t{24577}, std::size_t{50'021}, kLarge})
    s.push_back(n);
  return s;
}

template <class T, class Comp = std::less<>>
void expect_sorts_like_std(std::vector<T> input, Comp comp = {}, const std::string& what = "") {
  std::vector<T> expected = input;
  std::sort(expected.begin(), expected.end(), comp);
  weft::parallel_sort(input.begin(), input.end(), comp);
  ASSERT_TRUE(input == expected) << what << " n=" << input.size();
}

// Runtimes with 1 and with 2 workers (pinning off, so that tests also run
// where fewer CPUs are allowed).
weft::Config workers(int n) {
  weft::Config c;
  c.workers = n;
  c.pin_workers = false;
  return c;
}

// An injected machine: `sockets` sockets of `cores` cores of `smt` contexts,
// seat i on runtime worker i % num_workers; socket latency |a - b| * 100 +
// 100, so neighbours are closest.
Layout synthetic_layout(int sockets, int cores, int smt, int num_workers, int destination = 0) {
  Layout layout;
  layout.num_sockets = sockets;
  int ctx = 0;
  for (int s = 0; s < sockets; ++s)
    for (int c = 0; c < cores; ++c)
      for (int t = 0; t < smt; ++t, ++ctx)
        layout.seats.push_back({ctx % num_workers, s, s * cores + c, ctx});
  for (int a = 0; a < sockets; ++a)
    for (int b = 0; b < sockets; ++b) layout.socket_latency.push_back(a == b ? 0 : 100.0 * std::abs(a - b) + 100);
  layout.destination_socket = destination;
  return layout;
}

// Sorts inside a ULT of `rt` by an injected layout.
template <class T, class Comp>
void sort_with_layout(weft::Runtime& rt, std::vector<T>& v, Comp comp, bool stable, const Layout& layout) {
  rt.run([&] { weft::detail::parallel_sort_with_layout(v.begin(), v.size(), comp, stable, layout); });
}

// ------------------------------------------------------- key kernels ----

std::vector<sort_simd::Isa> supported_isas() {
  std::vector<sort_simd::Isa> isas = {sort_simd::Isa::Scalar};
  if (sort_simd::best_supported() != sort_simd::Isa::Scalar) isas.push_back(sort_simd::Isa::Avx2);
  if (sort_simd::best_supported() == sort_simd::Isa::Avx512) isas.push_back(sort_simd::Isa::Avx512);
  return isas;
}

template <class K>
void check_kernels(sort_simd::Isa isa, sort_simd::Order order) {
  std::mt19937_64 rng(7);
  auto before = [order](K a, K b) { return order == sort_simd::Order::Ascending ? a < b : b < a; };
  for (int round = 0; round < kKernelRounds; ++round) {
    // Run lengths around the register widths (4..16 keys) and beyond.
    std::size_t na = rng() % 70, nb = rng() % 70;
    if (round % 5 == 0) na = rng() % 2000;
    const std::uint64_t range = round % 3 == 0 ? 4 : ~std::uint64_t{0};
    std::vector<K> a(na), b(nb);
    for (K& x : a) x = static_cast<K>(rng() % range);
    for (K& x : b) x = static_cast<K>(rng() % range);
    if (!a.empty() && round % 4 == 1) {
      a.front() = std::numeric_limits<K>::min();
      a.back() = std::numeric_limits<K>::max();
    }
    std::sort(a.begin(), a.end(), before);
    std::sort(b.begin(), b.end(), before);
    std::vector<K> merged(na + nb), expected(na + nb);
    sort_simd::merge(isa, order, a.data(), na, b.data(), nb, merged.data());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), expected.begin(), before);
    ASSERT_EQ(merged, expected) << "merge na=" << na << " nb=" << nb;

    std::vector<K> data = a;
    data.insert(data.end(), b.begin(), b.end());
    std::shuffle(data.begin(), data.end(), rng);
    if (round % 50 == 0)  // several cache blocks and whole-chunk passes
      for (std::size_t i = 0; i < kKernelLarge; ++i) data.push_back(static_cast<K>(rng() % range));
    std::vector<K> sorted = data, scratch(data.size());
    std::sort(sorted.begin(), sorted.end(), before);
    const bool in_scratch = round % 2 == 1;
    sort_simd::sort(isa, order, data.data(), scratch.data(), data.size(), in_scratch);
    ASSERT_EQ(in_scratch ? scratch : data, sorted) << "sort n=" << data.size() << " in_scratch=" << in_scratch;
  }
}

TEST(SortKernels, MergeAndSortMatchStdForEveryKeyTypeOrderAndInstructionSet) {
  for (sort_simd::Isa isa : supported_isas()) {
    for (sort_simd::Order order : {sort_simd::Order::Ascending, sort_simd::Order::Descending}) {
      SCOPED_TRACE(std::string(sort_simd::to_string(isa)) +
                   (order == sort_simd::Order::Ascending ? " ascending" : " descending"));
      check_kernels<std::int32_t>(isa, order);
      check_kernels<std::uint32_t>(isa, order);
      check_kernels<std::int64_t>(isa, order);
      check_kernels<std::uint64_t>(isa, order);
      check_kernels<long long>(isa, order);
      check_kernels<unsigned long long>(isa, order);
    }
  }
}

TEST(SortKernels, ForcingAnInstructionSetTheCpuLacksIsAnError) {
  if (sort_simd::best_supported() == sort_simd::Isa::Avx512) GTEST_SKIP() << "this CPU runs every kernel";
  EXPECT_THROW(sort_simd::set_override(sort_simd::Isa::Avx512), std::invalid_argument);
}

TEST(SortKernels, ScopedOverrideRestoresThePreviousChoice) {
  const sort_simd::Isa before = sort_simd::active();
  {
    sort_simd::ScopedIsa scalar(sort_simd::Isa::Scalar);
    EXPECT_EQ(sort_simd::active(), sort_simd::Isa::Scalar);
  }
  EXPECT_EQ(sort_simd::active(), before);
}

// --------------------------------------------------------------- plan ----

// The structural properties every plan must have: chunks tile [0, n) in
// array order, each merge joins two adjacent ranges one level deeper, its
// shares tile its output, and every team's barrier counts its members.
void check_plan(const Plan& plan, std::size_t n) {
  ASSERT_FALSE(plan.participants.empty());
  std::size_t at = 0;
  for (const auto& p : plan.participants) {
    EXPECT_EQ(p.chunk.lo, at);
    at = p.chunk.hi;
  }
  EXPECT_EQ(at, n);
  auto range = [&](sort_plan::Child c) {
    return c.leaf ? plan.participants[c.index].chunk : sort_plan::Range{plan.nodes[c.index].lo, plan.nodes[c.index].hi};
  };
  auto depth = [&](sort_plan::Child c) {
    return c.leaf ? plan.participants[c.index].leaf_depth : plan.nodes[c.index].depth;
  };
  if (plan.participants.size() > 1) {
    ASSERT_FALSE(plan.root.leaf);
    EXPECT_EQ(range(plan.root).lo, 0u);
    EXPECT_EQ(range(plan.root).hi, n);
    EXPECT_EQ(depth(plan.root), 0);
  }
  for (const auto& node : plan.nodes) {
    EXPECT_EQ(range(node.left).lo, node.lo);
    EXPECT_EQ(range(node.left).hi, node.mid);
    EXPECT_EQ(range(node.right).lo, node.mid);
    EXPECT_EQ(range(node.right).hi, node.hi);
    EXPECT_EQ(depth(node.left), node.depth + 1);
    EXPECT_EQ(depth(node.right), node.depth + 1);
    std::size_t out = node.lo;
    for (int p : node.pieces) {
      EXPECT_EQ(plan.pieces[p].begin, out);
      out = plan.pieces[p].end;
    }
    EXPECT_EQ(out, node.hi);
  }
  // Barrier sizes equal the number of participants that wait at them.
  std::vector<int> waiting(plan.barrier_sizes.size(), 0);
  for (const auto& p : plan.participants)
    for (const auto& step : p.steps)
      if (step.barrier >= 0) ++waiting[step.barrier];
  EXPECT_EQ(waiting, plan.barrier_sizes);
}

TEST(SortPlan, OneSocketIsABalancedTreeSharedByAllItsWorkers) {
  const Layout layout = synthetic_layout(1, 5, 1, 5);
  const Plan plan = sort_plan::make_plan(layout, 1'000'000, false, 4096);
  check_plan(plan, 1'000'000);
  EXPECT_EQ(plan.participants.size(), 5u);
  // 5 leaves: 3 rounds; every merge of a round is shared by all 5.
  EXPECT_EQ(plan.barrier_sizes, std::vector<int>({5, 5, 5}));  // one per round
  for (const auto& p : plan.participants) EXPECT_EQ(p.steps.size(), 3u);
  for (const auto& node : plan.nodes) EXPECT_GE(node.pieces.size(), 2u);
}

TEST(SortPlan, CrossSocketTreePairsTheClosestSocketsWithTheRootAtTheDestination) {
  // Latency |a-b|*100+100: from socket 1 the closest are 0 and 2.
  const Layout layout = synthetic_layout(4, 2, 1, 8, /*destination=*/1);
  const Plan plan = sort_plan::make_plan(layout, 1 << 20, false, 4096);
  check_plan(plan, 1 << 20);
  // Level 0: 1 pairs with 0 (tie with 2, lower index); level 1: 1 takes 2,
  // 0 takes 3. Leaf order: 1, 2, 0, 3.
  EXPECT_EQ(plan.socket_order, std::vector<int>({1, 2, 0, 3}));
  EXPECT_EQ(plan.participants.front().seat.socket, 1);  // the destination's data first
  // Sockets' teams of 2, pair teams of 4, the root's team of 8.
  std::vector<int> sizes = plan.barrier_sizes;
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, std::vector<int>({2, 2, 2, 2, 4, 4, 8}));
  // Every participant: its socket round, its pair, the root.
  for (const auto& p : plan.participants) EXPECT_EQ(p.steps.size(), 3u);
}

TEST(SortPlan, ThreeSocketsMakeAnUnbalancedTree) {
  const Layout layout = synthetic_layout(3, 1, 1, 3);
  const Plan plan = sort_plan::make_plan(layout, 100'000, false, 4096);
  check_plan(plan, 100'000);
  EXPECT_EQ(plan.socket_order, std::vector<int>({0, 2, 1}));
}

TEST(SortPlan, FewChunksGoRoundRobinOverSocketsDistinctCoresFirst) {
  // 2 sockets x 2 cores x 2 contexts; room for 3 chunks only.
  const Layout layout = synthetic_layout(2, 2, 2, 8);
  const Plan plan = sort_plan::make_plan(layout, 3 * 4096, false, 4096);
  check_plan(plan, 3 * 4096);
  ASSERT_EQ(plan.participants.size(), 3u);
  int on_socket0 = 0;
  std::vector<int> cores;
  for (const auto& p : plan.participants) {
    on_socket0 += p.seat.socket == 0;
    cores.push_back(p.seat.core);
  }
  EXPECT_EQ(on_socket0, 2);
  std::sort(cores.begin(), cores.end());
  EXPECT_EQ(std::adjacent_find(cores.begin(), cores.end()), cores.end()) << "an SMT sibling was taken before a free core";
}

TEST(SortPlan, SmtSiblingsGetAThirdOfTheDataWithTheSimdKernel) {
  const Layout layout = synthetic_layout(1, 2, 2, 4);
  const Plan plan = sort_plan::make_plan(layout, 800'000, /*smt_weights=*/true, 4096);
  check_plan(plan, 800'000);
  ASSERT_EQ(plan.participants.size(), 4u);
  for (const auto& p : plan.participants) {
    const std::size_t expected = p.simd ? 300'000 : 100'000;
    EXPECT_NEAR(static_cast<double>(p.chunk.size()), static_cast<double>(expected), 1.0);
  }
  // Merge shares likewise: in the last round, 3:1.
  const auto& root = plan.nodes[plan.root.index];
  for (int piece : root.pieces) {
    const auto& pc = plan.pieces[piece];
    const std::size_t expected = plan.participants[pc.participant].simd ? 300'000 : 100'000;
    EXPECT_NEAR(static_cast<double>(pc.end - pc.begin), static_cast<double>(expected), 1.0);
  }
}

TEST(SortPlan, BadLayoutsAreErrorsNamingTheProblem) {
  Layout layout = synthetic_layout(2, 1, 1, 2);
  layout.seats[1].socket = 5;
  EXPECT_THROW(sort_plan::validate(layout, 2), std::invalid_argument);
  layout = synthetic_layout(2, 1, 1, 2);
  EXPECT_THROW(sort_plan::validate(layout, 1), std::invalid_argument);  // worker 1 of 1
  layout.socket_latency.pop_back();
  EXPECT_THROW(sort_plan::validate(layout, 2), std::invalid_argument);
  layout = synthetic_layout(2, 1, 1, 2);
  layout.seats.clear();
  EXPECT_THROW(sort_plan::validate(layout, 2), std::invalid_argument);
  try {
    layout = synthetic_layout(2, 1, 1, 2);
    layout.destination_socket = 3;
    sort_plan::validate(layout, 2);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("destination"), std::string::npos) << e.what();
  }
}

TEST(SortPlan, TheRuntimesLayoutNamesEveryWorker) {
  weft::Runtime rt(workers(2));
  const Layout layout = sort_plan::layout_of(rt, 0);
  EXPECT_EQ(layout.seats.size(), 2u);
  EXPECT_NO_THROW(sort_plan::validate(layout, 2));
}

// --------------------------------------------------- sorts from main ----

TEST(ParallelSort, EveryShapeAndSizeFromMainWithNoRuntime) {
  for (Shape shape : kShapes)
    for (std::size_t n : sizes()) expect_sorts_like_std(make_input<std::int32_t>(shape, n), std::less<>{}, name(shape));
}

TEST(ParallelSort, LastBeforeFirstIsAnError) {
  std::vector<int> v = {3, 2, 1};
  EXPECT_THROW(weft::parallel_sort(v.end(), v.begin()), std::invalid_argument);
  EXPECT_THROW(weft::parallel_stable_sort(v.end(), v.begin()), std::invalid_argument);
}

TEST(ParallelSort, CustomComparators) {
  for (Shape shape : kShapes) {
    expect_sorts_like_std(make_input<std::int32_t>(shape, kMedium), std::greater<>{}, name(shape));
    expect_sorts_like_std(make_input<std::int64_t>(shape, kMedium), std::greater<std::int64_t>{}, name(shape));
    // A lambda on floating-point keys: the generic path.
    expect_sorts_like_std(make_input<double>(shape, kMedium), [](double a, double b) { return a > b; }, name(shape));
  }
  struct Item {
    std::uint32_t key;
    std::uint32_t payload;
    bool operator==(const Item&) const = default;
  };
  std::vector<Item> items;
  for (std::uint32_t k : make_input<std::uint32_t>(Shape::Uniform, 70'001)) items.push_back({k % 1000, k});
  // Sort by key, then payload: a strict total order, so the result is unique.
  expect_sorts_like_std(items, [](const Item& a, const Item& b) {
    return a.key != b.key ? a.key < b.key : a.payload < b.payload;
  });
}

TEST(ParallelSort, NonContiguousRandomAccessIterators) {
  auto input = make_input<std::int32_t>(Shape::Uniform, 90'001);
  std::deque<std::int32_t> d(input.begin(), input.end());
  std::sort(input.begin(), input.end());
  weft::parallel_sort(d.begin(), d.end());
  EXPECT_TRUE(std::equal(d.begin(), d.end(), input.begin(), input.end()));
  weft::parallel_stable_sort(d.begin(), d.end(), std::greater<>{});
  EXPECT_TRUE(std::equal(d.begin(), d.end(), input.rbegin(), input.rend()));
}

TEST(ParallelStableSort, KeepsEqualElementsInTheirOrder) {
  using Pair = std::pair<std::uint32_t, std::uint32_t>;  // (key, original index)
  auto by_key = [](const Pair& a, const Pair& b) { return a.first < b.first; };
  for (Shape shape : kShapes) {
    for (std::size_t n : sizes()) {
      std::vector<Pair> v;
      const auto keys = make_input<std::uint32_t>(shape, n);
      for (std::uint32_t i = 0; i < n; ++i) v.emplace_back(keys[i] % 97, i);
      std::vector<Pair> expected = v;
      std::stable_sort(expected.begin(), expected.end(), by_key);
      weft::parallel_stable_sort(v.begin(), v.end(), by_key);
      ASSERT_TRUE(v == expected) << name(shape) << " n=" << n;
    }
  }
}

TEST(ParallelStableSort, PresortedChunksStayStable) {
  // Runs in order, or reversed, are detected per chunk; equal neighbours
  // must keep their order (a reversed run with equal keys is not reversed).
  using Pair = std::pair<std::uint32_t, std::uint32_t>;
  auto by_key = [](const Pair& a, const Pair& b) { return a.first < b.first; };
  const std::uint32_t n = 70'001;
  for (auto key : std::vector<std::function<std::uint32_t(std::uint32_t)>>{
           [](std::uint32_t i) { return i / 3; },              // ascending, equal neighbours
           [n](std::uint32_t i) { return (n - i) / 3; },       // descending, equal neighbours
           [n](std::uint32_t i) { return n - i; },             // strictly descending
           [](std::uint32_t i) { return (i % 20'000) / 2; }})  // sawtooth
  {
    std::vector<Pair> v;
    for (std::uint32_t i = 0; i < n; ++i) v.emplace_back(key(i), i);
    auto expected = v;
    std::stable_sort(expected.begin(), expected.end(), by_key);
    weft::parallel_stable_sort(v.begin(), v.end(), by_key);
    ASSERT_TRUE(v == expected);
  }
}

TEST(ParallelStableSort, IntegerKeysMatchStd) {
  for (Shape shape : kShapes) {
    auto v = make_input<std::int64_t>(shape, kMedium);
    auto expected = v;
    std::stable_sort(expected.begin(), expected.end());
    weft::parallel_stable_sort(v.begin(), v.end());
    ASSERT_EQ(v, expected) << name(shape);
  }
}

TEST(ParallelSort, StringsAndMoveOnlyElements) {
  std::vector<std::string> strings;
  for (std::uint64_t x : make_input<std::uint64_t>(Shape::Uniform, 40'007))
    strings.push_back(std::to_string(x % 5000) + std::string(x % 40, 'x'));  // some beyond the small-string buffer
  expect_sorts_like_std(strings);
  auto stable = strings;
  auto expected = strings;
  auto by_length = [](const std::string& a, const std::string& b) { return a.size() < b.size(); };
  std::stable_sort(expected.begin(), expected.end(), by_length);
  weft::parallel_stable_sort(stable.begin(), stable.end(), by_length);
  EXPECT_EQ(stable, expected);

  std::vector<std::unique_ptr<int>> owned;
  for (std::int32_t x : make_input<std::int32_t>(Shape::FewDistinct, 30'011)) owned.push_back(std::make_unique<int>(x));
  auto deref_less = [](const std::unique_ptr<int>& a, const std::unique_ptr<int>& b) { return *a < *b; };
  std::vector<int> before;
  for (const auto& p : owned) before.push_back(*p);
  weft::parallel_stable_sort(owned.begin(), owned.end(), deref_less);
  std::stable_sort(before.begin(), before.end());
  ASSERT_EQ(owned.size(), before.size());
  for (std::size_t i = 0; i < owned.size(); ++i) ASSERT_EQ(*owned[i], before[i]);
  weft::parallel_sort(owned.begin(), owned.end(), [](const auto& a, const auto& b) { return *a > *b; });
  EXPECT_TRUE(std::is_sorted(owned.begin(), owned.end(), [](const auto& a, const auto& b) { return *a > *b; }));
}

TEST(ParallelSort, KeysThroughEverySimdKernelAndTheScalarOne) {
  for (sort_simd::Isa isa : supported_isas()) {
    sort_simd::ScopedIsa forced(isa);
    for (Shape shape : kShapes) {
      SCOPED_TRACE(std::string(sort_simd::to_string(isa)) + " " + name(shape));
      expect_sorts_like_std(make_input<std::int32_t>(shape, 2 * kMedium));
      expect_sorts_like_std(make_input<std::uint32_t>(shape, kMedium), std::greater<>{});
      expect_sorts_like_std(make_input<std::int64_t>(shape, kMedium), std::ranges::less{});
      expect_sorts_like_std(make_input<std::uint64_t>(shape, kMedium), std::greater<std::uint64_t>{});
    }
  }
}

// ------------------------------------------- inside a user's runtime ----

class ParallelSortInRuntime : public ::testing::TestWithParam<int> {};

TEST_P(ParallelSortInRuntime, FromAPlainThreadAndFromInsideAUlt) {
  weft::Runtime rt(workers(GetParam()));
  auto v = make_input<std::int32_t>(Shape::Uniform, kLarge);
  auto expected = v;
  std::sort(expected.begin(), expected.end());
  weft::parallel_sort(v.begin(), v.end());  // plain thread: rt is the live runtime
  EXPECT_EQ(v, expected);
  std::vector<std::string> s;
  for (std::int32_t x : make_input<std::int32_t>(Shape::FewDistinct, 30'000)) s.push_back(std::to_string(x));
  auto s_expected = s;
  std::stable_sort(s_expected.begin(), s_expected.end());
  rt.run([&] { weft::parallel_stable_sort(s.begin(), s.end()); });
  EXPECT_EQ(s, s_expected);
}

TEST_P(ParallelSortInRuntime, ManyConcurrentSortsFromManyUlts) {
  weft::Runtime rt(workers(GetParam()));
  constexpr int kSorts = 6;
  std::vector<std::vector<std::int32_t>> inputs;
  for (int i = 0; i < kSorts; ++i) inputs.push_back(make_input<std::int32_t>(kShapes[i], 20'000 + 997 * i, i));
  auto expected = inputs;
  for (auto& e : expected) std::sort(e.begin(), e.end(), std::greater<>{});
  rt.run([&] {
    weft::TaskGroup group;
    for (int i = 0; i < kSorts; ++i)
      group.run([&, i] { weft::parallel_sort(inputs[i].begin(), inputs[i].end(), std::greater<>{}); });
    group.wait();
  });
  EXPECT_EQ(inputs, expected);
}

TEST_P(ParallelSortInRuntime, NestedInsideAParallelForOfStringSorts) {
  weft::Runtime rt(workers(GetParam()));
  constexpr int kSorts = 4;
  std::vector<std::vector<std::string>> inputs(kSorts);
  for (int i = 0; i < kSorts; ++i)
    for (std::uint64_t x : make_input<std::uint64_t>(Shape::Uniform, 12'000 + 1001 * i, i))
      inputs[i].push_back(std::to_string(x % 100'000));
  auto expected = inputs;
  for (auto& e : expected) std::stable_sort(e.begin(), e.end());
  rt.run([&] {
    weft::parallel_for(0, kSorts, [&](int i) { weft::parallel_stable_sort(inputs[i].begin(), inputs[i].end()); });
  });
  EXPECT_EQ(inputs, expected);
}

INSTANTIATE_TEST_SUITE_P(Workers, ParallelSortInRuntime, ::testing::Values(1, 2));

// ------------------------------------------ injected socket layouts ----

TEST(ParallelSortOnLayouts, TwoAndFourSocketTreesWithSmtSiblings) {
  weft::Runtime rt(workers(2));
  for (auto [sockets, cores, smt] : {std::tuple{2, 1, 1}, std::tuple{2, 2, 2}, std::tuple{4, 2, 1}, std::tuple{3, 1, 2}}) {
    const Layout layout = synthetic_layout(sockets, cores, smt, 2, sockets - 1);
    SCOPED_TRACE(std::to_string(sockets) + " sockets x " + std::to_string(cores) + " cores x " + std::to_string(smt));
    for (Shape shape : kShapes) {
      auto v = make_input<std::int32_t>(shape, kMedium + 50'000);
      auto expected = v;
      std::sort(expected.begin(), expected.end());
      sort_with_layout(rt, v, std::less<>{}, false, layout);
      ASSERT_EQ(v, expected) << name(shape);
    }
    // The generic path, stable, with a comparator that yields now and then
    // (so that the workers' shares interleave differently).
    using Pair = std::pair<std::uint32_t, std::uint32_t>;
    std::vector<Pair> pairs;
    const auto keys = make_input<std::uint32_t>(Shape::Uniform, 60'013);
    for (std::uint32_t i = 0; i < keys.size(); ++i) pairs.emplace_back(keys[i] % 101, i);
    auto expected = pairs;
    auto by_key = [](const Pair& a, const Pair& b) { return a.first < b.first; };
    std::stable_sort(expected.begin(), expected.end(), by_key);
    std::atomic<std::uint64_t> calls{0};
    auto yielding = [&calls](const Pair& a, const Pair& b) {
      if (calls.fetch_add(1, std::memory_order_relaxed) % 4099 == 0) weft::this_ult::yield();
      return a.first < b.first;
    };
    sort_with_layout(rt, pairs, yielding, true, layout);
    ASSERT_TRUE(pairs == expected);
  }
}

// --------------------------------------------------------- exceptions ----

struct ComparatorFailure : std::runtime_error {
  ComparatorFailure() : std::runtime_error("comparator failed") {}
};

// A comparator that throws on its `limit`-th call (counted across copies),
// or counts its calls when the limit is negative.
struct ThrowingLess {
  std::shared_ptr<std::atomic<std::int64_t>> left;
  template <class T>
  bool operator()(const T& a, const T& b) const {
    if (left->fetch_sub(1, std::memory_order_relaxed) == 0) throw ComparatorFailure();
    return a < b;
  }
};

// How many comparisons the sort makes (the same count in every run: the
// chunk sorts, the merge-path searches and the merges are deterministic).
template <class T>
std::int64_t comparisons(weft::Runtime& rt, std::vector<T> v, bool stable, const Layout& layout) {
  auto counter = std::make_shared<std::atomic<std::int64_t>>(-1);
  sort_with_layout(rt, v, ThrowingLess{counter}, stable, layout);
  return -1 - counter->load();
}

// Throw points spread over the whole sort, most of them in the last 15% of
// the comparisons, where the merges are (the chunk sorts make the rest).
std::vector<std::int64_t> throw_points(std::int64_t total) {
  std::vector<std::int64_t> points = {0};
  for (double f : {0.3, 0.86, 0.9, 0.94, 0.97, 0.99, 0.999}) points.push_back(static_cast<std::int64_t>(f * total));
  return points;
}

TEST(ParallelSortExceptions, AThrowingComparatorReachesTheCallerAndNothingLeaks) {
  std::vector<std::string> input;
  for (std::uint64_t x : make_input<std::uint64_t>(Shape::Uniform, 30'001)) input.push_back(std::to_string(x) + "-s");
  auto sorted_input = input;
  std::sort(sorted_input.begin(), sorted_input.end());
  weft::Runtime rt(workers(2));
  const Layout layout = synthetic_layout(2, 2, 1, 2);
  for (bool stable : {false, true}) {
    for (std::int64_t limit : throw_points(comparisons(rt, input, stable, layout))) {
      SCOPED_TRACE("limit " + std::to_string(limit) + (stable ? " stable" : " unstable"));
      auto v = input;
      ThrowingLess comp{std::make_shared<std::atomic<std::int64_t>>(limit)};
      EXPECT_THROW(sort_with_layout(rt, v, comp, stable, layout), ComparatorFailure);
      ASSERT_EQ(v.size(), input.size());
      if (stable) {  // the stable sort guarantees a permutation
        std::sort(v.begin(), v.end());
        EXPECT_EQ(v, sorted_input);
      }
    }
  }
  // From main, through the public entry point.
  auto v = input;
  EXPECT_THROW(weft::parallel_stable_sort(v.begin(), v.end(),
                                          ThrowingLess{std::make_shared<std::atomic<std::int64_t>>(10'000)}),
               ComparatorFailure);
  std::sort(v.begin(), v.end());
  EXPECT_EQ(v, sorted_input);
}

TEST(ParallelSortExceptions, TrivialElementsAreAPermutationAfterAThrowToo) {
  auto input = make_input<std::int32_t>(Shape::Uniform, 100'000);
  auto sorted_input = input;
  std::sort(sorted_input.begin(), sorted_input.end());
  weft::Runtime rt(workers(2));
  const Layout layout = synthetic_layout(2, 2, 1, 2);
  for (std::int64_t limit : throw_points(comparisons(rt, input, true, layout))) {
    auto v = input;
    EXPECT_THROW(sort_with_layout(rt, v, ThrowingLess{std::make_shared<std::atomic<std::int64_t>>(limit)}, true, layout),
                 ComparatorFailure);
    std::sort(v.begin(), v.end());
    EXPECT_EQ(v, sorted_input) << "limit " << limit;
  }
}

}  // namespace
