// The Chase–Lev work-stealing deque on its own (runtime/src/work_deque.hpp;
// Lê, Pop, Cohen & Zappa Nardelli, PPoPP'13): the owner pushes and pops the
// newest entry, thieves take the oldest, and every entry is taken exactly
// once, also while the array grows and when the owner and a thief race for
// the last entry (the paper's §3 correctness claim: no entry is lost or
// taken twice). Tickets travel with their entries through growth.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "weft/sched/cpu.hpp"
#include "work_deque.hpp"

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
  std::atomic<bool> done{false};
  std::vector<std::vector<int>> stolen(kThieves);
  std::vector<std::thread> thieves;
  for (int k = 0; k < kThieves; ++k)
    thieves.emplace_back([&, k] {
      for (;;) {
        const bool finished = done.load(std::memory_order_acquire);
        Task* out = nullptr;
        WorkDeque::StealResult r = d.steal(out);
        if (r == WorkDeque::StealResult::ok) stolen[static_cast<std::size_t>(k)].push_back(id_of(out));
        else if (r == WorkDeque::StealResult::empty && finished) return;
      }
    });
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
  done.store(true, std::memory_order_release);
  for (auto& t : thieves) t.join();

  EXPECT_EQ(wrong_tickets, 0);
  std::vector<int> times(kEntries, 0);
  for (int id : popped) ++times[static_cast<std::size_t>(id)];
  std::size_t total_stolen = 0;
  for (const auto& s : stolen) {
    total_stolen += s.size();
    for (int id : s) {
      ASSERT_GE(id, 0);
      ASSERT_LT(id, kEntries);
      ++times[static_cast<std::size_t>(id)];
    }
  }
  for (int i = 0; i < kEntries; ++i) ASSERT_EQ(times[static_cast<std::size_t>(i)], 1) << "entry " << i;
  EXPECT_EQ(popped.size() + total_stolen, static_cast<std::size_t>(kEntries));
  EXPECT_TRUE(d.empty());
}

// Thieves see entries in FIFO order: each thief's stolen ids ascend (the
// top index only moves forward), whatever the owner pops meanwhile.
TEST(WorkDeque, EachThiefStealsInPushOrder) {
  WorkDeque d(8);
  std::atomic<bool> done{false};
  std::vector<std::vector<int>> stolen(kThieves);
  std::vector<std::thread> thieves;
  for (int k = 0; k < kThieves; ++k)
    thieves.emplace_back([&, k] {
      for (;;) {
        const bool finished = done.load(std::memory_order_acquire);
        Task* out = nullptr;
        WorkDeque::StealResult r = d.steal(out);
        if (r == WorkDeque::StealResult::ok) stolen[static_cast<std::size_t>(k)].push_back(id_of(out));
        else if (r == WorkDeque::StealResult::empty && finished) return;
      }
    });
  for (int i = 0; i < kEntries; ++i) {
    d.push(task_of(i), ticket_of(i));
    if (i % 5 == 4) d.pop();
  }
  done.store(true, std::memory_order_release);
  for (auto& t : thieves) t.join();
  for (const auto& s : stolen)
    for (std::size_t j = 1; j < s.size(); ++j) ASSERT_LT(s[j - 1], s[j]);
}

// One entry, the owner's pop_entry() against one thief's steal(), released
// together each round: exactly one of them gets it (the CAS on top decides,
// the paper's Fig. 1 pop/steal race), and the deque is empty afterwards.
TEST(WorkDeque, OwnerAndThiefRacingForTheLastEntryExactlyOneWins) {
  WorkDeque d(2);
  std::atomic<int> round{-1};
  std::atomic<int> thief_done{-1};
  std::atomic<int> thief_wins{0};
  std::thread thief([&] {
    for (int r = 0; r < kRaceRounds; ++r) {
      while (round.load(std::memory_order_acquire) < r) sched::cpu_relax();
      Task* out = nullptr;
      WorkDeque::StealResult s;
      do s = d.steal(out);  // a lost race means the owner's CAS won; retry sees it empty
      while (s == WorkDeque::StealResult::lost_race);
      if (s == WorkDeque::StealResult::ok) {
        EXPECT_EQ(out, task_of(r));
        thief_wins.fetch_add(1, std::memory_order_relaxed);
      }
      thief_done.store(r, std::memory_order_release);
    }
  });
  int owner_wins = 0;
  for (int r = 0; r < kRaceRounds; ++r) {
    d.push(task_of(r), ticket_of(r));
    round.store(r, std::memory_order_release);
    WorkDeque::Entry e = d.pop_entry();
    if (e.task) {
      EXPECT_EQ(e.task, task_of(r));
      EXPECT_EQ(e.ticket, ticket_of(r));
      ++owner_wins;
    }
    while (thief_done.load(std::memory_order_acquire) < r) sched::cpu_relax();
    ASSERT_TRUE(d.empty()) << "round " << r;
  }
  thief.join();
  EXPECT_EQ(owner_wins + thief_wins.load(), kRaceRounds);
}

}  // namespace
}  // namespace weft::detail
