// `weft-bench channels`: hand-offs through weft::sync::Channel beside
// Boost.Fiber's channels (ULT rows), oneTBB's concurrent_bounded_queue and a
// mutex + condition-variable queue (kernel-thread rows), issue #12:
//
//  * channels/ult/<kind>/<w>w-<p>p: p producer and p consumer ULTs on w
//    workers (1 and all), unbuffered (fair "weft", unfair "weft-unfair") and
//    buffered with capacity 1, 64, 1024; Boost.Fiber fibers on w threads
//    (round_robin, or work_stealing);
//  * channels/threads/<kind>/<p>p: p producer and p consumer kernel threads;
//  * channels/handoff/<p>pairs: the synchronous-queues paper's figure
//    (Scherer, Lea & Scott, PPoPP'06, §4, hand-offs vs producer-consumer
//    pairs) for the fair and the unfair mode, beside the lock-based queue.
// Targets (issue #12): unbuffered ULT hand-off >= 3x Boost.Fiber on one
// worker, >= 1.5x on all workers; >= 2x the mutex+condvar queue between
// kernel threads.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "baselines.hpp"

namespace weft::bench::channels {
namespace {

using sync::ChannelOrder;

std::string kind_name(std::size_t capacity) {
  return capacity == 0 ? "unbuffered" : "buffered-" + std::to_string(capacity);
}

std::vector<Case> channel_cases(const Options& o) {
  const int all = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const long ult_msgs = o.quick ? 20'000 : 400'000;     // per pair
  const long thread_msgs = o.quick ? 4'000 : 100'000;  // per pair
  const std::vector<std::size_t> capacities = {0, 1, 64, 1024};
  std::vector<Case> cases;

  // ULTs: 1:1 on one worker and on all; N:N on all.
  struct Shape {
    int workers, pairs;
  };
  const std::vector<Shape> shapes = {{1, 1}, {all, 1}, {all, 2 * all}};
  for (std::size_t cap : capacities) {
    for (Shape s : shapes) {
      const long per = ult_msgs / s.pairs;
      Case c("channels/ult/" + kind_name(cap) + "/" + std::to_string(s.workers) + "w-" + std::to_string(s.pairs) + "p",
             std::to_string(s.pairs) + " producer + " + std::to_string(s.pairs) + " consumer ULTs on " +
                 std::to_string(s.workers) + " worker(s), " + std::to_string(per * s.pairs) + " values",
             "ns/transfer");
      c.add("weft", [=] { return weft_ults(s.workers, s.pairs, cap, ChannelOrder::fair, per); });
      if (cap == 0) c.add("weft-unfair", [=] { return weft_ults(s.workers, s.pairs, cap, ChannelOrder::unfair, per); });
      c.add(cap <= 1 && cap > 0 ? "boost-fiber (capacity 2)" : "boost-fiber",
            [=] { return boost_fiber(s.workers, s.pairs, cap, per); });
      cases.push_back(std::move(c));
    }
  }

  // Kernel threads: 1:1 and N:N.
  for (std::size_t cap : capacities) {
    for (int pairs : {1, all}) {
      if (pairs == all && pairs == 1 && cases.back().name.ends_with("/1p")) continue;  // one core: 1p twice
      const long per = thread_msgs / pairs;
      Case c("channels/threads/" + kind_name(cap) + "/" + std::to_string(pairs) + "p",
             std::to_string(pairs) + " producer + " + std::to_string(pairs) + " consumer threads, " +
                 std::to_string(per * pairs) + " values",
             "ns/transfer");
      c.add("weft", [=] { return weft_threads(pairs, cap, ChannelOrder::fair, per); });
      if (cap == 0) c.add("weft-unfair", [=] { return weft_threads(pairs, cap, ChannelOrder::unfair, per); });
      c.add("mutex+condvar", [=] { return mutex_condvar(pairs, cap, per); });
      c.add(cap == 0 ? "tbb-bounded-queue (capacity 1)" : "tbb-bounded-queue",
            [=] { return tbb_bounded_queue(pairs, cap, per); });
      cases.push_back(std::move(c));
    }
  }

  // The paper's hand-off figure: throughput against producer-consumer pairs.
  const std::vector<int> pair_counts = o.quick ? std::vector<int>{1, 4} : std::vector<int>{1, 2, 4, 8, 16};
  for (int pairs : pair_counts) {
    const long per = std::max(1L, thread_msgs / pairs);
    Case c("channels/handoff/" + std::to_string(pairs) + "pairs",
           "the paper's figure: " + std::to_string(pairs) + " producer-consumer thread pairs, unbuffered, " +
               std::to_string(per * pairs) + " hand-offs",
           "ns/transfer");
    c.add("weft", [=] { return weft_threads(pairs, 0, ChannelOrder::fair, per); });
    c.add("weft-unfair", [=] { return weft_threads(pairs, 0, ChannelOrder::unfair, per); });
    c.add("mutex+condvar", [=] { return mutex_condvar(pairs, 0, per); });
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace

WEFT_BENCH_SUITE("channels",
                 "Channel hand-offs (unbuffered fair/unfair, buffered 1/64/1024) on ULTs and threads beside "
                 "Boost.Fiber channels, oneTBB concurrent_bounded_queue and a mutex+condvar queue; the "
                 "synchronous-queues paper's hand-off figure",
                 channel_cases);

}  // namespace weft::bench::channels
