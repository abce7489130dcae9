// The plan of a parallel sort: participants, chunks, the merge tree and each
// participant's program (see weft/apps/detail/sort_plan.hpp; thesis §7.5,
// §7.7.2).

#include "weft/apps/detail/sort_plan.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "weft/runtime/runtime.hpp"
#include "weft/sched/topology.hpp"

namespace weft::detail::sort_plan {
namespace {

double latency(const Layout& layout, int a, int b) {
  if (layout.socket_latency.empty()) return 0;
  return layout.socket_latency[static_cast<std::size_t>(a) * layout.num_sockets + b];
}

// Sockets that have seats: the destination first (or, without seats there,
// the lowest), the others by latency from it, ties by index.
std::vector<int> socket_order(const Layout& layout, const std::vector<std::vector<Seat>>& by_socket) {
  std::vector<int> sockets;
  for (int s = 0; s < layout.num_sockets; ++s)
    if (!by_socket[s].empty()) sockets.push_back(s);
  int first = sockets.front();
  if (!by_socket[layout.destination_socket].empty()) first = layout.destination_socket;
  std::stable_sort(sockets.begin(), sockets.end(), [&](int a, int b) {
    if ((a == first) != (b == first)) return a == first;
    return latency(layout, first, a) < latency(layout, first, b);
  });
  return sockets;
}

// The seats that take part: round robin over the sockets (in socket order),
// each socket handing out distinct cores first, then second contexts, ...
// (MCTOP-PLACE RR_CORE).
std::vector<Seat> choose_seats(const Layout& layout, int count, std::vector<int>& sockets) {
  std::vector<std::vector<Seat>> by_socket(layout.num_sockets);
  for (const Seat& seat : layout.seats) by_socket[seat.socket].push_back(seat);
  sockets = socket_order(layout, by_socket);
  for (auto& seats : by_socket) {
    std::stable_sort(seats.begin(), seats.end(), [](const Seat& a, const Seat& b) {
      return a.core != b.core ? a.core < b.core : a.context < b.context;
    });
    // Each seat's rank among its core's contexts; rank 0 of every core first.
    std::vector<std::pair<int, Seat>> ranked;
    for (std::size_t i = 0; i < seats.size(); ++i) {
      const bool sibling = i > 0 && seats[i - 1].core == seats[i].core;
      ranked.emplace_back(sibling ? ranked.back().first + 1 : 0, seats[i]);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < seats.size(); ++i) seats[i] = ranked[i].second;
  }
  std::vector<Seat> chosen;
  for (std::size_t round = 0; static_cast<int>(chosen.size()) < count; ++round)
    for (int s : sockets)
      if (round < by_socket[s].size() && static_cast<int>(chosen.size()) < count) chosen.push_back(by_socket[s][round]);
  return chosen;
}

// The cross-socket tree, built top-down as MCTOP's node tree: level 0 pairs
// the destination with its closest socket; at each further level every
// socket already in the tree, in order, takes the closest socket not yet in
// it. pairs[level] lists (socket in the tree, its new partner).
std::vector<std::vector<std::pair<int, int>>> socket_pairs(const Layout& layout, const std::vector<int>& sockets) {
  std::vector<int> in_tree = {sockets.front()};
  std::vector<int> remaining(sockets.begin() + 1, sockets.end());
  std::vector<std::vector<std::pair<int, int>>> levels;
  while (!remaining.empty()) {
    std::vector<std::pair<int, int>> pairs;
    const std::vector<int> members = in_tree;
    for (int s : members) {
      if (remaining.empty()) break;
      auto best = std::min_element(remaining.begin(), remaining.end(), [&](int a, int b) {
        const double la = latency(layout, s, a), lb = latency(layout, s, b);
        return la != lb ? la < lb : a < b;
      });
      pairs.emplace_back(s, *best);
      in_tree.push_back(*best);
      remaining.erase(best);
    }
    levels.push_back(std::move(pairs));
  }
  return levels;
}

// A node of the cross-socket tree: one socket's subtree, or the merge of two.
struct SocketTree {
  int socket = -1;  // >= 0: a leaf
  int left = -1, right = -1;
};

int build_socket_tree(const std::vector<std::vector<std::pair<int, int>>>& levels, int socket, std::size_t level,
                      std::vector<SocketTree>& out) {
  for (std::size_t l = level; l < levels.size(); ++l)
    for (const auto& [first, second] : levels[l])
      if (first == socket) {
        const int left = build_socket_tree(levels, socket, l + 1, out);
        const int right = build_socket_tree(levels, second, l + 1, out);
        out.push_back({-1, left, right});
        return static_cast<int>(out.size()) - 1;
      }
  out.push_back({socket, -1, -1});
  return static_cast<int>(out.size()) - 1;
}

void leaf_order(const std::vector<SocketTree>& tree, int t, std::vector<int>& order) {
  if (tree[t].socket >= 0) {
    order.push_back(tree[t].socket);
    return;
  }
  leaf_order(tree, tree[t].left, order);
  leaf_order(tree, tree[t].right, order);
}

// floor(total * part / whole) without overflow (part <= whole, whole small).
std::size_t share(std::size_t total, std::size_t part, std::size_t whole) {
  return total / whole * part + total % whole * part / whole;
}

class Builder {
 public:
  Builder(Plan& plan, const std::vector<unsigned>& weights) : plan_(plan), weights_(weights) {}

