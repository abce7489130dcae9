// The Chase–Lev work-stealing deque on its own (runtime/src/work_deque.hpp;
// Lê, Pop, Cohen & Zappa Nardelli, PPoPP'13): the owner pushes and pops the
// newest entry, thieves take the oldest, and every entry is taken exactly
// once (the property the paper proves: no entry is lost or taken twice), also
// while the array grows and when the owner and a thief race for the last
// entry, and when the owner takes the oldest entry (take_top_if). Tickets
// travel with their entries through growth. Last, in a runtime: joining
// children in creation order takes their entries off the deque.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "weft/runtime.hpp"
#include "weft/sched/cpu.hpp"
#include "work_deque.hpp"
#include "worker.hpp"

namespace weft::detail {
namespace {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int kEntries = 20'000;
constexpr int kRaceRounds = 2'000;
#else
constexpr int kEntries = 200'000;
constexpr int kRaceRounds = 20'000;
#endif
constexpr int kThieves = 3;

// The deque stores Task pointers without dereferencing them: entry i is the
// pointer value (i + 1) * 64, and its ticket is derived from i as well.
Task* task_of(int i) { return reinterpret_cast<Task*>(static_cast<std::uintptr_t>(i + 1) * 64); }
int id_of(Task* t) { return static_cast<int>(reinterpret_cast<std::uintptr_t>(t) / 64) - 1; }
std::uint32_t ticket_of(int i) { return static_cast<std::uint32_t>(i) * 7u + 3u; }

// Threads that steal from a deque until the owner says it is finished and
// they find the deque empty; what each stole, in the order it stole it.
class Thieves {
 public:
  Thieves(WorkDeque& deque, int count) : stolen_(static_cast<std::size_t>(count)) {
    for (int k = 0; k < count; ++k)
      threads_.emplace_back([this, &deque, &mine = stolen_[static_cast<std::size_t>(k)]] {
        unsigned empty_polls = 0;
        for (;;) {
          polls_.fetch_add(1, std::memory_order_relaxed);
          const bool finished = owner_finished_.load(std::memory_order_acquire);
          Task* out = nullptr;
          WorkDeque::StealResult r = deque.steal(out);
          if (r == WorkDeque::StealResult::ok) {
            mine.push_back(id_of(out));
          } else if (r == WorkDeque::StealResult::empty) {
            if (finished) return;
            if (++empty_polls % 64 == 0) std::this_thread::yield();  // leave the owner a CPU on small machines
          }
        }
      });
  }
  ~Thieves() {
    if (!threads_.empty()) join();
  }
  // Steal attempts so far, all thieves together: a change means one is running.
  unsigned polls() const { return polls_.load(std::memory_order_relaxed); }
  // Call when the owner has pushed and popped all it will.
  std::vector<std::vector<int>> join() {
    owner_finished_.store(true, std::memory_order_release);
    for (auto& t : threads_) t.join();
    threads_.clear();
    return stolen_;
  }

 private:
  std::atomic<bool> owner_finished_{false};
  std::atomic<unsigned> polls_{0};
  std::vector<std::vector<int>> stolen_;
  std::vector<std::thread> threads_;
};

// Entries 0..n-1 were each taken exactly once, by the owner or a thief.
void expect_each_taken_once(int n, const std::vector<int>& popped, const std::vector<std::vector<int>>& stolen) {
  std::vector<int> times(static_cast<std::size_t>(n), 0);
  std::size_t taken = popped.size();
  for (int id : popped) ++times[static_cast<std::size_t>(id)];
  for (const auto& s : stolen) {
    taken += s.size();
    for (int id : s) {
      ASSERT_GE(id, 0);
      ASSERT_LT(id, n);
      ++times[static_cast<std::size_t>(id)];
    }
  }
  for (int i = 0; i < n; ++i) ASSERT_EQ(times[static_cast<std::size_t>(i)], 1) << "entry " << i;
  EXPECT_EQ(taken, static_cast<std::size_t>(n));
}

TEST(WorkDeque, OwnerPopsNewestFirstThievesStealOldestFirst) {
  WorkDeque d(4);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.pop(), nullptr);
  Task* out = nullptr;
  EXPECT_EQ(d.steal(out), WorkDeque::StealResult::empty);
  for (int i = 0; i < 4; ++i) d.push(task_of(i), ticket_of(i));
  EXPECT_EQ(d.peek_bottom(), task_of(3));
  std::uint32_t ticket = 0;
  ASSERT_TRUE(d.peek_top_ticket(ticket));
  EXPECT_EQ(ticket, ticket_of(0));
  ASSERT_EQ(d.steal(out), WorkDeque::StealResult::ok);
  EXPECT_EQ(out, task_of(0));
  WorkDeque::Entry e = d.pop_entry();
  EXPECT_EQ(e.task, task_of(3));
  EXPECT_EQ(e.ticket, ticket_of(3));
  ASSERT_EQ(d.steal(out), WorkDeque::StealResult::ok);
  EXPECT_EQ(out, task_of(1));
  e = d.pop_entry();  // the last entry, no thief around
  EXPECT_EQ(e.task, task_of(2));
  EXPECT_EQ(e.ticket, ticket_of(2));
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.pop_entry().task, nullptr);
  EXPECT_FALSE(d.peek_top_ticket(ticket));
  EXPECT_EQ(d.peek_bottom(), nullptr);
}

