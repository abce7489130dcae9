#pragma once
// The parallel mergesort behind weft::parallel_sort and
// weft::parallel_stable_sort (thesis §7.7.2, mctop_sort / mctop_sort_sse):
// runs a sort_plan::Plan with one ULT per participant, pinned to its worker.
//
//  0. Each participant checks whether its chunk is in order already (or
//     strictly reversed); when every chunk and chunk boundary is, the input
//     is sorted and all stop (one pass, early exit on the first disorder).
//  1. Each participant sorts its chunk: std::sort (the thesis's sequential
//     quicksort), or the stable chunk mergesort, or, for integer keys in
//     ascending/descending order, the SIMD mergesort of sort_simd.hpp (a
//     chunk in order is only moved, a reversed one reversed).
//  2. Each participant then runs its program: wait at the barrier of a
//     merge's team, merge its share of that merge (the output positions
//     given by the plan, the inputs found by the merge path), and so on up
//     the tree.
//
// Memory: one buffer as large as the input; the data ping-pongs between the
// input and the buffer, one level of the tree after the other. A chunk
// starts in the buffer of its depth's parity, so the root writes the input.
// For element types that are not trivially copyable, the buffer's objects
// are constructed by the participants (moved-from objects made by rotating
// an element through their part of the buffer, or the chunk itself moved
// in) and destroyed at the end.
//
// Exceptions (from the comparator or an element's move): the first one is
// kept, the others dropped; every participant stops at its next merge share
// (merges and chunk sorts under way finish). Then, when the element type's
// moves cannot throw, every merge share that was done is undone, every
// element is gathered back into [first, last), the buffer is destroyed and
// the exception rethrown.

#include <atomic>
#include <concepts>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "weft/apps/default_runtime.hpp"
#include "weft/apps/detail/sort_merge.hpp"
#include "weft/apps/detail/sort_plan.hpp"
#include "weft/apps/detail/sort_simd.hpp"
#include "weft/runtime/barrier.hpp"
#include "weft/runtime/latch.hpp"
#include "weft/runtime/runtime.hpp"
#include "weft/runtime/this_ult.hpp"
#include "weft/runtime/ult.hpp"

namespace weft::detail {

// The key order a comparator stands for, when the SIMD kernels know it:
// std::less / std::greater (typed or transparent) and their ranges twins.
template <class Comp, class T>
constexpr std::optional<sort_simd::Order> kernel_order() {
  if constexpr (std::is_same_v<Comp, std::less<T>> || std::is_same_v<Comp, std::less<>> ||
                std::is_same_v<Comp, std::ranges::less>)
    return sort_simd::Order::Ascending;
  else if constexpr (std::is_same_v<Comp, std::greater<T>> || std::is_same_v<Comp, std::greater<>> ||
                     std::is_same_v<Comp, std::ranges::greater>)
    return sort_simd::Order::Descending;
  else
    return std::nullopt;
}

// Whether the integer-key kernels sort this range: contiguous integer keys
// of 32 or 64 bits under std::less / std::greater. Equal keys are then
// indistinguishable, so the unstable and the stable sort coincide.
template <class It, class Comp>
inline constexpr bool kUsesKeyKernels =
    std::contiguous_iterator<It> && !std::is_void_v<sort_simd::kernel_key_t<std::iter_value_t<It>>> &&
    kernel_order<Comp, std::iter_value_t<It>>().has_value();

// The serial sort for inputs below the cutoff (and single-worker runtimes):
// std::sort / std::stable_sort, or the SIMD mergesort for integer keys.
template <class It, class Comp>
void serial_sort(It first, std::size_t n, Comp& comp, bool stable) {
  if constexpr (kUsesKeyKernels<It, Comp>) {
    using Key = std::iter_value_t<It>;
    const sort_simd::Isa isa = sort_simd::active();
    if (isa != sort_simd::Isa::Scalar && n >= 64) {
      std::unique_ptr<Key[]> scratch(new Key[n]);
      sort_simd::sort(isa, *kernel_order<Comp, Key>(), std::to_address(first), scratch.get(), n, false);
      return;
    }
  }
  if (stable)
    std::stable_sort(first, first + n, std::ref(comp));
  else
    std::sort(first, first + n, std::ref(comp));
}

// One parallel sort of [first, first + n) by a plan.
template <class It, class Comp>
class ParallelSort {
  using T = std::iter_value_t<It>;
  static constexpr bool kKeys = kUsesKeyKernels<It, Comp>;
  // The buffer holds live objects only where the type needs it.
  static constexpr bool kConstructBuffer = !std::is_trivially_copyable_v<T>;
  // Shares find where they start in a first phase, behind a second barrier,
  // unless the merges can neither throw nor destroy their inputs (the key
  // kernels copy keys and never call a comparator).
  static constexpr bool kSplitFirst = !kKeys;

