// Every combining algorithm under stress (2-4 std::threads, random local
// work): every request is applied exactly once (Fetch&Add chain check), also
// with several objects per thread, handle churn and a small combining bound h.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "combining_families.hpp"
#include "sync_test_util.hpp"

namespace ws = weft::sync;
using namespace weft::sync::test;  // sync_test_util.hpp

namespace {

template <class F>
class CombiningStressTest : public ::testing::Test {};
TYPED_TEST_SUITE(CombiningStressTest, ws::test::Families, ws::test::FamilyNames);

template <class F>
void exactly_once_stress(int objects, int ops_per_thread, ws::CombiningConfig cfg, int handle_churn_every) {
  using Seq = ws::FetchAdd<std::uint64_t>;
  using Obj = typename F::template object<Seq>;
  const int n = F::threads;
  std::vector<std::unique_ptr<Obj>> objs;
  for (int o = 0; o < objects; ++o) objs.push_back(std::make_unique<Obj>(Seq{}, cfg));
  // results[o][t]: what thread t saw on object o.
  std::vector<std::vector<std::vector<Applied>>> results(
      static_cast<std::size_t>(objects), std::vector<std::vector<Applied>>(static_cast<std::size_t>(n)));
  for (auto& per_obj : results)
    for (auto& v : per_obj) v.reserve(static_cast<std::size_t>(ops_per_thread));
  run_threads(n, [&](int t) {
    std::vector<typename Obj::Handle> hs;
    for (auto& o : objs) hs.push_back(o->handle());
    Rng rng(static_cast<std::uint64_t>(1000 + t));
    for (int i = 0; i < ops_per_thread; ++i) {
      const std::size_t o = static_cast<std::size_t>(i % objects);
      if (handle_churn_every && i % handle_churn_every == handle_churn_every - 1)
        hs[o] = objs[o]->handle();  // destroys the old handle, takes a new one
      const std::uint64_t inc = 1 + rng.below(1000);
      const std::uint64_t before = objs[o]->apply(hs[o], inc);
      results[o][static_cast<std::size_t>(t)].push_back({before, inc});
      local_work(rng, 64);
    }
  });
  for (int o = 0; o < objects; ++o) {
    std::vector<Applied> all;
    for (const auto& v : results[static_cast<std::size_t>(o)]) all.insert(all.end(), v.begin(), v.end());
    auto h = objs[static_cast<std::size_t>(o)]->handle();
    const std::uint64_t final_value = objs[static_cast<std::size_t>(o)]->apply(h, 0);
    expect_exact_chain(std::move(all), final_value);
    std::uint64_t applied = 1;  // the final read
    for (auto& v : results[static_cast<std::size_t>(o)]) applied += v.size();
    ws::test::expect_stats_count(*objs[static_cast<std::size_t>(o)], applied);
  }
}

}  // namespace

TYPED_TEST(CombiningStressTest, ExactlyOnceUnderStress) {
  exactly_once_stress<TypeParam>(1, scaled(200000), {}, 0);
}

TYPED_TEST(CombiningStressTest, ExactlyOnceWithSeveralObjectsHandleChurnAndSmallBound) {
  exactly_once_stress<TypeParam>(2, scaled(100000), ws::CombiningConfig{.max_combine = 2}, 997);
}
