// weft::mpi under mpirun (tests/mpi/CMakeLists.txt runs this on 2 and 3
// ranks, and at MPI_THREAD_SERIALIZED): many ULTs per rank with messages in
// flight and random yields, the collectives' values, MPI errors as
// exceptions, bad arguments, and waits from plain threads. Every rank runs
// every test in the same order; main() fails the job if any rank failed.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <weft/mpi.hpp>
#include <weft/runtime.hpp>

namespace {

using namespace weft;

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int kUltsPerRank = 40;
#else
constexpr int kUltsPerRank = 200;
#endif
constexpr int kMessagesPerUlt = 3;

mpi::ThreadLevel g_requested = mpi::ThreadLevel::multiple;
mpi::ThreadLevel g_provided = mpi::ThreadLevel::single;

Config workers(int n) {
  Config c;
  c.workers = n;
  c.pin_workers = false;  // several ranks share the CPUs
  return c;
}

void maybe_yield(std::minstd_rand& rng) {
  if (rng() % 3 == 0) this_ult::yield();
}

// The payload of message m of ULT u from rank r: a length and values that
// depend on all three, so a message delivered to the wrong receiver shows.
std::vector<std::uint64_t> payload(int r, int u, int m) {
  std::vector<std::uint64_t> v(1 + static_cast<std::size_t>((u * 7 + m) % 13) * 5);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = (std::uint64_t(r) << 48) ^ (std::uint64_t(u) << 24) ^ (m << 16) ^ k;
  return v;
}

// A non-arithmetic trivially copyable element (travels as bytes).
struct Record {
  int rank;
  int ult;
  double value;
  friend bool operator==(const Record&, const Record&) = default;
};

TEST(MpiEnvironment, ProvidesTheRequestedThreadLevel) {
  EXPECT_EQ(g_provided, g_requested) << mpi::to_string(g_provided);
  int flag = 0;
  MPI_Initialized(&flag);
  EXPECT_EQ(flag, 1);
  EXPECT_GE(mpi::size(), 2);
  EXPECT_EQ(mpi::rank(), [] { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }());
}

// Each ULT u of rank r sends kMessagesPerUlt messages to rank r+1 and
// receives as many from rank r-1 (tags u*kMessagesPerUlt+m), all in flight at
// once, completing receives with wait_any and sends with wait_all.
class MpiManyUlts : public ::testing::TestWithParam<int> {};

TEST_P(MpiManyUlts, RingExchangeWithRandomYields) {
  const int rank = mpi::rank(), ranks = mpi::size();
  const int next = (rank + 1) % ranks, prev = (rank + ranks - 1) % ranks;
  Runtime rt(workers(GetParam()));
  std::atomic<int> checked{0};
  rt.run([&] {
    std::vector<Ult<void>> ults;
    for (int u = 0; u < kUltsPerRank; ++u) {
      ults.push_back(spawn([&, u] {
        std::minstd_rand rng(static_cast<unsigned>(u * 31 + rank));
        std::array<std::vector<std::uint64_t>, kMessagesPerUlt> out, in;
        std::array<mpi::Request, kMessagesPerUlt> sends, recvs;
        for (int m = 0; m < kMessagesPerUlt; ++m) {
          out[m] = payload(rank, u, m);
          in[m].assign(payload(prev, u, m).size() + 3, 0);  // room to spare: count must say how many came
          recvs[m] = mpi::irecv(std::span(in[m]), prev, u * kMessagesPerUlt + m);
          maybe_yield(rng);
          sends[m] = mpi::isend(std::span(std::as_const(out[m])), next, u * kMessagesPerUlt + m);
          maybe_yield(rng);
        }
        for (int left = kMessagesPerUlt; left > 0; --left) {
          const mpi::Completion c = mpi::wait_any(recvs);
          const int m = static_cast<int>(c.index);
          EXPECT_FALSE(recvs[m].valid());
          EXPECT_EQ(c.status.source, prev);
          EXPECT_EQ(c.status.tag, u * kMessagesPerUlt + m);
          const auto expected = payload(prev, u, m);
          ASSERT_EQ(c.status.count, expected.size());
          EXPECT_TRUE(std::equal(expected.begin(), expected.end(), in[m].begin()));
          maybe_yield(rng);
        }
        mpi::wait_all(sends);
        // One more message as bytes (a struct), waited for from the receive side first.
        Record mine{rank, u, rank + u / 8.0}, theirs{};
        mpi::Request r = mpi::irecv(std::span(&theirs, 1), prev, 1'000'000 + u);
        mpi::Request s = mpi::isend(std::span(&mine, 1), next, 1'000'000 + u);
        maybe_yield(rng);
        EXPECT_EQ(r.wait().count, 1u);
        s.wait();
        EXPECT_EQ(theirs, (Record{prev, u, prev + u / 8.0}));
        checked.fetch_add(1);
      }));
    }
    for (auto& u : ults) u.join();
  });
  EXPECT_EQ(checked.load(), kUltsPerRank);
}

INSTANTIATE_TEST_SUITE_P(Workers, MpiManyUlts, ::testing::Values(1, 2),
                         [](const auto& info) { return std::to_string(info.param) + "workers"; });

// The collectives' values, started from one ULT while other ULTs compute and
// yield on the same workers.
TEST(MpiCollectives, ValuesWhileOtherUltsRun) {
  const int rank = mpi::rank(), ranks = mpi::size();
  Runtime rt(workers(2));
  std::atomic<bool> stop{false};
  rt.run([&] {
    std::vector<Ult<void>> busy;
    for (int i = 0; i < 8; ++i) {
      busy.push_back(spawn([&] {
        while (!stop.load(std::memory_order_relaxed)) this_ult::yield();
      }));
    }
    // iallreduce: sum of (rank+1)*k over ranks, and an in-place max.
    std::vector<long> contribution{rank + 1L, 2L * (rank + 1), 3L * (rank + 1)}, sum(3);
    mpi::Request r = mpi::iallreduce(std::span(std::as_const(contribution)), std::span(sum), MPI_SUM);
    r.wait();
    const long triangle = long(ranks) * (ranks + 1) / 2;
    EXPECT_EQ(sum, (std::vector<long>{triangle, 2 * triangle, 3 * triangle}));
    std::array<double, 2> mx{double(rank), -double(rank)};
    mpi::iallreduce(std::span<double>(mx), MPI_MAX).wait();
    EXPECT_EQ(mx[0], ranks - 1.0);
    EXPECT_EQ(mx[1], 0.0);

    // ialltoall: block for rank r is {rank*100+r, rank*100+r+50}.
    std::vector<int> send(2 * ranks), got(2 * ranks, -1);
    for (int r2 = 0; r2 < ranks; ++r2) {
      send[2 * r2] = rank * 100 + r2;
      send[2 * r2 + 1] = rank * 100 + r2 + 50;
    }
    mpi::ialltoall(std::span(std::as_const(send)), std::span(got)).wait();
    for (int s = 0; s < ranks; ++s) {
      EXPECT_EQ(got[2 * s], s * 100 + rank);
      EXPECT_EQ(got[2 * s + 1], s * 100 + rank + 50);
    }

    // ialltoallv: rank s sends s+r+1 elements {s, r, k} to rank r.
    std::vector<int> scount(ranks), sdispl(ranks), rcount(ranks), rdispl(ranks);
    for (int r2 = 0; r2 < ranks; ++r2) {
      scount[r2] = rank + r2 + 1;
      rcount[r2] = r2 + rank + 1;
    }
    std::exclusive_scan(scount.begin(), scount.end(), sdispl.begin(), 0);
    std::exclusive_scan(rcount.begin(), rcount.end(), rdispl.begin(), 0);
    std::vector<Record> vsend(sdispl.back() + scount.back()), vgot(rdispl.back() + rcount.back());
    for (int r2 = 0; r2 < ranks; ++r2) {
      for (int k = 0; k < scount[r2]; ++k) vsend[sdispl[r2] + k] = Record{rank, r2, double(k)};
    }
    mpi::Request v = mpi::ialltoallv(std::span(std::as_const(vsend)), std::span(std::as_const(scount)),
                                     std::span(std::as_const(sdispl)), std::span(vgot),
                                     std::span(std::as_const(rcount)), std::span(std::as_const(rdispl)));
    v.wait();
    for (int s = 0; s < ranks; ++s) {
      for (int k = 0; k < rcount[s]; ++k) EXPECT_EQ(vgot[rdispl[s] + k], (Record{s, rank, double(k)}));
    }

    // ibcast from the last rank; ibarrier.
    std::array<std::uint64_t, 4> b{};
    if (rank == ranks - 1) b = {7, 11, 13, 0xfeedULL};
    mpi::ibcast(std::span<std::uint64_t>(b), ranks - 1).wait();
    EXPECT_EQ(b, (std::array<std::uint64_t, 4>{7, 11, 13, 0xfeedULL}));
    mpi::ibarrier().wait();

    stop.store(true);
    for (auto& u : busy) u.join();
  });
}

// Any contiguous container is a buffer as it is (no std::span needed); a
// temporary container, which the request would use after it is gone, and a
// const buffer to receive into are refused at compile time.
static_assert(mpi::Buffer<std::vector<int>&> && mpi::Buffer<const std::vector<int>&> && mpi::Buffer<int (&)[4]> &&
              mpi::Buffer<std::span<const int>> && mpi::WritableBuffer<std::array<double, 2>&>);
static_assert(!mpi::Buffer<std::vector<int>> && !mpi::Buffer<std::vector<int>&&>);
static_assert(!mpi::WritableBuffer<const std::vector<int>&> && !mpi::WritableBuffer<std::span<const int>>);
template <class B>
constexpr bool can_isend = requires(B&& b) { mpi::isend(std::forward<B>(b), 0, 0); };
static_assert(can_isend<std::vector<int>&> && !can_isend<std::vector<int>>);

TEST(MpiBuffers, ContainersTravelAsTheyAre) {
  const int rank = mpi::rank(), ranks = mpi::size();
  const int next = (rank + 1) % ranks, prev = (rank + ranks - 1) % ranks;
  Runtime rt(workers(2));
  rt.run([&] {
    const std::vector<long> out{rank * 10L, rank * 10L + 1, rank * 10L + 2};
    std::vector<long> in(3, -1);
    mpi::Request r = mpi::irecv(in, prev, 40);
    mpi::Request s = mpi::isend(out, next, 40);
    EXPECT_EQ(r.wait().count, 3u);
    s.wait();
    EXPECT_EQ(in, (std::vector<long>{prev * 10L, prev * 10L + 1, prev * 10L + 2}));

    int sum[2] = {};
    const std::array<int, 2> mine{1, rank};
    mpi::iallreduce(mine, sum, MPI_SUM).wait();
    EXPECT_EQ(sum[0], ranks);
    EXPECT_EQ(sum[1], ranks * (ranks - 1) / 2);

    std::vector<int> all(static_cast<std::size_t>(ranks), -1);
    const int me[1] = {rank};
    mpi::iallgather(me, all).wait();
    for (int k = 0; k < ranks; ++k) EXPECT_EQ(all[static_cast<std::size_t>(k)], k);
  });
}

// verify_sorted accepts sample_sort's result and names what is wrong with a
// result that is not sorted across ranks, or lost a key.
TEST(MpiSampleSort, VerifySortedAcceptsTheSortAndNamesEachFault) {
  const int rank = mpi::rank(), ranks = mpi::size();
  Runtime rt(workers(2));
  rt.run([&] {
    std::vector<std::uint64_t> keys(1000);
    std::mt19937_64 rng(static_cast<std::uint64_t>(rank) + 1);
    for (auto& k : keys) k = rng() % 100'000;
    const std::vector<std::uint64_t> sorted = mpi::sample_sort(keys);
    const Verification good = mpi::verify_sorted(keys, sorted);
    EXPECT_TRUE(good) << good.problem;

    // Every rank's share reversed in rank order: each sorted, the order across ranks wrong.
    std::vector<std::uint64_t> shifted(sorted.size());
    for (std::size_t i = 0; i < sorted.size(); ++i) shifted[i] = sorted[i] + 1'000'000ull * (ranks - rank);
    const Verification across = mpi::verify_sorted(keys, shifted);
    EXPECT_FALSE(across);
    EXPECT_NE(across.problem.find("below the previous rank's last"), std::string::npos) << across.problem;

    // The largest key raised by one on the last rank: still sorted and in
    // rank order, but not the multiset that went in.
    std::vector<std::uint64_t> changed = sorted;
    if (rank == ranks - 1) {
      ASSERT_FALSE(changed.empty());
      ++changed.back();
    }
    const Verification lost = mpi::verify_sorted(keys, changed);
    EXPECT_FALSE(lost);
    EXPECT_NE(lost.problem.find("multiset"), std::string::npos) << lost.problem;
  });
}

// A waiting ULT leaves its worker to the others: on one worker, the ULT that
// sends the awaited message can only run if the wait does not hold the
// worker (otherwise this test hangs until ctest's timeout).
TEST(MpiProgress, WaitingUltLeavesItsWorkerToOthers) {
  const int rank = mpi::rank();
  Runtime rt(workers(1));
  rt.run([&] {
    int in = -1, out = 4242;
    mpi::Request r = mpi::irecv(std::span(&in, 1), rank, 31);
    auto sender = spawn([&] {
      for (int i = 0; i < 10; ++i) this_ult::yield();  // let the receiver reach its wait first
      mpi::isend(std::span(&out, 1), rank, 31).wait();
    });
    EXPECT_EQ(r.wait().count, 1u);
    EXPECT_EQ(in, 4242);
    sender.join();
  });
}

// Bad arguments are std::invalid_argument before any MPI call, naming the problem.
TEST(MpiCollectives, BadArgumentsAreClearErrors) {
  const int ranks = mpi::size();
  std::vector<int> send(ranks * 2 + 1), got(ranks * 2 + 1);
  EXPECT_THROW(mpi::ialltoall(std::span(std::as_const(send)), std::span(got)), std::invalid_argument);
  std::vector<int> counts(ranks + 1, 0), displs(ranks + 1, 0);
  try {
    mpi::ialltoallv(std::span(std::as_const(send)), std::span(std::as_const(counts)),
                    std::span(std::as_const(displs)), std::span(got), std::span(std::as_const(counts)),
                    std::span(std::as_const(displs)));
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("send_counts"), std::string::npos) << e.what();
  }
  std::vector<int> c2(ranks, 1), d2(ranks, static_cast<int>(send.size()));  // displacement past the end
  EXPECT_THROW(mpi::ialltoallv(std::span(std::as_const(send)), std::span(std::as_const(c2)),
                               std::span(std::as_const(d2)), std::span(got), std::span(std::as_const(c2)),
                               std::span(std::as_const(c2))),
               std::invalid_argument);
  std::vector<long> a(2), b(3);
  EXPECT_THROW(mpi::iallreduce(std::span(std::as_const(a)), std::span(b), MPI_SUM), std::invalid_argument);
  mpi::Request empty;
  EXPECT_THROW(empty.wait(), std::logic_error);
  std::array<mpi::Request, 2> none;
  EXPECT_THROW(mpi::wait_any(none), std::invalid_argument);
}

