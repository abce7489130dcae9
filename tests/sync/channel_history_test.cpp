// Histories of Channel operations (try and timed sends and receives, close)
// from threads and from ULTs on 2 workers, checked for linearizability
// against a sequential channel: a FIFO of values that senders put in and
// receivers take out, bounded by the capacity for a buffered channel, LIFO
// for the unfair dual stack's waiting senders; `closed` only after close(),
// and a receive sees `closed` only once drained. For an unbuffered channel
// the model cannot see waiting receivers, so each matched send/receive pair
// is also checked to overlap in time: the hand-off is synchronous (Scherer,
// Lea & Scott, PPoPP'06, §2: a send returns only after its receiver took it).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "sync_test_util.hpp"
#include "weft/runtime.hpp"
#include "weft/sync/channel.hpp"
#include "weft/testing/linearizability.hpp"

namespace ws = weft::sync;
using ws::test::Rng;
using ws::test::scaled;

namespace {

// The sequential specification of a channel.
class ChannelModel {
 public:
  struct Op {
    enum Kind : std::uint8_t { send, receive, close } kind = send;
    int value = 0;  // send's value
  };
  struct Result {
    ws::ChannelStatus status = ws::ChannelStatus::success;
    int value = 0;  // a successful receive's value
    friend bool operator==(const Result&, const Result&) = default;
  };
  struct State {
    std::deque<int> values;  // sent, not yet received
    bool closed = false;
    friend bool operator==(const State&, const State&) = default;
  };

  ChannelModel(std::size_t capacity, bool lifo) : capacity_(capacity), lifo_(lifo) {}
  State init() const { return {}; }
  std::size_t hash(const State& s) const {
    std::size_t h = s.closed ? 0x9E3779B97F4A7C15ull : 17;
    for (int v : s.values) h = h * 1000003u ^ std::size_t(v);
    return h;
  }
  std::optional<State> step(const State& s, const Op& op, const Result& r) const {
    using S = ws::ChannelStatus;
    const bool full = capacity_ > 0 && s.values.size() == capacity_;
    State next = s;
    switch (op.kind) {
      case Op::close:
        next.closed = true;
        return next;
      case Op::send:
        if (r.status == S::closed) return s.closed ? std::optional(s) : std::nullopt;
        if (s.closed) return std::nullopt;
        if (r.status == S::success) {
          if (full) return std::nullopt;
          next.values.push_back(op.value);
          return next;
        }
        // would_block / timeout: a buffered channel was full; an unbuffered
        // one had no waiting receiver (not part of this state).
        return capacity_ == 0 || full ? std::optional(s) : std::nullopt;
      case Op::receive:
        if (r.status == S::success) {
          if (s.values.empty()) return std::nullopt;
          const int v = lifo_ ? s.values.back() : s.values.front();
          if (v != r.value) return std::nullopt;
          if (lifo_)
            next.values.pop_back();
          else
            next.values.pop_front();
          return next;
        }
        if (!s.values.empty()) return std::nullopt;
        return (r.status == S::closed) == s.closed ? std::optional(s) : std::nullopt;
    }
    return std::nullopt;
  }

