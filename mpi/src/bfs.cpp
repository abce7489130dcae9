// The Graph500 BFS across ranks on weft (bfs.hpp): direction-optimizing
// (Beamer et al., SC'12), top-down levels streaming (vertex, parent) chunks
// to their owners as they fill, bottom-up levels overlapping the frontier
// bitmap's iallgather with the scan of local neighbours.
#include "weft/mpi/graph500/bfs.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <deque>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "graph500_exchange.hpp"
#include "weft/apps/graph/detail/parallel.hpp"
#include "weft/mpi/point_to_point.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/runtime/ult.hpp"

namespace weft::mpi::graph500 {

namespace {

using weft::graph::Array;
using weft::graph::BfsDirection;

// Tags of the top-down chunks: one per level parity (a rank starts level
// L + 1 only after every rank finished level L, so at most two levels'
// messages exist at once).
constexpr int kTopDownTag = 0x4253;
// Receives the receiver ULT keeps posted.
constexpr int kPostedReceives = 4;
// The vertex of the one-claim message that ends a level's stream to a rank;
// its parent field holds the number of chunks sent before it.
constexpr NodeId kEndMarker = -1;

// A remote neighbour found top-down: `vertex` (owned by the receiver) may
// take `parent` as its parent.
struct Claim {
  NodeId vertex;
  NodeId parent;
};

inline bool test_bit(const std::uint64_t* words, std::int64_t i) { return (words[i >> 6] >> (i & 63)) & 1u; }

// One search's state on this rank.
class Search {
 public:
  Search(const DistributedGraph& g, const BfsOptions& o)
      : g_(g), part_(g.partition), o_(o), parent_(static_cast<std::size_t>(part_.local_count()), -1),
        frontier_(static_cast<std::size_t>(part_.local_count())), next_(static_cast<std::size_t>(part_.local_count())),
        words_(static_cast<std::size_t>(part_.per_rank / 64)), bits_(words_, 0), next_bits_(words_, 0),
        all_bits_(words_ * static_cast<std::size_t>(part_.ranks)) {}

  BfsResult run(NodeId root);

 private:
  // Claims local vertex l for `parent` if no one has; true if this call did.
  bool claim(std::int64_t l, NodeId parent) {
    std::atomic_ref<NodeId> slot(parent_[static_cast<std::size_t>(l)]);
    NodeId unset = -1;
    if (slot.load(std::memory_order_relaxed) != -1 || !slot.compare_exchange_strong(unset, parent)) return false;
    next_[static_cast<std::size_t>(next_count_.fetch_add(1, std::memory_order_relaxed))] = static_cast<NodeId>(l);
    return true;
  }

  std::int64_t top_down_step(int level, LevelStats& stats, std::int64_t& scout);
  std::int64_t bottom_up_step(LevelStats& stats);
  void queue_to_bitmap();
  void bitmap_to_queue();

  // Top-down messages: sends in flight (buffers kept alive until done).
  struct Outgoing {
    std::vector<Claim> claims;
    Request request;
  };
  void ship(std::vector<Claim>&& claims, int dest, int tag, LevelStats& stats);
  std::vector<std::int64_t> chunks_to_;  // chunks sent to each rank this level (under out_mutex_)
  void receive_claims(int tag);

