#pragma once
// Recording concurrent histories and checking them for linearizability
// (Herlihy & Wing 1990).
//
// Recording: HistoryRecorder gives each thread a ThreadLog with a buffer
// allocated up front; ThreadLog::call(op, f) stamps the invocation, runs f,
// stamps the response and stores {invoke, response, thread, op, result}.
// Timestamps come from one atomic counter per recorder (a seq_cst
// fetch_add): if a response stamp is smaller than an invocation stamp, the
// response really happened before the invocation, which is all the
// real-time order of linearizability needs.
//
// Checking: the Wing & Gong search as improved by Lowe ("Testing for
// linearizability", CCPE 2017; the "WGL" algorithm, also used by Porcupine
// and Knossos): a depth-first search over the history's events kept in a
// doubly linked list, which linearizes a pending call whenever the model
// accepts it and backtracks at the first return whose call is not yet
// linearized, with memoization of the visited configurations (bitset of
// linearized operations, model state) so that no configuration is explored
// twice. Models are Porcupine-style: step(state, op, result) returns the next
// state if the sequential specification allows `op` to return `result`.
//
// Test support, not part of weft's API: weft's own tests (and benchmarks)
// reach it through the weft_testing CMake target (testing/CMakeLists.txt);
// it is not installed. Its names stay in weft::sync, beside the sync
// objects and sequential models it checks.

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "weft/sync/bounded_queue.hpp"
#include "weft/sync/bounded_stack.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/fetch_multiply.hpp"

namespace weft::sync {

// One completed operation of a history.
template <class Op, class Result>
struct Operation {
  std::uint64_t invoke = 0;    // stamp taken before the call
  std::uint64_t response = 0;  // stamp taken after the return; > invoke
  std::uint32_t thread = 0;
  Op op{};
  Result result{};
};

// Records the histories of up to `threads` threads, `ops_per_thread` each.
// Recording allocates nothing; thread i uses only thread(i).
template <class Op, class Result>
class HistoryRecorder {
 public:
  using Entry = Operation<Op, Result>;

  class alignas(cache_line_size) ThreadLog {
   public:
    // Runs f() (which performs `op` and returns its result) and records it.
    template <class F>
    Result call(const Op& op, F&& f) {
      if (size_ == capacity_) throw std::length_error("HistoryRecorder: thread log full");
      const std::uint64_t t0 = clock_->fetch_add(1, std::memory_order_seq_cst);
      Result r = std::forward<F>(f)();
      const std::uint64_t t1 = clock_->fetch_add(1, std::memory_order_seq_cst);
      buf_[size_++] = Entry{t0, t1, id_, op, r};
      return r;
    }
    std::size_t size() const noexcept { return size_; }

   private:
    friend class HistoryRecorder;
    std::atomic<std::uint64_t>* clock_ = nullptr;
    std::unique_ptr<Entry[]> buf_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
    std::uint32_t id_ = 0;
  };

  HistoryRecorder(std::size_t threads, std::size_t ops_per_thread)
      : logs_(std::make_unique<ThreadLog[]>(threads)), threads_(threads) {
    for (std::size_t i = 0; i < threads; ++i) {
      logs_[i].clock_ = &clock_;
      logs_[i].buf_ = std::make_unique<Entry[]>(ops_per_thread);
      logs_[i].capacity_ = ops_per_thread;
      logs_[i].id_ = static_cast<std::uint32_t>(i);
    }
  }

  ThreadLog& thread(std::size_t i) { return logs_[i]; }
  std::size_t threads() const noexcept { return threads_; }

  // The recorded operations; call after the recording threads are joined.
  std::vector<Entry> history() const {
    std::vector<Entry> out;
    for (std::size_t i = 0; i < threads_; ++i)
      out.insert(out.end(), logs_[i].buf_.get(), logs_[i].buf_.get() + logs_[i].size_);
    return out;
  }
  // Forgets what was recorded (not while threads record).
  void clear() noexcept {
    for (std::size_t i = 0; i < threads_; ++i) logs_[i].size_ = 0;
  }

 private:
  alignas(cache_line_size) std::atomic<std::uint64_t> clock_{1};
  std::unique_ptr<ThreadLog[]> logs_;
  std::size_t threads_;
};

// ---------------------------------------------------------------- models

// A sequential specification for the checker.
template <class M>
concept LinearizabilityModel =
    requires(const M& m, const typename M::State& s, const typename M::Op& op, const typename M::Result& r) {
      typename M::State;
      typename M::Op;
      typename M::Result;
      { m.init() } -> std::convertible_to<typename M::State>;
      { m.step(s, op, r) } -> std::same_as<std::optional<typename M::State>>;
      { m.hash(s) } -> std::convertible_to<std::size_t>;
    } && std::equality_comparable<typename M::State> && std::copyable<typename M::State>;

// Any copyable sequential object with operator== and hash() is its own model
// (FetchMultiply, FetchAdd).
template <class Seq>
class SequentialModel {
 public:
  using State = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;
  explicit SequentialModel(Seq initial = Seq{}) : initial_(std::move(initial)) {}
  State init() const { return initial_; }
  std::optional<State> step(const State& s, const Op& op, const Result& r) const {
    State next = s;
    if (!(next.apply(op) == r)) return std::nullopt;
    return next;
  }
  std::size_t hash(const State& s) const { return s.hash(); }