 private:
  std::size_t capacity_;
  bool lifo_;
};

using Op = ChannelModel::Op;
using Result = ChannelModel::Result;
using History = std::vector<ws::Operation<Op, Result>>;

// One history: each caller performs `ops` random try/timed operations; caller
// 0 closes the channel near the end when `with_close`.
template <class Callers>
History record(ws::Channel<int>& ch, const Callers& callers, int ops, std::uint64_t seed, bool with_close) {
  ws::HistoryRecorder<Op, Result> rec(std::size_t(callers.callers()), std::size_t(ops));
  callers.run([&](int c) {
    Rng rng(seed + std::uint64_t(c));
    auto& log = rec.thread(std::size_t(c));
    for (int i = 0; i < ops; ++i) {
      const bool timed = rng.below(2) == 0;
      const auto patience = std::chrono::microseconds(rng.below(300));
      if (with_close && c == 0 && i == ops - 3) {
        log.call(Op{Op::close, 0}, [&] {
          ch.close();
          return Result{};
        });
      } else if (rng.below(2) == 0) {
        const int v = c * 1000 + i;
        log.call(Op{Op::send, v}, [&] {
          int x = v;
          return Result{timed ? ch.send_for(x, patience) : ch.try_send(x), 0};
        });
      } else {
        log.call(Op{Op::receive, 0}, [&] {
          int x = -1;
          const ws::ChannelStatus st = timed ? ch.receive_for(x, patience) : ch.try_receive(x);
          return Result{st, st == ws::ChannelStatus::success ? x : 0};
        });
      }
      if (rng.below(4) == 0) weft::this_ult::yield();
    }
  });
  return rec.history();
}

// Every value received was sent in an overlapping send (unbuffered).
::testing::AssertionResult hand_offs_overlap(const History& h) {
  std::map<int, const ws::Operation<Op, Result>*> sends;
  for (const auto& o : h)
    if (o.op.kind == Op::send && o.result.status == ws::ChannelStatus::success) sends[o.op.value] = &o;
  for (const auto& o : h) {
    if (o.op.kind != Op::receive || o.result.status != ws::ChannelStatus::success) continue;
    auto it = sends.find(o.result.value);
    if (it == sends.end()) return ::testing::AssertionFailure() << "received " << o.result.value << ", never sent";
    const auto& s = *it->second;
    if (!(s.invoke < o.response && o.invoke < s.response))
      return ::testing::AssertionFailure() << "the hand-off of " << o.result.value << " did not overlap its receive";
  }
  return ::testing::AssertionSuccess();
}

struct Kind {
  std::size_t capacity;
  ws::ChannelOrder order;
  const char* name;
};
class ChannelHistories : public ::testing::TestWithParam<Kind> {};
INSTANTIATE_TEST_SUITE_P(All, ChannelHistories,
                         ::testing::Values(Kind{0, ws::ChannelOrder::fair, "unbuffered_fair"},
                                           Kind{0, ws::ChannelOrder::unfair, "unbuffered_unfair"},
                                           Kind{2, ws::ChannelOrder::fair, "buffered2"}),
                         [](const auto& info) { return std::string(info.param.name); });

template <class Callers>
void check_rounds(const Kind& k, const Callers& callers, int rounds, int ops) {
  const bool lifo = k.capacity == 0 && k.order == ws::ChannelOrder::unfair;
  const ChannelModel model(k.capacity, lifo);
  int hand_offs = 0;
  for (int round = 0; round < rounds; ++round) {
    ws::Channel<int> ch(k.capacity, k.order);
    const History h = record(ch, callers, ops, std::uint64_t(round) * 31 + 1, round % 2 == 1);
    ASSERT_TRUE(ws::test::linearizable(model, h)) << "history " << round;
    if (k.capacity == 0) {
      ASSERT_TRUE(hand_offs_overlap(h)) << "history " << round;
    }
    for (const auto& o : h) hand_offs += o.op.kind == Op::receive && o.result.status == ws::ChannelStatus::success;
  }
  EXPECT_GT(hand_offs, 0);  // the histories did exercise hand-offs
}

TEST_P(ChannelHistories, ThreadsAreLinearizable) {
  check_rounds(GetParam(), ws::test::OnThreads{3}, scaled(60, 8), 30);
}

TEST_P(ChannelHistories, UltsOnTwoWorkersAreLinearizable) {
  weft::Runtime rt(ws::test::runtime_config(2));
  check_rounds(GetParam(), ws::test::OnUlts{rt, 2}, scaled(60, 8), 30);
}

// The model itself rejects what a channel must not do.
TEST(ChannelModel, RejectsWrongHistories) {
  using S = ws::ChannelStatus;
  const ChannelModel fifo(0, false), bounded(1, false);
  auto st = fifo.init();
  st = *fifo.step(st, Op{Op::send, 1}, Result{S::success, 0});
  st = *fifo.step(st, Op{Op::send, 2}, Result{S::success, 0});
  EXPECT_FALSE(fifo.step(st, Op{Op::receive, 0}, Result{S::success, 2}));  // not FIFO
  EXPECT_FALSE(fifo.step(st, Op{Op::receive, 0}, Result{S::closed, 0}));   // not closed
  EXPECT_TRUE(ChannelModel(0, true).step(st, Op{Op::receive, 0}, Result{S::success, 2}));  // LIFO
  auto one = *bounded.step(bounded.init(), Op{Op::send, 1}, Result{S::success, 0});
  EXPECT_FALSE(bounded.step(one, Op{Op::send, 2}, Result{S::success, 0}));  // over capacity
  auto closed = *bounded.step(one, Op{Op::close, 0}, Result{});
  EXPECT_FALSE(bounded.step(closed, Op{Op::receive, 0}, Result{S::closed, 0}));  // not drained
  EXPECT_FALSE(bounded.step(closed, Op{Op::send, 3}, Result{S::success, 0}));    // send after close
}

}  // namespace