std::string mpi_error_string(int error_class) {
  char text[MPI_MAX_ERROR_STRING];
  int n = 0;
  MPI_Error_string(error_class, text, &n);
  return std::string(text, n);
}

// An MPI error becomes weft::mpi::Error in the calling ULT, with MPI's string:
// at the call (a rank that does not exist) and at the wait (a truncated receive).
TEST(MpiErrors, BecomeExceptionsInTheUlt) {
  const int rank = mpi::rank(), ranks = mpi::size();
  Runtime rt(workers(2));
  rt.run([&] {
    int x = 1;
    try {
      mpi::isend(std::span(&x, 1), ranks, 0);  // no such rank
      ADD_FAILURE() << "no exception";
    } catch (const mpi::Error& e) {
      EXPECT_EQ(e.error_class(), MPI_ERR_RANK);
      const std::string what = e.what();
      EXPECT_NE(what.find("MPI_Isend"), std::string::npos) << what;
      EXPECT_NE(what.find(mpi_error_string(e.code())), std::string::npos) << what;
    }
    // Eight ints to ourselves into room for four: MPI_ERR_TRUNCATE at the
    // wait. The send is posted first, so the receive (in another ULT) matches
    // an already-arrived message: Open MPI 4.1 does not report the truncation
    // of a message to self into a receive posted before it (count 4, no error).
    std::array<int, 8> eight{1, 2, 3, 4, 5, 6, 7, 8};
    std::array<int, 4> four{};
    mpi::Request s = mpi::isend(std::span<const int>(eight), rank, 77);
    auto child = spawn([&] {
      mpi::Request r = mpi::irecv(std::span<int>(four), rank, 77);
      try {
        r.wait();
        ADD_FAILURE() << "no exception";
      } catch (const mpi::Error& e) {
        EXPECT_EQ(e.error_class(), MPI_ERR_TRUNCATE) << e.what();
        EXPECT_NE(std::string(e.what()).find("MPI_Irecv"), std::string::npos) << e.what();
      }
      EXPECT_FALSE(r.valid());
    });
    child.join();
    try {
      s.wait();  // the send side may or may not see the truncation: either is fine
    } catch (const mpi::Error&) {
    }
  });
}