TEST(WorkDeque, GrowthKeepsOrderAndTickets) {
  WorkDeque d(2);
  constexpr int n = 1000;  // nine doublings
  for (int i = 0; i < n; ++i) d.push(task_of(i), ticket_of(i));
  for (int i = 0; i < n / 2; ++i) {  // the oldest half by stealing, tickets read at the top first
    std::uint32_t ticket = 0;
    ASSERT_TRUE(d.peek_top_ticket(ticket));
    EXPECT_EQ(ticket, ticket_of(i));
    Task* out = nullptr;
    ASSERT_EQ(d.steal(out), WorkDeque::StealResult::ok);
    EXPECT_EQ(out, task_of(i));
  }
  for (int i = n - 1; i >= n / 2; --i) {  // the newest half by popping
    WorkDeque::Entry e = d.pop_entry();
    ASSERT_EQ(e.task, task_of(i));
    EXPECT_EQ(e.ticket, ticket_of(i));
  }
  EXPECT_TRUE(d.empty());
}

TEST(WorkDeque, IndicesKeepWorkingAfterManyWrapsOfASmallArray) {
  WorkDeque d(2);
  for (int i = 0; i < 10'000; ++i) {
    d.push(task_of(i), ticket_of(i));
    d.push(task_of(i + 1), ticket_of(i + 1));
    Task* out = nullptr;
    ASSERT_EQ(d.steal(out), WorkDeque::StealResult::ok);
    EXPECT_EQ(out, task_of(i));
    WorkDeque::Entry e = d.pop_entry();
    EXPECT_EQ(e.task, task_of(i + 1));
    EXPECT_EQ(e.ticket, ticket_of(i + 1));
  }
  EXPECT_TRUE(d.empty());
}

// The owner pushes every entry (in bursts, popping some) into a deque that
// starts with two slots, while thieves steal; afterwards every entry has
// been taken by exactly one of them, and each entry the owner popped came
// with its own ticket.
TEST(WorkDeque, EveryEntryTakenExactlyOnceWhileThievesStealAndTheArrayGrows) {
  WorkDeque d(2);
  Thieves thieves(d, kThieves);
  std::vector<int> popped;
  int wrong_tickets = 0;
  for (int i = 0; i < kEntries;) {
    const int burst = 1 + i % 37;  // bursts grow the array while thieves take from the top
    for (int j = 0; j < burst && i < kEntries; ++j, ++i) d.push(task_of(i), ticket_of(i));
    for (int j = 0; j < burst / 3; ++j) {
      WorkDeque::Entry e = d.pop_entry();
      if (!e.task) break;
      popped.push_back(id_of(e.task));
      wrong_tickets += e.ticket != ticket_of(id_of(e.task));
    }
  }
  for (WorkDeque::Entry e = d.pop_entry(); e.task; e = d.pop_entry()) {
    popped.push_back(id_of(e.task));
    wrong_tickets += e.ticket != ticket_of(id_of(e.task));
  }
  std::vector<std::vector<int>> stolen = thieves.join();

  EXPECT_EQ(wrong_tickets, 0);
  expect_each_taken_once(kEntries, popped, stolen);
  EXPECT_TRUE(d.empty());
}

// Thieves see entries in FIFO order: each thief's stolen ids ascend (the
// top index only moves forward), whatever the owner pops meanwhile.
TEST(WorkDeque, EachThiefStealsInPushOrder) {
  WorkDeque d(8);
  Thieves thieves(d, kThieves);
  for (int i = 0; i < kEntries; ++i) {
    d.push(task_of(i), ticket_of(i));
    if (i % 5 == 4) d.pop();
  }
  for (const auto& s : thieves.join())
    for (std::size_t j = 1; j < s.size(); ++j) ASSERT_LT(s[j - 1], s[j]);
}

// The deque never holds more than one entry: each round the owner pushes one
// and pops it at once while a thief keeps stealing, so every round is the
// race for the last entry between pop_entry() and steal() (the CAS on top
// decides). Exactly one side gets each entry, and the deque is empty after
// every round.
TEST(WorkDeque, OwnerAndAThiefRacingForTheLastEntryExactlyOneWins) {
  WorkDeque d(2);
  Thieves thieves(d, 1);
  std::minstd_rand rng(42);
  std::vector<int> popped;
  for (int r = 0; r < kRaceRounds; ++r) {
    // Briefly wait for the thief to be running, so that most rounds race.
    const unsigned seen = thieves.polls();
    for (int i = 0; i < 200 && thieves.polls() == seen; ++i) sched::cpu_relax();
    d.push(task_of(r), ticket_of(r));
    for (unsigned i = rng() % 256; i > 0; --i) sched::cpu_relax();  // a window of varying length
    WorkDeque::Entry e = d.pop_entry();
    if (e.task) {
      ASSERT_EQ(e.task, task_of(r));
      ASSERT_EQ(e.ticket, ticket_of(r));
      popped.push_back(r);
    }
    ASSERT_TRUE(d.empty()) << "round " << r;
  }
  std::vector<std::vector<int>> stolen = thieves.join();
  expect_each_taken_once(kRaceRounds, popped, stolen);
  RecordProperty("rounds_the_thief_won", static_cast<int>(stolen[0].size()));  // ~half on an idle 2-core machine
}

