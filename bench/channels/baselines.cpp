// Rows of `weft-bench channels` (baselines.hpp): weft's channels on ULTs and
// threads, Boost.Fiber channels, oneTBB concurrent_bounded_queue and a
// mutex + condition-variable queue.
#include "baselines.hpp"

#include <tbb/concurrent_queue.h>

#include <atomic>
#include <boost/fiber/all.hpp>
#include <condition_variable>
#include <deque>
#include <latch>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "weft/runtime.hpp"

namespace weft::bench::channels {

void check_sum(long long got, long long expected, const char* what) {
  if (got != expected)
    throw std::runtime_error(std::string(what) + ": received sum " + std::to_string(got) + ", expected " +
                             std::to_string(expected));
}

namespace {

// Runs producer(p) and consumer(c) for p, c < pairs on fresh kernel threads
// released together; returns the measured region (start to last join).
template <class Produce, class Consume>
Measurement on_threads(int pairs, long per_pair, Produce produce, Consume consume) {
  std::latch start(2 * pairs + 1);
  std::vector<std::thread> ts;
  std::atomic<long long> sum{0};
  for (int p = 0; p < pairs; ++p) {
    ts.emplace_back([&, p] {
      start.arrive_and_wait();
      produce(p);
    });
    ts.emplace_back([&] {
      start.arrive_and_wait();
      sum.fetch_add(consume());
    });
  }
  const double t0 = now_ns();
  start.arrive_and_wait();
  for (auto& t : ts) t.join();
  const double t1 = now_ns();
  check_sum(sum.load(), expected_sum(pairs, per_pair), "channels");
  return {t1 - t0, static_cast<double>(pairs) * static_cast<double>(per_pair)};
}

// Producer p sends p*per_pair .. (p+1)*per_pair-1.
template <class Send>
void produce_range(int p, long per_pair, Send send) {
  const long base = p * per_pair;
  for (long i = 0; i < per_pair; ++i) send(base + i);
}

// The mutex + condvar queue: bounded FIFO, or a rendezvous at capacity 0.
class MutexCondvarQueue {
 public:
  explicit MutexCondvarQueue(std::size_t capacity) : capacity_(capacity) {}
  void send(long v) {
    std::unique_lock lk(m_);
    const std::size_t room = capacity_ == 0 ? 1 : capacity_;
    not_full_.wait(lk, [&] { return q_.size() < room; });
    q_.push_back(v);
    const unsigned long long ticket = ++pushed_;
    not_empty_.notify_one();
    if (capacity_ == 0) taken_cv_.wait(lk, [&] { return popped_ >= ticket; });
  }
  long receive() {
    std::unique_lock lk(m_);
    not_empty_.wait(lk, [&] { return !q_.empty(); });
    const long v = q_.front();
    q_.pop_front();
    ++popped_;
    not_full_.notify_one();
    if (capacity_ == 0) taken_cv_.notify_all();
    return v;
  }