// Plain threads (no runtime) wait too: the main thread alone, then a plain
// thread and ULTs waiting on the same engine at once.
TEST(MpiPlainThreads, WaitWithoutARuntime) {
  const int rank = mpi::rank(), ranks = mpi::size();
  const int next = (rank + 1) % ranks, prev = (rank + ranks - 1) % ranks;
  std::vector<int> out(100), in(100, -1);
  std::iota(out.begin(), out.end(), rank * 1000);
  mpi::Request r = mpi::irecv(std::span(in), prev, 5);
  mpi::Request s = mpi::isend(std::span(std::as_const(out)), next, 5);
  EXPECT_EQ(wait(r).count, 100u);
  s.wait();
  for (int k = 0; k < 100; ++k) ASSERT_EQ(in[k], prev * 1000 + k);

  Runtime rt(workers(2));
  std::vector<int> thread_in(10, -1), thread_out(10, rank);
  std::thread plain([&] {
    mpi::Request tr = mpi::irecv(std::span(thread_in), prev, 6);
    mpi::Request ts = mpi::isend(std::span(std::as_const(thread_out)), next, 6);
    std::array<mpi::Request, 2> both{std::move(tr), std::move(ts)};
    mpi::wait_all(both);
  });
  rt.run([&] {
    std::vector<Ult<void>> ults;
    for (int u = 0; u < 20; ++u) {
      ults.push_back(spawn([&, u] {
        int mine = rank * 100 + u, theirs = -1;
        mpi::Request a = mpi::irecv(std::span(&theirs, 1), prev, 100 + u);
        mpi::Request b = mpi::isend(std::span(&mine, 1), next, 100 + u);
        a.wait();
        b.wait();
        EXPECT_EQ(theirs, prev * 100 + u);
      }));
    }
    for (auto& u : ults) u.join();
  });
  plain.join();
  EXPECT_EQ(thread_in, std::vector<int>(10, prev));
}

// test() drives progress itself; a request destroyed before completion waits.
TEST(MpiRequest, TestAndDestructionBeforeCompletion) {
  const int rank = mpi::rank();
  int in = 0, out = 42;
  {
    mpi::Request r = mpi::irecv(std::span(&in, 1), rank, 9);
    mpi::Request s = mpi::isend(std::span(&out, 1), rank, 9);
    while (!r.test()) std::this_thread::yield();
    EXPECT_TRUE(r.valid());
    EXPECT_EQ(r.wait().source, rank);
    // s is destroyed here, perhaps incomplete: its destructor waits.
  }
  EXPECT_EQ(in, 42);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--thread-level=serialized") g_requested = mpi::ThreadLevel::serialized;
  }
  mpi::Environment env(argc, argv, g_requested);
  g_provided = env.thread_level();
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any_failed;
}