  // The balanced tree over participants [first, last) of one socket; nodes
  // of each height are recorded for the socket's merge rounds.
  Child intra(int first, int last, int& height, std::vector<std::vector<int>>& rounds) {
    if (last - first == 1) {
      height = 0;
      return {true, first};
    }
    const int mid = first + (last - first) / 2;
    int hl = 0, hr = 0;
    const Child left = intra(first, mid, hl, rounds);
    const Child right = intra(mid, last, hr, rounds);
    height = 1 + std::max(hl, hr);
    const int node = add_node(left, right);
    if (static_cast<int>(rounds.size()) <= height) rounds.resize(height + 1);
    rounds[height].push_back(node);
    return {false, node};
  }

  int add_node(Child left, Child right) {
    Node node;
    node.lo = range(left).lo;
    node.mid = range(right).lo;
    node.hi = range(right).hi;
    node.left = left;
    node.right = right;
    plan_.nodes.push_back(std::move(node));
    return static_cast<int>(plan_.nodes.size()) - 1;
  }

  Range range(Child c) const {
    if (c.leaf) return plan_.participants[c.index].chunk;
    return {plan_.nodes[c.index].lo, plan_.nodes[c.index].hi};
  }

  // One step for each of participants [first, last): wait at a barrier of
  // them all, then merge their weighted shares of the nodes' outputs
  // (concatenated in order).
  void add_job(const std::vector<int>& nodes, int first, int last) {
    int barrier = -1;
    if (last - first > 1) {
      barrier = static_cast<int>(plan_.barrier_sizes.size());
      plan_.barrier_sizes.push_back(last - first);
    }
    std::size_t total = 0;
    for (int n : nodes) total += plan_.nodes[n].hi - plan_.nodes[n].lo;
    const std::size_t whole = std::accumulate(weights_.begin() + first, weights_.begin() + last, std::size_t{0});
    std::size_t part = 0;
    for (int p = first; p < last; ++p) {
      const std::size_t begin = share(total, part, whole);
      part += weights_[p];
      const std::size_t end = share(total, part, whole);
      Step step{barrier, {}};
      std::size_t offset = 0;  // of the current node in the concatenation
      for (int n : nodes) {
        Node& node = plan_.nodes[n];
        const std::size_t size = node.hi - node.lo;
        const std::size_t b = std::max(begin, offset), e = std::min(end, offset + size);
        if (b < e) {
          plan_.pieces.push_back({n, node.lo + (b - offset), node.lo + (e - offset), p});
          const int piece = static_cast<int>(plan_.pieces.size()) - 1;
          if (!node.pieces.empty()) plan_.pieces[node.pieces.back()].next = piece;
          node.pieces.push_back(piece);
          step.pieces.push_back(piece);
        }
        offset += size;
      }
      plan_.participants[p].steps.push_back(std::move(step));
    }
  }

  void set_depths(Child c, int depth) {
    if (c.leaf) {
      plan_.participants[c.index].leaf_depth = depth;
      return;
    }
    Node& node = plan_.nodes[c.index];
    node.depth = depth;
    set_depths(node.left, depth + 1);
    set_depths(node.right, depth + 1);
  }

