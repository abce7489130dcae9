// Every combining algorithm, run by 2-4 std::threads with random local work
// between operations: recorded histories are linearizable (Fetch&Multiply,
// FIFO queue, LIFO stack), and the combiners' counters add up to the number
// of operations.
#include <gtest/gtest.h>

#include <cstdint>

#include "combining_families.hpp"
#include "sync_test_util.hpp"
#include "weft/testing/linearizability.hpp"

namespace ws = weft::sync;
using namespace weft::sync::test;  // sync_test_util.hpp

namespace {

template <class F>
class CombiningHistoryTest : public ::testing::Test {};
template <class F>
class CombiningContainerHistoryTest : public ::testing::Test {};
TYPED_TEST_SUITE(CombiningHistoryTest, ws::test::Families, ws::test::FamilyNames);
TYPED_TEST_SUITE(CombiningContainerHistoryTest, ws::test::GenericFamilies, ws::test::FamilyNames);

// Runs `histories` rounds; in each, F::threads threads perform `ops` random
// operations (from make_op) on a fresh object and the history is checked.
template <class F, class Seq, class Model, class MakeOp, class MakeSeq>
void check_histories(int histories, int ops, const Model& model, MakeSeq make_seq, MakeOp make_op,
                     unsigned max_work) {
  using Obj = typename F::template object<Seq>;
  std::size_t total_configs = 0;
  for (int round = 0; round < histories; ++round) {
    Obj obj(make_seq());
    const auto hist = ws::test::record_history(obj, ws::test::OnThreads{F::threads}, ops,
                                               static_cast<std::uint64_t>(round * 97 + 1), make_op,
                                               [&](Rng& rng) { local_work(rng, max_work); });
    const auto r = ws::check_linearizability(model, hist);
    ASSERT_EQ(r.verdict, ws::Verdict::linearizable) << "history " << round << ": " << r.detail;
    total_configs += r.configurations;
    ws::test::expect_stats_count(obj, hist.size());
  }
  ::testing::Test::RecordProperty("checker_configurations", static_cast<int>(total_configs));
}

}  // namespace

TYPED_TEST(CombiningHistoryTest, FetchMultiplyHistoriesAreLinearizable) {
  using Seq = ws::FetchMultiply<std::uint64_t>;
  check_histories<TypeParam, Seq>(
      scaled(300, 20), 100, ws::FetchMultiplyModel<std::uint64_t>{}, [] { return Seq{}; },
      [](Rng& rng, int, int) -> std::uint64_t { return rng.next() | 1u; },  // odd: never reaches 0
      256);
}

TYPED_TEST(CombiningContainerHistoryTest, QueueHistoriesAreLinearizable) {
  using Seq = typename TypeParam::template queue_seq<int>;
  constexpr std::size_t cap = 6;  // small: full and empty both happen
  check_histories<TypeParam, Seq>(
      scaled(250, 20), 80, ws::QueueModel<int>(cap), [] { return Seq(cap); },
      [](Rng& rng, int t, int i) {
        return rng.below(100) < 48 ? Seq::Op::enqueue(t * 100000 + i) : Seq::Op::dequeue();
      },
      256);
}

TYPED_TEST(CombiningContainerHistoryTest, StackHistoriesAreLinearizable) {
  using Seq = typename TypeParam::template stack_seq<int>;
  constexpr std::size_t cap = 6;
  check_histories<TypeParam, Seq>(
      scaled(250, 20), 80, ws::StackModel<int>(cap), [] { return Seq(cap); },
      [](Rng& rng, int t, int i) { return rng.below(100) < 50 ? Seq::Op::push(t * 100000 + i) : Seq::Op::pop(); },
      256);
}