 public:
  ParallelSort(It first, std::size_t n, const Comp& comp, bool stable, const sort_plan::Plan& plan,
               sort_simd::Isa isa)
      : first_(first), n_(n), comp_(comp), stable_(stable), plan_(plan), isa_(isa) {}

  // Runs the plan; must be called from a ULT of the runtime whose workers
  // the plan's seats name. Rethrows the first exception a participant hit.
  void run() {
    Buffer buffer(n_, plan_.participants.size());
    buffer_ = &buffer;
    for (int size : plan_.barrier_sizes) barriers_.push_back(std::make_unique<Barrier>(size));
    pieces_.assign(plan_.pieces.size(), PieceState{});
    leaves_.assign(plan_.participants.size(), LeafState{});
    presorted_.assign(plan_.participants.size(), sort_merge::Presorted::No);
    Barrier checked(static_cast<std::int64_t>(plan_.participants.size()));
    checked_ = &checked;

    // The participants start together once all of them exist: if one
    // cannot be spawned, the others leave without waiting at a barrier.
    std::vector<Ult<void>> ults;
    ults.reserve(plan_.participants.size());
    try {
      for (std::size_t p = 0; p < plan_.participants.size(); ++p)
        ults.push_back(spawn_on(plan_.participants[p].seat.worker, [this, p] {
          start_.wait();
          if (!cancelled_) participate(p);
        }));
    } catch (...) {
      cancelled_ = true;
      start_.count_down();
      for (Ult<void>& u : ults) u.join();
      throw;
    }
    start_.count_down();
    for (Ult<void>& u : ults) u.join();

    if (failed_.load(std::memory_order_acquire)) {
      if constexpr (sort_merge::kNothrowMovable<T>) gather(plan_.root);
      std::rethrow_exception(error_);
    }
  }

 private:
  // The buffer: raw storage for n elements, 64-byte aligned; for types that
  // need it, the participants construct their chunk's part and the
  // destructor destroys the parts that were constructed.
  struct Buffer {
    T* data;
    std::vector<std::pair<std::size_t, std::size_t>> constructed;  // per participant: [lo, hi)