  const DistributedGraph& g_;
  const Partition& part_;
  const BfsOptions& o_;
  Array<NodeId> parent_;
  Array<NodeId> frontier_, next_;  // local ids
  std::int64_t frontier_size_ = 0;
  std::atomic<std::int64_t> next_count_{0};
  std::atomic<std::int64_t> scout_{0};  // degrees of the vertices claimed this level
  std::size_t words_;
  Array<std::uint64_t> bits_, next_bits_, all_bits_;
  std::mutex out_mutex_;
  std::deque<Outgoing> outgoing_;
  // Per worker, per destination rank: the chunk being filled.
  std::vector<std::vector<std::vector<Claim>>> chunks_;
};

void Search::ship(std::vector<Claim>&& claims, int dest, int tag, LevelStats& stats) {
  std::lock_guard lock(out_mutex_);
  stats.bytes_sent += claims.size() * sizeof(Claim);
  ++stats.messages_sent;
  ++chunks_to_[static_cast<std::size_t>(dest)];
  Outgoing& out = outgoing_.emplace_back();
  out.claims = std::move(claims);
  out.request = isend(std::span<const Claim>(out.claims), dest, tag, g_.comm);
}

// The receiver ULT of a top-down level: applies the chunks from the other
// ranks as they arrive, until every rank's end marker has come and as many
// chunks as the markers announced; then completes its spare posted receives
// with empty messages to itself. (Several posted receives may complete at
// once and wait_any reports them in index order, not arrival order: an end
// marker can be seen before a chunk sent earlier, hence the counts.)
void Search::receive_claims(int tag) {
  const auto chunk = static_cast<std::size_t>(o_.chunk_pairs);
  std::vector<std::vector<Claim>> buffers(kPostedReceives, std::vector<Claim>(chunk));
  std::vector<Request> posted(kPostedReceives);
  for (int i = 0; i < kPostedReceives; ++i) posted[i] = irecv(std::span<Claim>(buffers[i]), MPI_ANY_SOURCE, tag, g_.comm);
  int ends = 0;
  std::int64_t chunks_announced = 0, chunks_applied = 0;
  const std::int64_t first = part_.first();
  while (ends < part_.ranks - 1 || chunks_applied < chunks_announced) {
    const Completion c = wait_any(std::span<Request>(posted));
    const Claim* got = buffers[c.index].data();
    if (c.status.count == 1 && got[0].vertex == kEndMarker) {
      ++ends;
      chunks_announced += got[0].parent;
    } else {
      std::int64_t scout = 0;
      for (std::size_t k = 0; k < c.status.count; ++k) {
        if (claim(got[k].vertex - first, got[k].parent)) scout += g_.degree(got[k].vertex - first);
      }
      scout_.fetch_add(scout, std::memory_order_relaxed);
      ++chunks_applied;
    }
    posted[c.index] = irecv(std::span<Claim>(buffers[c.index]), MPI_ANY_SOURCE, tag, g_.comm);
  }
  // Every message of this level has been received: the posted receives left
  // match nothing but these.
  std::vector<Request> drains;
  for (std::size_t i = 0; i < posted.size(); ++i) drains.push_back(isend(std::span<const Claim>(), part_.rank, tag, g_.comm));
  wait_all(std::span<Request>(posted));
  wait_all(std::span<Request>(drains));
}

std::int64_t Search::top_down_step(int level, LevelStats& stats, std::int64_t& scout) {
  const int tag = kTopDownTag + (level & 1);
  const int p = part_.ranks;
  const auto chunk = static_cast<std::size_t>(o_.chunk_pairs);
  next_count_.store(0, std::memory_order_relaxed);
  scout_.store(0, std::memory_order_relaxed);
  chunks_to_.assign(static_cast<std::size_t>(p), 0);
  Ult<void> receiver;
  if (p > 1) receiver = weft::spawn([this, tag] { receive_claims(tag); });
  const std::int64_t first = part_.first();
  const NodeId* frontier = frontier_.data();
  weft::graph::detail::for_each_vertex(static_cast<NodeId>(frontier_size_), [&](NodeId i) {
    const std::int64_t u = frontier[i];
    const NodeId ug = part_.to_global(u);
    std::vector<std::vector<Claim>>& mine = chunks_[static_cast<std::size_t>(this_ult::worker_index())];
    std::int64_t found = 0;
    for (std::int64_t e = g_.offsets[static_cast<std::size_t>(u)]; e < g_.offsets[static_cast<std::size_t>(u) + 1]; ++e) {
      const NodeId v = g_.neighbours[static_cast<std::size_t>(e)];
      if (part_.is_local(v)) {
        if (claim(v - first, ug)) found += g_.degree(v - first);
        continue;
      }
      const int d = part_.owner(v);
      std::vector<Claim>& out = mine[static_cast<std::size_t>(d)];
      out.push_back({v, ug});
      if (out.size() == chunk) {
        ship(std::move(out), d, tag, stats);
        out = {};
        out.reserve(chunk);
      }
    }
    if (found != 0) scout_.fetch_add(found, std::memory_order_relaxed);
  }, schedule_dynamic(1));
  if (p > 1) {
    for (auto& worker : chunks_) {
      for (int d = 0; d < p; ++d) {
        std::vector<Claim>& out = worker[static_cast<std::size_t>(d)];
        if (!out.empty()) ship(std::move(out), d, tag, stats);
        out = {};
      }
    }
    for (int d = 0; d < p; ++d) {
      if (d != part_.rank) ship({{kEndMarker, static_cast<NodeId>(chunks_to_[static_cast<std::size_t>(d)])}}, d, tag, stats);
    }
    for (Outgoing& out : outgoing_) out.request.wait();
    outgoing_.clear();
    receiver.join();
  }
  frontier_size_ = next_count_.load();
  std::swap(frontier_, next_);
  const auto totals = detail::all_reduce(std::array<std::int64_t, 2>{frontier_size_, scout_.load()}, MPI_SUM, g_.comm);
  scout = totals[1];
  return totals[0];
}

std::int64_t Search::bottom_up_step(LevelStats& stats) {
  const std::int64_t n = part_.local_count(), first = part_.first(), last = first + n;
  stats.bytes_sent += words_ * sizeof(std::uint64_t) * static_cast<std::size_t>(part_.ranks - 1);
  ++stats.messages_sent;
  Request gather = iallgather(std::span<const std::uint64_t>(bits_.data(), words_), std::span<std::uint64_t>(all_bits_), g_.comm);
  // A ULT waits on the gather (and so drives MPI's progress) while the
  // workers scan local neighbours against the local part of the frontier.
  Ult<void> waiter = weft::spawn([&gather] { gather.wait(); });
  const std::uint64_t* local_bits = bits_.data();
  // 64-vertex blocks: each next_bits_ word is written by one body.
  const std::int64_t blocks = (n + 63) / 64;
  std::atomic<std::int64_t> awake{0};
  auto scan = [&](bool remote) {
    const std::uint64_t* frontier = remote ? all_bits_.data() : local_bits;
    weft::parallel_for(std::int64_t{0}, blocks, [&](std::int64_t b) {
      std::uint64_t word = next_bits_[static_cast<std::size_t>(b)];
      std::int64_t woke = 0;
      for (std::int64_t l = b * 64, end = std::min(n, l + 64); l < end; ++l) {
        if (parent_[static_cast<std::size_t>(l)] != -1) continue;
        const NodeId* row = g_.neighbours.data() + g_.offsets[static_cast<std::size_t>(l)];
        const NodeId* row_end = g_.neighbours.data() + g_.offsets[static_cast<std::size_t>(l) + 1];
        // The local neighbours: one sorted range [lo, hi) of the row.
        const NodeId* lo = std::lower_bound(row, row_end, static_cast<NodeId>(first));
        const NodeId* hi = std::lower_bound(lo, row_end, static_cast<NodeId>(last));
        NodeId found = -1;
        if (!remote) {
          for (const NodeId* v = lo; v < hi && found < 0; ++v) {
            if (test_bit(frontier, *v - first)) found = *v;
          }
        } else {
          for (const NodeId* v = row; v < lo && found < 0; ++v) {
            if (test_bit(frontier, *v)) found = *v;
          }
          for (const NodeId* v = hi; v < row_end && found < 0; ++v) {
            if (test_bit(frontier, *v)) found = *v;
          }
        }
        if (found >= 0) {
          parent_[static_cast<std::size_t>(l)] = found;
          word |= std::uint64_t{1} << (l & 63);
          ++woke;
        }
      }
      next_bits_[static_cast<std::size_t>(b)] = word;
      if (woke != 0) awake.fetch_add(woke, std::memory_order_relaxed);
    }, schedule_dynamic(4));
  };
  scan(false);
  waiter.join();  // rethrows the gather's error, if any
  scan(true);
  std::swap(bits_, next_bits_);
  next_bits_.fill(0);
  return detail::all_reduce(std::array<std::int64_t, 1>{awake.load()}, MPI_SUM, g_.comm)[0];
}

void Search::queue_to_bitmap() {
  bits_.fill(0);
  for (std::int64_t i = 0; i < frontier_size_; ++i) {
    const NodeId l = frontier_[static_cast<std::size_t>(i)];
    bits_[static_cast<std::size_t>(l >> 6)] |= std::uint64_t{1} << (l & 63);
  }
}

void Search::bitmap_to_queue() {
  frontier_size_ = 0;
  for (std::size_t w = 0; w < words_; ++w) {
    for (std::uint64_t word = bits_[w]; word != 0; word &= word - 1) {
      frontier_[static_cast<std::size_t>(frontier_size_++)] = static_cast<NodeId>(w * 64 + std::countr_zero(word));
    }
  }
}

BfsResult Search::run(NodeId root) {
  BfsResult result;
  const std::int64_t n = part_.num_vertices;
  chunks_.assign(static_cast<std::size_t>(std::max(1, this_ult::num_workers())),
                 std::vector<std::vector<Claim>>(static_cast<std::size_t>(part_.ranks)));
  std::int64_t root_degree = 0;
  if (part_.is_local(root)) {
    parent_[static_cast<std::size_t>(part_.to_local(root))] = root;
    frontier_[0] = static_cast<NodeId>(part_.to_local(root));
    frontier_size_ = 1;
    root_degree = g_.degree(part_.to_local(root));
  }
  std::int64_t scout = detail::all_reduce(std::array<std::int64_t, 1>{root_degree}, MPI_SUM, g_.comm)[0];
  std::int64_t edges_to_check = g_.global_directed_edges;
  std::int64_t global_frontier = 1;
  int level = 0;
  // Beamer et al.'s hybrid (§4), in GAPBS's form: top-down while the edges
  // out of the frontier (scout) stay under the unexplored edges / alpha; then
  // bottom-up until the frontier shrinks below n / beta.
  while (global_frontier > 0) {
    const bool go_bottom_up = o_.direction == BfsDirection::bottom_up_only ||
                              (o_.direction == BfsDirection::optimizing && scout > edges_to_check / o_.alpha);
    if (go_bottom_up) {
      queue_to_bitmap();
      std::int64_t awake = global_frontier, old_awake = 0;
      do {
        old_awake = awake;
        LevelStats& s = result.levels.emplace_back();
        s.bottom_up = true;
        s.frontier = awake;
        awake = bottom_up_step(s);
        ++level;
      } while (awake > 0 &&
               (o_.direction == BfsDirection::bottom_up_only || awake >= old_awake || awake > n / o_.beta));
      bitmap_to_queue();
      global_frontier = awake;
      scout = 1;
    } else {
      edges_to_check -= scout;
      LevelStats& s = result.levels.emplace_back();
      s.frontier = global_frontier;
      global_frontier = top_down_step(level, s, scout);
      ++level;
    }
  }
  result.parent = std::move(parent_);
  return result;
}

}  // namespace

BfsResult bfs(const DistributedGraph& g, NodeId root, const BfsOptions& options) {
  if (root < 0 || root >= g.partition.num_vertices)
    throw std::invalid_argument("graph500 bfs: root " + std::to_string(root) + " is not a vertex (the graph has " +
                                std::to_string(g.partition.num_vertices) + ")");
  if (options.alpha < 1 || options.beta < 1 || options.chunk_pairs < 1)
    throw std::invalid_argument("graph500 bfs: alpha, beta and chunk_pairs must be at least 1");
  return weft::graph::detail::on_runtime([&] { return Search(g, options).run(root); });
}

}  // namespace weft::mpi::graph500