 private:
  Plan& plan_;
  const std::vector<unsigned>& weights_;
};

}  // namespace

void validate(const Layout& layout, int num_workers) {
  if (layout.seats.empty()) throw std::invalid_argument("weft sort layout: no seats");
  if (layout.num_sockets < 1) throw std::invalid_argument("weft sort layout: num_sockets must be >= 1");
  for (const Seat& seat : layout.seats) {
    if (seat.socket < 0 || seat.socket >= layout.num_sockets)
      throw std::invalid_argument("weft sort layout: socket " + std::to_string(seat.socket) + " is not in [0, " +
                                  std::to_string(layout.num_sockets) + ")");
    if (seat.worker < 0 || seat.worker >= num_workers)
      throw std::invalid_argument("weft sort layout: worker " + std::to_string(seat.worker) +
                                  " is not a worker of this runtime (it has " + std::to_string(num_workers) + ")");
  }
  const auto cells = static_cast<std::size_t>(layout.num_sockets) * layout.num_sockets;
  if (!layout.socket_latency.empty() && layout.socket_latency.size() != cells)
    throw std::invalid_argument("weft sort layout: socket_latency has " + std::to_string(layout.socket_latency.size()) +
                                " entries, num_sockets^2 = " + std::to_string(cells) + " expected");
  for (double l : layout.socket_latency)
    if (!(l >= 0)) throw std::invalid_argument("weft sort layout: a socket latency is negative or NaN");
  if (layout.destination_socket < 0 || layout.destination_socket >= layout.num_sockets)
    throw std::invalid_argument("weft sort layout: destination socket " + std::to_string(layout.destination_socket) +
                                " is not in [0, " + std::to_string(layout.num_sockets) + ")");
}

Layout layout_of(const Runtime& rt, int caller_worker) {
  const sched::Topology& topo = rt.topology();
  const std::vector<int> cpus = rt.worker_cpus();
  Layout layout;
  layout.num_sockets = std::max(1, topo.num_sockets());
  for (int w = 0; w < static_cast<int>(cpus.size()); ++w) {
    const int ctx = cpus[w] >= 0 ? topo.context_of_os_cpu(cpus[w]) : -1;
    if (ctx < 0)
      layout.seats.push_back({w, 0, topo.num_cores() + w, 0});
    else
      layout.seats.push_back({w, topo.socket_of(ctx), topo.core_of(ctx), ctx});
  }
  layout.socket_latency.resize(static_cast<std::size_t>(layout.num_sockets) * layout.num_sockets);
  for (int a = 0; a < layout.num_sockets; ++a)
    for (int b = 0; b < layout.num_sockets; ++b)
      layout.socket_latency[static_cast<std::size_t>(a) * layout.num_sockets + b] = topo.socket_latency(a, b);
  if (caller_worker >= 0 && caller_worker < static_cast<int>(layout.seats.size()))
    layout.destination_socket = layout.seats[caller_worker].socket;
  return layout;
}

Plan make_plan(const Layout& layout, std::size_t n, bool smt_weights, std::size_t min_chunk, int max_participants) {
  int count = static_cast<int>(layout.seats.size());
  if (max_participants > 0) count = std::min(count, max_participants);
  count = static_cast<int>(std::min<std::size_t>(count, std::max<std::size_t>(1, n / std::max<std::size_t>(1, min_chunk))));

  Plan plan;
  std::vector<int> rr_sockets;
  const std::vector<Seat> chosen = choose_seats(layout, count, rr_sockets);

  // The cross-socket tree over the sockets that got participants.
  std::vector<int> used;
  for (int s : rr_sockets)
    if (std::any_of(chosen.begin(), chosen.end(), [&](const Seat& seat) { return seat.socket == s; }))
      used.push_back(s);
  const auto levels = socket_pairs(layout, used);
  std::vector<SocketTree> tree;
  const int tree_root = build_socket_tree(levels, used.front(), 0, tree);
  leaf_order(tree, tree_root, plan.socket_order);

  // Participants in array order: socket by socket, cores in order, SMT
  // siblings after the first context of their core.
  for (int s : plan.socket_order) {
    std::vector<Seat> seats;
    for (const Seat& seat : chosen)
      if (seat.socket == s) seats.push_back(seat);
    std::stable_sort(seats.begin(), seats.end(), [](const Seat& a, const Seat& b) {
      return a.core != b.core ? a.core < b.core : a.context < b.context;
    });
    for (std::size_t i = 0; i < seats.size(); ++i) {
      Participant p;
      p.seat = seats[i];
      p.simd = i == 0 || seats[i - 1].core != seats[i].core;
      plan.participants.push_back(std::move(p));
    }
  }

  // Chunks by weight: 3 for a SIMD participant, 1 for an SMT sibling.
  std::vector<unsigned> weights;
  for (const Participant& p : plan.participants) weights.push_back(smt_weights && !p.simd ? 1 : 3);
  const std::size_t whole = std::accumulate(weights.begin(), weights.end(), std::size_t{0});
  std::size_t part = 0;
  for (std::size_t i = 0; i < plan.participants.size(); ++i) {
    plan.participants[i].chunk.lo = share(n, part, whole);
    part += weights[i];
    plan.participants[i].chunk.hi = share(n, part, whole);
  }

  // Inside each socket: a balanced tree over its participants, merged round
  // by round by all of them.
  Builder builder(plan, weights);
  std::vector<Child> socket_root(layout.num_sockets);
  std::vector<std::pair<int, int>> socket_members(layout.num_sockets);
  int first = 0;
  for (int s : plan.socket_order) {
    int last = first;
    while (last < static_cast<int>(plan.participants.size()) && plan.participants[last].seat.socket == s) ++last;
    socket_members[s] = {first, last};
    int height = 0;
    std::vector<std::vector<int>> rounds;
    socket_root[s] = builder.intra(first, last, height, rounds);
    for (int h = 1; h <= height; ++h) builder.add_job(rounds[h], first, last);
    first = last;
  }

  // Across sockets: each merge of two subtrees by all of their participants,
  // bottom-up (post-order), after a barrier of them all.
  struct Built {
    Child child;
    int first, last;
  };
  auto cross = [&](auto& self, int t) -> Built {
    if (tree[t].socket >= 0) {
      const auto [f, l] = socket_members[tree[t].socket];
      return {socket_root[tree[t].socket], f, l};
    }
    const Built left = self(self, tree[t].left);
    const Built right = self(self, tree[t].right);
    const int node = builder.add_node(left.child, right.child);
    builder.add_job({node}, left.first, right.last);
    return {Child{false, node}, left.first, right.last};
  };
  plan.root = cross(cross, tree_root).child;
  builder.set_depths(plan.root, 0);
  return plan;
}

}  // namespace weft::detail::sort_plan