    Buffer(std::size_t n, std::size_t participants)
        : data(static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kAlign}))),
          constructed(participants, {0, 0}) {}
    ~Buffer() {
      if constexpr (kConstructBuffer)
        for (auto [lo, hi] : constructed) std::destroy(data + lo, data + hi);
      ::operator delete(data, std::align_val_t{kAlign});
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    static constexpr std::size_t kAlign = std::max<std::size_t>(64, alignof(T));
  };

  struct PieceState {
    bool done = false;
    std::size_t x_begin = 0, x_end = 0;  // the share of the left run it consumed
  };
  struct LeafState {
    bool data_in_buffer = false;  // where the chunk's elements are
  };

  // The input range as the merges see it: a pointer for the key kernels,
  // else the iterator.
  auto input() const {
    if constexpr (kKeys)
      return std::to_address(first_);
    else
      return first_;
  }
  T* buffer() const { return buffer_->data; }
  // Depth d's buffer: the input for even depths, the buffer for odd ones.
  static bool in_buffer(int depth) { return depth % 2 == 1; }
  sort_simd::Isa isa_of(const sort_plan::Participant& p) const { return p.simd ? isa_ : sort_simd::Isa::Scalar; }

  void fail(std::exception_ptr e) {
    if (!failed_.exchange(true, std::memory_order_acq_rel)) error_ = std::move(e);
  }

  void participate(std::size_t p) {
    const sort_plan::Participant& me = plan_.participants[p];
    Comp comp = comp_;
    // Step 0: is the chunk in order already (or reversed)? If every chunk
    // and every chunk boundary is in order, the input is sorted: done.
    bool in_order = false;
    guarded([&] { in_order = check_chunk(p, comp); });
    if (!in_order) out_of_order_.fetch_add(1, std::memory_order_relaxed);
    checked_->arrive_and_wait();
    if (out_of_order_.load(std::memory_order_relaxed) == 0) return;
    guarded([&] { sort_chunk(p, comp); });
    for (const sort_plan::Step& step : me.steps) {
      Barrier* team = step.barrier >= 0 ? barriers_[step.barrier].get() : nullptr;
      if (team) team->arrive_and_wait();
      if constexpr (kSplitFirst) {
        // The shares' starts are found before anyone moves an element out
        // of the inputs (the search reads beyond the share's own elements).
        for (int piece : step.pieces) guarded([&] { find_start(piece, comp); });
        if (team) team->arrive_and_wait();
      }
      for (int piece : step.pieces) guarded([&] { merge_share(piece, comp, isa_of(me)); });
    }
  }

  // Runs f unless a participant has failed; records what it throws.
  template <class F>
  void guarded(F&& f) {
    if (failed_.load(std::memory_order_acquire)) return;
    try {
      f();
    } catch (...) {
      fail(std::current_exception());
    }
  }

  // The order of integer keys (the key kernels' comparator).
  struct KeyBefore {
    bool operator()(T l, T r) const {
      if constexpr (*kernel_order<Comp, T>() == sort_simd::Order::Ascending)
        return l < r;
      else
        return r < l;
    }
  };
  // The comparator the checks and the merge path use.
  static auto& order(Comp& comp) {
    if constexpr (kKeys) {
      static constexpr KeyBefore key_before{};
      return key_before;
    } else {
      return comp;
    }
  }

  // Step 0: records whether participant p's chunk is presorted; returns
  // true if it is in order including its boundary with the next chunk.
  bool check_chunk(std::size_t p, Comp& comp) {
    const sort_plan::Range chunk = plan_.participants[p].chunk;
    auto a = input() + chunk.lo;
    auto& before = order(comp);
    presorted_[p] = sort_merge::presorted(a, chunk.size(), before);
    return presorted_[p] == sort_merge::Presorted::Ascending &&
           (chunk.hi == n_ || chunk.size() == 0 || !before(a[chunk.size()], a[chunk.size() - 1]));
  }

  // Step 1: the chunk, sorted into the buffer of its leaf depth. A chunk in
  // order is only moved there (a reversed one reversed first).
  void sort_chunk(std::size_t p, Comp& comp) {
    const sort_plan::Participant& me = plan_.participants[p];
    const std::size_t lo = me.chunk.lo, len = me.chunk.size();
    const bool to_buffer = in_buffer(me.leaf_depth);
    auto a = input() + lo;
    T* b = buffer() + lo;
    if (presorted_[p] == sort_merge::Presorted::Descending) std::reverse(a, a + len);
    const bool in_order = presorted_[p] != sort_merge::Presorted::No;
    if constexpr (kKeys) {
      if (!in_order)
        sort_simd::sort(isa_of(me), *kernel_order<Comp, T>(), a, b, len, to_buffer);
      else if (to_buffer)
        std::copy(a, a + len, b);
      leaves_[p].data_in_buffer = to_buffer;
    } else {
      bool& data_in_buffer = leaves_[p].data_in_buffer;
      if (to_buffer && (in_order || !stable_)) {  // the chunk moves into the buffer whole
        if constexpr (kConstructBuffer)
          std::uninitialized_move(a, a + len, b);
        else
          std::copy(a, a + len, b);
        buffer_->constructed[p] = {lo, lo + len};
        data_in_buffer = true;
        if (!in_order) std::sort(b, b + len, std::ref(comp));
        return;
      }
      if constexpr (kConstructBuffer) sort_merge::construct_by_rotation(a, b, len);
      buffer_->constructed[p] = {lo, lo + len};
      if (in_order) return;
      if (stable_)
        sort_merge::stable_sort_chunk(a, b, len, to_buffer, comp, data_in_buffer);
      else
        std::sort(a, a + len, std::ref(comp));
    }
  }

  // The runs a share merges: its node's two inputs, in the buffer of the
  // depth below the node's.
  template <class F>
  void with_runs(const sort_plan::Node& node, F&& f) {
    if (in_buffer(node.depth))
      f(input(), buffer());
    else
      f(buffer(), input());
  }

  // Where share `piece` starts in its node's left run: the merge path at
  // its first output position.
  template <class Src>
  std::size_t start_of(int piece, Src src, Comp& comp) const {
    const sort_plan::Piece& share = plan_.pieces[piece];
    const sort_plan::Node& node = plan_.nodes[share.node];
    const std::size_t k = share.begin - node.lo;
    return sort_merge::split(src + node.lo, node.mid - node.lo, src + node.mid, node.hi - node.mid, k, order(comp));
  }

  void find_start(int piece, Comp& comp) {
    with_runs(plan_.nodes[plan_.pieces[piece].node],
              [&](auto src, auto) { pieces_[piece].x_begin = start_of(piece, src, comp); });
  }

  // Step 2: one share of one merge. The plan fixes the output positions;
  // the merge path gives where they start in the two runs.
  void merge_share(int piece, Comp& comp, sort_simd::Isa isa) {
    const sort_plan::Piece& share = plan_.pieces[piece];
    const sort_plan::Node& node = plan_.nodes[share.node];
    const std::size_t nx = node.mid - node.lo;
    with_runs(node, [&](auto src, auto dst) {
      PieceState& state = pieces_[piece];
      if constexpr (!kSplitFirst) {
        state.x_begin = start_of(piece, src, comp);
      }
      std::size_t x_end = nx;
      if (share.next >= 0) x_end = kSplitFirst ? pieces_[share.next].x_begin : start_of(share.next, src, comp);
      state.x_end = x_end;
      const std::size_t y_begin = (share.begin - node.lo) - state.x_begin;
      const std::size_t y_end = (share.end - node.lo) - x_end;
      auto x = src + node.lo + state.x_begin;
      auto y = src + node.mid + y_begin;
      if constexpr (kKeys)
        sort_simd::merge(isa, *kernel_order<Comp, T>(), x, x_end - state.x_begin, y, y_end - y_begin,
                         dst + share.begin);
      else
        sort_merge::merge_move(x, x_end - state.x_begin, y, y_end - y_begin, dst + share.begin, comp);
      state.done = true;
    });
  }

  // After a failure: puts every element back into [first, last), top-down.
  // A finished merge's output is moved back to the input if it is in the
  // buffer; an unfinished merge first has its finished shares undone (their
  // output moved back into the slots they consumed), then its children are
  // gathered.
  void gather(sort_plan::Child c) {
    if (c.leaf) {
      const sort_plan::Range chunk = plan_.participants[c.index].chunk;
      if (leaves_[c.index].data_in_buffer)
        std::move(buffer() + chunk.lo, buffer() + chunk.hi, input() + chunk.lo);
      return;
    }
    const sort_plan::Node& node = plan_.nodes[c.index];
    bool complete = true;
    for (int p : node.pieces) complete = complete && pieces_[p].done;
    if (complete) {
      if (in_buffer(node.depth)) std::move(buffer() + node.lo, buffer() + node.hi, input() + node.lo);
      return;
    }
    with_runs(node, [&](auto src, auto dst) {
      for (int p : node.pieces) {
        if (!pieces_[p].done) continue;
        const sort_plan::Piece& piece = plan_.pieces[p];
        const std::size_t taken_x = pieces_[p].x_end - pieces_[p].x_begin;
        const std::size_t y_begin = (piece.begin - node.lo) - pieces_[p].x_begin;
        auto out = dst + piece.begin;
        std::move(out, out + taken_x, src + node.lo + pieces_[p].x_begin);
        std::move(out + taken_x, dst + piece.end, src + node.mid + y_begin);
      }
    });
    gather(node.left);
    gather(node.right);
  }

  It first_;
  std::size_t n_;
  const Comp& comp_;
  bool stable_;
  const sort_plan::Plan& plan_;
  sort_simd::Isa isa_;
  Buffer* buffer_ = nullptr;
  std::vector<std::unique_ptr<Barrier>> barriers_;
  std::vector<PieceState> pieces_;
  std::vector<LeafState> leaves_;
  std::vector<sort_merge::Presorted> presorted_;  // per participant, step 0
  Barrier* checked_ = nullptr;                    // all participants, after step 0
  std::atomic<int> out_of_order_{0};              // chunks not in order after step 0
  Latch start_{1};
  bool cancelled_ = false;  // written before start_ opens
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