 private:
  Seq initial_;
};

// Fetch&Multiply (the paper's benchmark object): returns the old value,
// multiplies the value by the argument.
template <class T>
using FetchMultiplyModel = SequentialModel<FetchMultiply<T>>;
template <class T>
using FetchAddModel = SequentialModel<FetchAdd<T>>;

namespace detail {
template <class T>
std::size_t hash_sequence(const std::vector<T>& v) {
  std::size_t h = 0x9E3779B97F4A7C15ull ^ v.size();
  for (const T& x : v) h = (h ^ std::hash<T>{}(x)) * 0x100000001B3ull;
  return h;
}
}  // namespace detail

namespace detail {

// A sequence of bounded capacity (unbounded by default), the shape of both
// models below: an add appends at the back and fails iff full; a remove
// fails iff empty and otherwise takes the oldest element (kFifo) or the
// newest.
template <class T, class OpType, class ResultType, typename OpType::Kind kAdd, bool kFifo>
class BoundedSequenceModel {
 public:
  using State = std::vector<T>;  // front() is the oldest element, back() the newest
  using Op = OpType;
  using Result = ResultType;
  explicit BoundedSequenceModel(std::size_t capacity = std::numeric_limits<std::size_t>::max(), State initial = {})
      : cap_(capacity), initial_(std::move(initial)) {}
  State init() const { return initial_; }
  std::optional<State> step(const State& s, const Op& op, const Result& r) const {
    if (op.kind == kAdd) {
      if (s.size() >= cap_) return r.ok ? std::nullopt : std::optional<State>(s);
      if (!r.ok) return std::nullopt;
      State n = s;
      n.push_back(op.value);
      return n;
    }
    if (s.empty()) return r.ok ? std::nullopt : std::optional<State>(s);
    if (!r.ok || !(r.value == (kFifo ? s.front() : s.back()))) return std::nullopt;
    return kFifo ? State(s.begin() + 1, s.end()) : State(s.begin(), s.end() - 1);
  }
  std::size_t hash(const State& s) const { return hash_sequence(s); }

