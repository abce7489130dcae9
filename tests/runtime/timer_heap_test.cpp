// A worker's timers on their own (runtime/src/timer_heap.hpp): due entries
// fire earliest first and only once, a cancelled entry never fires, and
// time_to_next says how long the worker may sleep. Time is passed in, so
// nothing here waits.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "timer_heap.hpp"

namespace weft::detail {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;
using time_point = TimerHeap::time_point;

const time_point kStart = time_point{} + std::chrono::hours(1);

std::vector<TimerEntry*> fire_all_due(TimerHeap& heap, time_point now) {
  std::vector<TimerEntry*> fired;
  std::size_t n = heap.fire_due(now, [&](TimerEntry* e) {
    EXPECT_TRUE(e->fired);  // marked before it is handed over
    fired.push_back(e);
  });
  EXPECT_EQ(n, fired.size());
  return fired;
}

TEST(TimerHeap, EmptyHeapHasNoNextDeadlineAndFiresNothing) {
  TimerHeap heap;
  EXPECT_TRUE(heap.empty());
  EXPECT_EQ(heap.time_to_next(kStart), nanoseconds(-1));
  EXPECT_TRUE(fire_all_due(heap, kStart + std::chrono::hours(1)).empty());
}

TEST(TimerHeap, FiresDueEntriesEarliestFirstWhateverTheInsertionOrder) {
  std::minstd_rand rng(7);
  std::vector<TimerEntry> entries(200);
  for (std::size_t i = 0; i < entries.size(); ++i)
    entries[i].deadline = kStart + microseconds(static_cast<long>(rng() % 1000));  // repeats included
  std::vector<TimerEntry*> order;
  for (auto& e : entries) order.push_back(&e);
  std::shuffle(order.begin(), order.end(), rng);
  TimerHeap heap;
  for (TimerEntry* e : order) heap.add(e);
  EXPECT_EQ(heap.size(), entries.size());

  std::vector<TimerEntry*> fired;
  for (long t = 0; t <= 1000; t += 50) {  // the worker wakes every 50 us
    std::vector<TimerEntry*> now = fire_all_due(heap, kStart + microseconds(t));
    for (TimerEntry* e : now) EXPECT_LE(e->deadline, kStart + microseconds(t));
    fired.insert(fired.end(), now.begin(), now.end());
    if (!heap.empty()) {
      EXPECT_GT(heap.time_to_next(kStart + microseconds(t)), nanoseconds(0));
    }
  }
  EXPECT_TRUE(heap.empty());
  ASSERT_EQ(fired.size(), entries.size());
  EXPECT_TRUE(std::is_sorted(fired.begin(), fired.end(),
                             [](const TimerEntry* a, const TimerEntry* b) { return a->deadline < b->deadline; }));
  std::sort(fired.begin(), fired.end());
  EXPECT_EQ(std::adjacent_find(fired.begin(), fired.end()), fired.end());  // each once
}

TEST(TimerHeap, EntriesDueExactlyNowFireAndLaterOnesWait) {
  TimerEntry now_entry{kStart}, later{kStart + nanoseconds(1)};
  TimerHeap heap;
  heap.add(&later);
  heap.add(&now_entry);
  std::vector<TimerEntry*> fired = fire_all_due(heap, kStart);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0], &now_entry);
  EXPECT_FALSE(later.fired);
  EXPECT_EQ(heap.time_to_next(kStart), nanoseconds(1));
}

TEST(TimerHeap, TimeToNextIsTheEarliestDeadlineAndZeroOnceDue) {
  TimerEntry a{kStart + microseconds(300)}, b{kStart + microseconds(100)}, c{kStart + microseconds(200)};
  TimerHeap heap;
  heap.add(&a);
  heap.add(&b);
  heap.add(&c);
  EXPECT_EQ(heap.time_to_next(kStart), microseconds(100));
  EXPECT_EQ(heap.time_to_next(kStart + microseconds(40)), microseconds(60));
  EXPECT_EQ(heap.time_to_next(kStart + microseconds(500)), nanoseconds(0));  // overdue: don't sleep
}

TEST(TimerHeap, CancelledEntryNeverFiresAndTheRestKeepTheirOrder) {
  std::vector<TimerEntry> entries(50);
  for (std::size_t i = 0; i < entries.size(); ++i) entries[i].deadline = kStart + microseconds(static_cast<long>(i));
  TimerHeap heap;
  for (std::size_t i = entries.size(); i-- > 0;) heap.add(&entries[i]);
  for (std::size_t i = 0; i < entries.size(); i += 3) EXPECT_TRUE(heap.cancel(&entries[i]));
  EXPECT_EQ(heap.time_to_next(kStart), microseconds(1));  // entry 0 was cancelled
  std::vector<TimerEntry*> fired = fire_all_due(heap, kStart + std::chrono::hours(1));
  std::vector<TimerEntry*> expected;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (i % 3 != 0) expected.push_back(&entries[i]);
  EXPECT_EQ(fired, expected);
  for (std::size_t i = 0; i < entries.size(); i += 3) EXPECT_FALSE(entries[i].fired);
}

TEST(TimerHeap, CancelAfterFiringOrOfAnUnknownEntrySaysNo) {
  TimerEntry due{kStart}, stranger{kStart};
  TimerHeap heap;
  heap.add(&due);
  ASSERT_EQ(fire_all_due(heap, kStart).size(), 1u);
  EXPECT_FALSE(heap.cancel(&due));       // fired: the waiter was woken by the timer
  EXPECT_FALSE(heap.cancel(&stranger));  // never added
  EXPECT_TRUE(heap.empty());
}

TEST(TimerHeap, AnEntryCanBeArmedAgainAfterItWasCancelled) {
  TimerEntry e{kStart + microseconds(10)};
  TimerHeap heap;
  heap.add(&e);
  ASSERT_TRUE(heap.cancel(&e));
  EXPECT_TRUE(heap.empty());
  e.deadline = kStart + microseconds(20);
  heap.add(&e);
  EXPECT_TRUE(fire_all_due(heap, kStart + microseconds(10)).empty());
  EXPECT_EQ(fire_all_due(heap, kStart + microseconds(20)).size(), 1u);
  EXPECT_TRUE(e.fired);
}

}  // namespace
}  // namespace weft::detail