// The kernel a sort of these elements uses: the active one for integer
// keys, else the scalar code.
template <class It, class Comp>
sort_simd::Isa sort_isa() {
  return kUsesKeyKernels<It, Comp> ? sort_simd::active() : sort_simd::Isa::Scalar;
}

// The shortest chunk worth a worker of its own (sort.hpp documents the
// rule): 8192 keys with a SIMD kernel (about 40 us of sorting, as long as
// starting the participants and their barriers), else 4096 elements.
// Measured on the 2-core development VM: below twice this, the serial sort
// was as fast.
inline std::size_t min_chunk(sort_simd::Isa isa) { return isa == sort_simd::Isa::Scalar ? 4096 : 8192; }

// Sorts [first, first + n) on the calling ULT's runtime by `layout`.
template <class It, class Comp>
void parallel_sort_with_layout(It first, std::size_t n, Comp& comp, bool stable, const sort_plan::Layout& layout) {
  sort_plan::validate(layout, this_ult::num_workers());
  const sort_simd::Isa isa = sort_isa<It, Comp>();
  const sort_plan::Plan plan = sort_plan::make_plan(layout, n, isa != sort_simd::Isa::Scalar, min_chunk(isa));
  if (plan.participants.size() < 2) return serial_sort(first, n, comp, stable);
  ParallelSort<It, Comp>(first, n, comp, stable, plan, isa).run();
}

// Entry point of parallel_sort and parallel_stable_sort.
template <class It, class Comp>
void sort_entry(It first, It last, Comp comp, bool stable, const char* name) {
  static_assert(std::random_access_iterator<It>, "weft::parallel_sort needs random-access iterators");
  const auto distance = last - first;
  if (distance < 0) throw std::invalid_argument(std::string(name) + ": last comes before first");
  const auto n = static_cast<std::size_t>(distance);
  if (n < 2) return;
  // Below two chunks there is nothing to share: no runtime is needed.
  if (n < 2 * min_chunk(sort_isa<It, Comp>())) return serial_sort(first, n, comp, stable);
  run_on_ult([&] {
    const Runtime* rt = Runtime::current();
    parallel_sort_with_layout(first, n, comp, stable, sort_plan::layout_of(*rt, this_ult::worker_index()));
  });
}

}  // namespace weft::detail