 private:
  std::mutex m_;
  std::condition_variable not_full_, not_empty_, taken_cv_;
  std::deque<long> q_;
  std::size_t capacity_;
  unsigned long long pushed_ = 0, popped_ = 0;
};

}  // namespace

Measurement weft_ults(int workers, int pairs, std::size_t capacity, sync::ChannelOrder order, long per_pair) {
  weft::Config cfg;
  cfg.workers = workers;
  weft::Runtime rt(cfg);
  sync::Channel<long> ch(capacity, order);
  std::atomic<long long> sum{0};
  std::atomic<int> producers_left{pairs};
  const double t0 = now_ns();
  std::vector<weft::Ult<void>> ults;
  for (int p = 0; p < pairs; ++p) {
    ults.push_back(rt.spawn_on(p % workers, [&, p] {
      produce_range(p, per_pair, [&](long v) { ch.send(v); });
      if (producers_left.fetch_sub(1) == 1) ch.close();
    }));
    ults.push_back(rt.spawn_on((p + 1) % workers, [&] {
      long long s = 0;
      for (long v : ch) s += v;
      sum.fetch_add(s);
    }));
  }
  for (auto& u : ults) u.join();
  const double t1 = now_ns();
  check_sum(sum.load(), expected_sum(pairs, per_pair), "weft ULT channel");
  return {t1 - t0, static_cast<double>(pairs) * static_cast<double>(per_pair)};
}

Measurement weft_threads(int pairs, std::size_t capacity, sync::ChannelOrder order, long per_pair) {
  sync::Channel<long> ch(capacity, order);
  return on_threads(
      pairs, per_pair, [&](int p) { produce_range(p, per_pair, [&](long v) { ch.send(v); }); },
      [&] {
        long long s = 0;
        for (long i = 0; i < per_pair; ++i) s += *ch.receive();
        return s;
      });
}

Measurement boost_fiber(int threads, int pairs, std::size_t capacity, long per_pair) {
  namespace bf = boost::fibers;
  std::size_t cap = 2;
  while (cap < capacity) cap *= 2;
  std::atomic<long long> sum{0};
  double t0 = 0, t1 = 0;
  auto body = [&](auto& ch) {
    std::vector<bf::fiber> fs;
    t0 = now_ns();
    for (int p = 0; p < pairs; ++p) {
      fs.emplace_back([&, p] { produce_range(p, per_pair, [&](long v) { ch.push(v); }); });
      fs.emplace_back([&] {
        long long s = 0;
        long v = 0;
        for (long i = 0; i < per_pair; ++i) {
          if (ch.pop(v) != bf::channel_op_status::success) throw std::runtime_error("boost channel pop failed");
          s += v;
        }
        sum.fetch_add(s);
      });
    }
    for (auto& f : fs) f.join();
    t1 = now_ns();
  };
  auto run = [&] {
    if (capacity == 0) {
      bf::unbuffered_channel<long> ch;
      body(ch);
    } else {
      bf::buffered_channel<long> ch(cap);
      body(ch);
    }
  };
  if (threads == 1) {
    std::thread(run).join();  // a fresh thread: its own round_robin scheduler
  } else {
    // `threads` threads share the fibers through shared_work; the helpers
    // sleep on a fiber condition until the driver's fibers are done.
    std::latch joined(threads);
    bf::mutex m;
    bf::condition_variable_any cv;
    bool done = false;
    std::vector<std::thread> helpers;
    for (int i = 1; i < threads; ++i)
      helpers.emplace_back([&] {
        bf::use_scheduling_algorithm<bf::algo::shared_work>();
        joined.count_down();
        std::unique_lock lk(m);
        cv.wait(lk, [&] { return done; });
      });
    std::thread driver([&] {
      bf::use_scheduling_algorithm<bf::algo::shared_work>();
      joined.arrive_and_wait();
      run();
      {
        std::unique_lock lk(m);
        done = true;
      }
      cv.notify_all();
    });
    driver.join();
    for (auto& h : helpers) h.join();
  }
  check_sum(sum.load(), expected_sum(pairs, per_pair), "Boost.Fiber channel");
  return {t1 - t0, static_cast<double>(pairs) * static_cast<double>(per_pair)};
}

Measurement tbb_bounded_queue(int pairs, std::size_t capacity, long per_pair) {
  tbb::concurrent_bounded_queue<long> q;
  q.set_capacity(static_cast<std::ptrdiff_t>(capacity == 0 ? 1 : capacity));
  return on_threads(
      pairs, per_pair, [&](int p) { produce_range(p, per_pair, [&](long v) { q.push(v); }); },
      [&] {
        long long s = 0;
        long v = 0;
        for (long i = 0; i < per_pair; ++i) {
          q.pop(v);
          s += v;
        }
        return s;
      });
}

Measurement mutex_condvar(int pairs, std::size_t capacity, long per_pair) {
  MutexCondvarQueue q(capacity);
  return on_threads(
      pairs, per_pair, [&](int p) { produce_range(p, per_pair, [&](long v) { q.send(v); }); },
      [&] {
        long long s = 0;
        for (long i = 0; i < per_pair; ++i) s += q.receive();
        return s;
      });
}

}  // namespace weft::bench::channels
