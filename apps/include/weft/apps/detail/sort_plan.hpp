#pragma once
// The plan of one parallel sort (thesis §7.7.2, mctop_sort): which workers
// take part, which chunk each sorts, the merge tree over the chunks and, for
// every participant, the merges it takes a share of and the barrier it waits
// at before each. Pure arithmetic on sizes and places (no elements, no
// threads), so it can be built and checked for machines we do not have.
//
// The tree is §7.5's reduction tree: inside a socket all of the socket's
// participants cooperate on each merge (a balanced binary tree over the
// socket's chunks, one round per level, the round's output split evenly over
// them); across sockets a binary tree whose root is the destination socket
// and whose pairs are chosen level by level, each socket already in the tree
// taking the closest remaining socket as its partner (MCTOP's node tree,
// mctop_alloc_node_tree_create; the closest by latency, standing in for the
// best-connected, as the topology has no cross-socket bandwidth figures).
// A cross-socket merge is shared by every participant of the two subtrees
// (MCTOP's code gives it to the threads of the pair's two sockets only, so
// the other sockets' threads idle at the upper levels; here none does).
// The array is laid out in the tree's leaf order, so every merge joins two
// adjacent ranges and a stable merge keeps a stable sort stable.
//
// mctop_sort_sse's use of SMT: with a SIMD kernel, only the first hardware
// context of a core merges with SIMD; the others merge in scalar code and get
// a third of the data (the thesis says so for merging; here chunks and merge
// shares both weigh 1 and 1/3, as a sibling's scalar chunk sort is slower
// too).

#include <cstddef>
#include <vector>

namespace weft {
class Runtime;
}

namespace weft::detail::sort_plan {

// Where one potential participant runs: a ULT pinned to runtime worker
// `worker`, on `socket` and `core` of the machine model. `context` orders
// the participants of a core (SMT siblings); lower comes first.
struct Seat {
  int worker = 0;
  int socket = 0;
  int core = 0;
  int context = 0;
};

// The machine as the sort sees it: the seats (one per runtime worker in
// production; tests may give more seats than workers, several then share a
// worker), the socket-to-socket latencies and the destination socket (where
// the result is wanted: the caller's).
struct Layout {
  std::vector<Seat> seats;
  int num_sockets = 1;
  std::vector<double> socket_latency;  // num_sockets^2, row-major; empty: all alike
  int destination_socket = 0;
};

// The layout of a runtime's workers: sockets and cores from
// Runtime::topology() for each of Runtime::worker_cpus(); an unpinned worker
// counts as a core of its own on socket 0. `caller_worker` (or -1) names the
// destination socket.
Layout layout_of(const Runtime& rt, int caller_worker);

// Throws std::invalid_argument naming the problem if the layout is
// inconsistent (no seat, a socket or worker index out of range, a latency
// table of the wrong size or with negative entries).
void validate(const Layout& layout, int num_workers);

// A range [lo, hi) of the array, and which buffer holds it.
struct Range {
  std::size_t lo = 0, hi = 0;
  std::size_t size() const { return hi - lo; }
};

// A child of a merge node: another node, or a participant's chunk (a leaf).
struct Child {
  bool leaf = false;
  int index = 0;  // node index or participant index
};

// One merge: [lo, mid) and [mid, hi), both sorted in the buffer of depth
// `depth + 1`, into [lo, hi) of the buffer of depth `depth`. Depth 0 (the
// root) writes the input range itself; buffers alternate with the depth.
struct Node {
  std::size_t lo = 0, mid = 0, hi = 0;
  int depth = 0;
  Child left, right;
  std::vector<int> pieces;  // the shares of this merge, in output order
};

// One participant's share of one merge: output positions [begin, end) of
// node `node` (absolute positions in the array). `next` is the node's next
// share (-1 for the last): where this one ends in the inputs is where that
// one starts.
struct Piece {
  int node = 0;
  std::size_t begin = 0, end = 0;
  int participant = 0;
  int next = -1;
};

// A step of a participant's program: wait at `barrier` (if >= 0), then do
// `pieces`.
struct Step {
  int barrier = -1;
  std::vector<int> pieces;
};

struct Participant {
  Seat seat;
  bool simd = true;    // merges and sorts with the SIMD kernel (first context of its core)
  Range chunk;         // the chunk it sorts first
  int leaf_depth = 0;  // its chunk's depth in the tree: the sorted chunk goes to that depth's buffer
  std::vector<Step> steps;
};

struct Plan {
  std::vector<Participant> participants;  // in chunk (array) order
  std::vector<Node> nodes;
  std::vector<Piece> pieces;
  std::vector<int> barrier_sizes;  // participants per barrier
  Child root;                      // a leaf when only one participant
  std::vector<int> socket_order;   // sockets in array order (the cross-socket tree's leaf order)
};

// Builds the plan for n elements over up to max_participants seats of the
// layout (0 = all), and no more than n / min_chunk of them (at least one),
// so that no chunk is shorter than min_chunk elements. Participants are
// taken round-robin over the sockets (destination first, then by latency
// from it), distinct cores before SMT siblings: MCTOP-PLACE's RR placement.
// `smt_weights` gives non-first contexts of a core the 1/3 share.
Plan make_plan(const Layout& layout, std::size_t n, bool smt_weights, std::size_t min_chunk,
               int max_participants = 0);

}  // namespace weft::detail::sort_plan