// take_top_if (a joiner taking the child it joins in creation order) takes
// the oldest entry only when it is the one named, and never changes the rest.
TEST(WorkDeque, OwnerTakesTheOldestEntryOnlyWhenItIsTheOneNamed) {
  WorkDeque d(2);
  EXPECT_FALSE(d.take_top_if(task_of(0)));  // empty
  for (int i = 0; i < 5; ++i) d.push(task_of(i), ticket_of(i));
  EXPECT_EQ(d.size(), 5u);
  EXPECT_FALSE(d.take_top_if(task_of(1)));  // in the deque, but not the oldest
  EXPECT_FALSE(d.take_top_if(task_of(4)));  // the newest is not taken from the top
  EXPECT_EQ(d.size(), 5u);
  EXPECT_TRUE(d.take_top_if(task_of(0)));
  EXPECT_FALSE(d.take_top_if(task_of(0)));  // taken once only
  std::uint32_t ticket = 0;
  ASSERT_TRUE(d.peek_top_ticket(ticket));
  EXPECT_EQ(ticket, ticket_of(1));
  EXPECT_EQ(d.size(), 4u);
  EXPECT_EQ(d.pop(), task_of(4));
  Task* out = nullptr;
  ASSERT_EQ(d.steal(out), WorkDeque::StealResult::ok);
  EXPECT_EQ(out, task_of(1));
  EXPECT_TRUE(d.take_top_if(task_of(2)));
  EXPECT_TRUE(d.take_top_if(task_of(3)));  // the last entry
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.size(), 0u);
  d.push(task_of(5), ticket_of(5));  // indices go on from where the top stopped
  EXPECT_EQ(d.peek_bottom(), task_of(5));
  EXPECT_EQ(d.pop(), task_of(5));
}

// The owner takes entries from the top in push order while thieves steal
// them there too: every entry is taken exactly once, also when the owner and
// a thief race for the same oldest entry.
TEST(WorkDeque, OwnerTakingFromTheTopAndThievesTakeEachEntryOnce) {
  WorkDeque d(2);
  Thieves thieves(d, kThieves);
  std::vector<int> taken_by_owner;
  int next_to_take = 0;
  for (int i = 0; i < kEntries;) {
    const int burst = 1 + i % 23;
    for (int j = 0; j < burst && i < kEntries; ++j, ++i) d.push(task_of(i), ticket_of(i));
    // Try the entries in push order, as a joiner joining its children in
    // creation order does; one a thief took first is skipped.
    for (; next_to_take < i; ++next_to_take)
      if (d.take_top_if(task_of(next_to_take))) taken_by_owner.push_back(next_to_take);
  }
  for (WorkDeque::Entry e = d.pop_entry(); e.task; e = d.pop_entry()) taken_by_owner.push_back(id_of(e.task));
  std::vector<std::vector<int>> stolen = thieves.join();
  expect_each_taken_once(kEntries, taken_by_owner, stolen);
  EXPECT_TRUE(d.empty());
}

// In a runtime: a ULT that spawns batches and joins each batch in creation
// order, never yielding, leaves no entries behind in its worker's deque. (It
// used to claim each child and leave its entry, and with it the child's
// block, until the joiner yielded: 500 entries more per batch here, and ~27 MB
// per batch of 10^5 in the benchmark's pattern.)
class JoinInCreationOrder : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Workers, JoinInCreationOrder, ::testing::Values(1, 2));

TEST_P(JoinInCreationOrder, LeavesNoStaleEntriesBehind) {
  Config c;
  c.workers = GetParam();
  c.pin_workers = false;
  Runtime rt(c);
  const std::vector<std::size_t> left = rt.spawn_on(0, [] {
      std::vector<std::size_t> entries;
      for (int batch = 0; batch < 20; ++batch) {
        std::vector<Ult<int>> children;
        for (int i = 0; i < 500; ++i) children.push_back(spawn([i] { return i; }));
        long sum = 0;
        for (auto& child : children) sum += child.join();
        EXPECT_EQ(sum, 500 * 499 / 2);
        entries.push_back(tls_worker->deque_entries());
      }
      return entries;
    }).join();
  for (std::size_t batch = 0; batch < left.size(); ++batch)
    EXPECT_EQ(left[batch], 0u) << "entries left in the deque after batch " << batch;
}

}  // namespace
}  // namespace weft::detail
