// Rows of `weft-bench channels`: producer/consumer hand-offs through
// weft::sync::Channel and through what a user would pick instead
// (Boost.Fiber's channels, oneTBB's concurrent_bounded_queue, a std::mutex +
// std::condition_variable queue). Every function runs `pairs` producers and
// `pairs` consumers, each producer sends `per_pair` values, and checks that
// the consumers received exactly the values sent (sum and count), throwing
// std::runtime_error otherwise. ops = values transferred.
#pragma once

#include <cstddef>

#include "../harness.hpp"
#include "weft/sync/channel.hpp"

namespace weft::bench::channels {

// weft: ULTs on a runtime of `workers` workers.
Measurement weft_ults(int workers, int pairs, std::size_t capacity, sync::ChannelOrder order, long per_pair);
// weft: kernel threads (std::thread), one per producer and per consumer.
Measurement weft_threads(int pairs, std::size_t capacity, sync::ChannelOrder order, long per_pair);
// Boost.Fiber: unbuffered_channel (capacity 0) or buffered_channel (capacity
// rounded up to its required power of two >= 2); fibers on `threads`
// threads (1: round_robin; more: work_stealing).
Measurement boost_fiber(int threads, int pairs, std::size_t capacity, long per_pair);
// oneTBB concurrent_bounded_queue with set_capacity(max(capacity, 1)) (it
// has no rendezvous mode), kernel threads.
Measurement tbb_bounded_queue(int pairs, std::size_t capacity, long per_pair);
// A std::deque under a std::mutex with two std::condition_variables; for
// capacity 0 a rendezvous (the sender waits until its value is taken),
// kernel threads.
Measurement mutex_condvar(int pairs, std::size_t capacity, long per_pair);

// Throws unless `got` == `expected`.
void check_sum(long long got, long long expected, const char* what);
// The sum of every value the producers of one run send (0 .. pairs*per_pair-1).
inline long long expected_sum(int pairs, long per_pair) {
  const long long n = static_cast<long long>(pairs) * per_pair;
  return n * (n - 1) / 2;
}

}  // namespace weft::bench::channels
