#pragma once
// The typed-test families shared by the combining tests (histories, stress):
// every algorithm of weft/sync with a waiting policy and the number of
// std::threads to run it with.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "weft/sync/bounded_queue.hpp"
#include "weft/sync/bounded_stack.hpp"
#include "weft/sync/ccsynch.hpp"
#include "weft/sync/clh_lock.hpp"
#include "weft/sync/combining.hpp"
#include "weft/sync/dsmsynch.hpp"
#include "weft/sync/fetch_multiply.hpp"
#include "weft/sync/flat_combining.hpp"
#include "weft/sync/hsynch.hpp"
#include "weft/sync/lock_free_object.hpp"
#include "weft/sync/mutex_object.hpp"
#include "weft/sync/osci.hpp"
#include "weft/sync/oyama.hpp"
#include "weft/sync/psim.hpp"

namespace weft::sync::test {

template <class S, class W>
using MutexAlgo = MutexObject<S>;
// Osci with 2-request nodes: exercises "node full, start from scratch".
template <class S, class W>
using OsciTiny = Osci<S, W, 2>;
template <class S, class W>
using OsciAlgo = Osci<S, W>;
// PSim-x (one Wait{}.pause() after announcing) and plain PSim.
template <class S, class W>
using PSimXAlgo = PSim<S, W>;
template <class S, class W>
class PlainPSim : public PSim<S, W> {
 public:
  PlainPSim() : PlainPSim(S{}) {}
  explicit PlainPSim(S s, CombiningConfig = {})
      : PSim<S, W>(std::move(s), PSimConfig{.yield_after_announce = false}) {}
};

// An algorithm with a waiting policy and the number of threads to run it with
// (spinning policies get no more threads than the machine's 2 cores).
// Generic = false: only for objects whose state fits one atomic word.
// CopiesState = true: the algorithm copies its state (PSim), so the queue and
// stack tests use the trivially copyable InlineQueue/InlineStack.
template <template <class, class> class Algo, class Wait, int Threads, bool Generic = true, bool CopiesState = false>
struct Family {
  template <class S>
  using object = Algo<S, Wait>;
  static constexpr int threads = Threads;
  static constexpr bool generic = Generic;
  template <class T>
  using queue_seq = std::conditional_t<CopiesState, InlineQueue<T, 8>, BoundedQueue<T>>;
  template <class T>
  using stack_seq = std::conditional_t<CopiesState, InlineStack<T, 8>, BoundedStack<T>>;
};

#define WEFT_SYNC_GENERIC_FAMILIES                                                                                       \
  ::weft::sync::test::Family<::weft::sync::CCSynch, ::weft::sync::SpinWait, 2>,                                            \
      ::weft::sync::test::Family<::weft::sync::CCSynch, ::weft::sync::YieldWait, 4>,                                       \
      ::weft::sync::test::Family<::weft::sync::DSMSynch, ::weft::sync::SpinWait, 2>,                                       \
      ::weft::sync::test::Family<::weft::sync::DSMSynch, ::weft::sync::YieldWait, 4>,                                      \
      ::weft::sync::test::Family<::weft::sync::HSynch, ::weft::sync::SpinWait, 2>,                                         \
      ::weft::sync::test::Family<::weft::sync::HSynch, ::weft::sync::YieldWait, 4>,                                        \
      ::weft::sync::test::Family<::weft::sync::FlatCombining, ::weft::sync::SpinWait, 2>,                                  \
      ::weft::sync::test::Family<::weft::sync::FlatCombining, ::weft::sync::YieldWait, 4>,                                 \
      ::weft::sync::test::Family<::weft::sync::Oyama, ::weft::sync::SpinWait, 2>,                                          \
      ::weft::sync::test::Family<::weft::sync::Oyama, ::weft::sync::YieldWait, 4>,                                         \
      ::weft::sync::test::Family<::weft::sync::ClhObject, ::weft::sync::SpinWait, 2>,                                      \
      ::weft::sync::test::Family<::weft::sync::ClhObject, ::weft::sync::SpinThenYieldWait<>, 3>,                           \
      ::weft::sync::test::Family<::weft::sync::test::MutexAlgo, ::weft::sync::SpinWait, 4>,                                \
      ::weft::sync::test::Family<::weft::sync::test::OsciAlgo, ::weft::sync::SpinWait, 2>,                                 \
      ::weft::sync::test::Family<::weft::sync::test::OsciAlgo, ::weft::sync::YieldWait, 4>,                                \
      ::weft::sync::test::Family<::weft::sync::test::OsciTiny, ::weft::sync::YieldWait, 4>,                                \
      ::weft::sync::test::Family<::weft::sync::test::PlainPSim, ::weft::sync::SpinWait, 2, true, true>,                    \
      ::weft::sync::test::Family<::weft::sync::test::PlainPSim, ::weft::sync::SpinWait, 4, true, true>,                    \
      ::weft::sync::test::Family<::weft::sync::test::PSimXAlgo, ::weft::sync::YieldWait, 4, true, true>

// Every algorithm (Fetch&Multiply, Fetch&Add) ...
using Families = ::testing::Types<WEFT_SYNC_GENERIC_FAMILIES,
                                  Family<LockFreeObject, SpinWait, 2, false>,
                                  Family<LockFreeObject, YieldWait, 4, false>>;
// ... and those that take any sequential object (queues, stacks).
using GenericFamilies = ::testing::Types<WEFT_SYNC_GENERIC_FAMILIES>;

class FamilyNames {
 public:
  template <class F>
  static std::string GetName(int i) {
    return std::to_string(i) + "_" + std::to_string(F::threads) + "threads";
  }
};

template <class Obj>
void expect_stats_count(Obj& obj, std::uint64_t total) {
  if constexpr (requires { obj.stats(); }) {
    const CombiningStats s = obj.stats();
    EXPECT_EQ(s.requests, total) << "every request is applied by exactly one combiner";
    EXPECT_GE(s.rounds, 1u);
    EXPECT_LE(s.rounds, total);
  }
  if constexpr (requires { obj.psim_stats(); }) {
    const PSimStats p = obj.psim_stats();
    EXPECT_LE(p.max_attempts, 2u) << "PSim serves a request within two attempts";
    EXPECT_EQ(p.unserved_after_two, 0u);
    EXPECT_EQ(p.applies, total);
  }
}

}  // namespace weft::sync::test