 private:
  std::size_t cap_;
  State initial_;
};

}  // namespace detail

// FIFO queue of bounded capacity (unbounded by default): enqueue fails iff
// full, dequeue fails iff empty and otherwise returns the oldest element.
template <class T>
using QueueModel = detail::BoundedSequenceModel<T, QueueOp<T>, QueueResult<T>, QueueOp<T>::Kind::enqueue, true>;

// LIFO stack of bounded capacity (unbounded by default): push fails iff
// full, pop fails iff empty and otherwise returns the newest element.
template <class T>
using StackModel = detail::BoundedSequenceModel<T, StackOp<T>, StackResult<T>, StackOp<T>::Kind::push, false>;

// ---------------------------------------------------------------- checker

enum class Verdict { linearizable, not_linearizable, gave_up };

struct CheckResult {
  Verdict verdict = Verdict::linearizable;
  std::size_t configurations = 0;  // distinct (linearized set, state) pairs visited
  std::size_t deepest = 0;         // most operations linearized on one search path
  std::string detail;              // why not / why given up
  bool linearizable() const noexcept { return verdict == Verdict::linearizable; }
  explicit operator bool() const noexcept { return linearizable(); }
};

// Decides whether `history` is linearizable with respect to `model`.
// Gives up (Verdict::gave_up) after `max_configurations` configurations.
template <LinearizabilityModel M>
CheckResult check_linearizability(const M& model,
                                  std::span<const Operation<typename M::Op, typename M::Result>> history,
                                  std::size_t max_configurations = 5'000'000) {
  using State = typename M::State;
  CheckResult res;
  const std::size_t n = history.size();
  if (n == 0) return res;
  for (std::size_t i = 0; i < n; ++i) {
    if (history[i].response <= history[i].invoke) {
      res.verdict = Verdict::not_linearizable;
      res.detail = "operation " + std::to_string(i) + " responds before it is invoked";
      return res;
    }
  }

  // Events sorted by time; at equal times calls come first (overlap).
  struct Event {
    std::uint64_t time;
    bool is_return;
    std::uint32_t op;
  };
  std::vector<Event> ev;
  ev.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    ev.push_back({history[i].invoke, false, static_cast<std::uint32_t>(i)});
    ev.push_back({history[i].response, true, static_cast<std::uint32_t>(i)});
  }
  std::stable_sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : (!a.is_return && b.is_return);
  });

  // Doubly linked list over event indices; node 2n is the head sentinel,
  // -1 the end.
  const int head = static_cast<int>(2 * n);
  std::vector<int> next(2 * n + 1), prev(2 * n + 1);
  std::vector<int> ret_of(2 * n, -1);  // call event -> its return event
  {
    std::vector<int> ret_pos(n);
    for (std::size_t e = 0; e < 2 * n; ++e)
      if (ev[e].is_return) ret_pos[ev[e].op] = static_cast<int>(e);
    for (std::size_t e = 0; e < 2 * n; ++e)
      if (!ev[e].is_return) ret_of[e] = ret_pos[ev[e].op];
  }
  next[head] = 0;
  prev[head] = -1;
  for (int e = 0; e < head; ++e) {
    prev[e] = e == 0 ? head : e - 1;
    next[e] = e + 1 == head ? -1 : e + 1;
  }
  auto unlink = [&](int e) {
    next[prev[e]] = next[e];
    if (next[e] != -1) prev[next[e]] = prev[e];
  };
  auto relink = [&](int e) {
    next[prev[e]] = e;
    if (next[e] != -1) prev[next[e]] = e;
  };
  auto lift = [&](int call) {
    unlink(call);
    unlink(ret_of[call]);
  };
  auto unlift = [&](int call) {
    relink(ret_of[call]);
    relink(call);
  };

  // Memo of visited configurations.
  const std::size_t words = (n + 63) / 64;
  struct Config {
    std::vector<std::uint64_t> bits;
    State state;
    std::size_t hash;
    bool operator==(const Config& o) const { return hash == o.hash && bits == o.bits && state == o.state; }
  };
  struct ConfigHash {
    std::size_t operator()(const Config& c) const noexcept { return c.hash; }
  };
  std::unordered_set<Config, ConfigHash> seen;
  std::vector<std::uint64_t> bits(words, 0);
  auto config_hash = [&](const State& s) {
    std::size_t h = model.hash(s);
    for (std::uint64_t w : bits) h = (h ^ (w + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2)));
    return h;
  };

  struct Frame {
    int call;
    State state;
  };
  std::vector<Frame> stack;
  stack.reserve(n);
  State state = model.init();
  int entry = next[head];
  while (next[head] != -1) {
    if (!ev[entry].is_return) {
      const std::uint32_t i = ev[entry].op;
      std::optional<State> ns = model.step(state, history[i].op, history[i].result);
      if (ns) {
        bits[i / 64] |= std::uint64_t{1} << (i % 64);
        Config c{bits, *ns, 0};
        c.hash = config_hash(c.state);
        if (seen.insert(std::move(c)).second) {
          if (seen.size() > max_configurations) {
            res.verdict = Verdict::gave_up;
            res.configurations = seen.size();
            res.detail = "gave up after " + std::to_string(max_configurations) + " configurations";
            return res;
          }
          stack.push_back(Frame{entry, std::move(state)});
          state = std::move(*ns);
          lift(entry);
          res.deepest = std::max(res.deepest, stack.size());
          entry = next[head];
          continue;
        }
        bits[i / 64] &= ~(std::uint64_t{1} << (i % 64));
      }
      entry = next[entry];
    } else {
      // A return whose call is not linearized: backtrack.
      if (stack.empty()) {
        res.verdict = Verdict::not_linearizable;
        res.configurations = seen.size();
        const Operation<typename M::Op, typename M::Result>& o = history[ev[entry].op];
        res.detail = "no linearization: at most " + std::to_string(res.deepest) + " of " + std::to_string(n) +
                     " operations can be ordered; operation " + std::to_string(ev[entry].op) + " (thread " +
                     std::to_string(o.thread) + ", [" + std::to_string(o.invoke) + ", " +
                     std::to_string(o.response) + "]) can never take effect";
        return res;
      }
      Frame f = std::move(stack.back());
      stack.pop_back();
      const std::uint32_t i = ev[f.call].op;
      bits[i / 64] &= ~(std::uint64_t{1} << (i % 64));
      state = std::move(f.state);
      unlift(f.call);
      entry = next[f.call];
    }
  }
  res.configurations = seen.size();
  return res;
}

// Convenience overload for containers of operations.
template <LinearizabilityModel M>
CheckResult check_linearizability(const M& model,
                                  const std::vector<Operation<typename M::Op, typename M::Result>>& history,
                                  std::size_t max_configurations = 5'000'000) {
  return check_linearizability(
      model, std::span<const Operation<typename M::Op, typename M::Result>>(history.data(), history.size()),
      max_configurations);
}

}  // namespace weft::sync
