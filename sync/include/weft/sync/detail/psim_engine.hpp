#pragma once
// The wait-free core of PSim (Fatourou & Kallimanis, "A highly-efficient
// wait-free universal construction", SPAA 2011) and PSim-x, its ULT variant
// (Fatourou & Kallimanis, "Lock Oscillation", OPODIS 2017, §4 "Description
// of PSim and PSim-x"), shared by PSim (psim.hpp: one sequential object) and
// PSimQueue (psim_queue.hpp: SimQueue, two instances over a linked list).
//
// The shared object is a pointer SP to one of a pool of copies of the
// simulated state; each copy also holds the "applied" toggle vector (which
// request of each slot it includes) and a return value for each of the n
// slots. To apply a request, the holder of slot i
//   1. writes it in Announce[i] and flips its bit in the Toggles bit vector
//      with a Fetch&Add (§4: "announces its request in Announce[i] ... toggles
//      Toggles[i] (by executing a Fetch&Add instruction)");
//   2. PSim-x only: yields once (§4: "each thread p calls Yield after
//      announcing its request"), so that the other ULTs of its worker
//      announce too; when it runs again its request has most often been
//      served by one of them and it returns at once;
//   3. at most twice: LL(SP); if the state SP points to already includes its
//      request, returns the response recorded there; otherwise copies that
//      state into one of its own two pool copies, serves every active request
//      (Toggles XOR applied) on the copy, sets applied := Toggles and tries
//      SC(SP) to its copy (§4: "These actions may have to be applied by p_i
//      twice to ensure that its request has been served");
//   4. after two failed attempts, its request is served in the current state
//      (a successful SC during its second attempt was made by a thread whose
//      LL came after its toggle, so that thread saw and served it) and it
//      returns the response recorded in it.
// As in the paper's experiments (§5: "we simulate an LL ... with a simple
// read, and an SC with a CAS on a timestamped version of O to avoid the ABA
// problem"), SP is one 64-bit word {pool index, version}.
//
// What is simulated is a `Sim` (concept PSimSimulation below): its State, Op
// and Result (trivially copyable), and
//   Result apply(State& st, const Op& op, std::size_t slot)
// which serves one request on the combiner's private copy `st` (`slot` is the
// combiner's). Optional hooks around one attempt of the combiner `slot`:
//   void begin_attempt(State& st, std::size_t slot);  // after the validated copy
//   void end_attempt(State& st, std::size_t slot);    // after the last apply, before publishing
//   void committed(const State& st, std::size_t slot);// after the SC installed st
//   void abandoned(std::size_t slot);                 // the attempt failed after begin_attempt
// A State may also say which of its bytes are live (psim_header_bytes +
// psim_live_ranges(): InlineQueue, InlineStack); only those are copied.
//
// Differences from the authors' C code, for the C++ memory model and for a
// handle-based interface:
// - A state copy may be overwritten by its owner while a slow thread still
//   copies it; the reader then fails its validation (SP changed) and retries,
//   as in the C code. To make that race well defined, every pool copy, the
//   announce array and the toggles are arrays of std::atomic<uint64_t> words
//   accessed with relaxed loads/stores and seqlock-style fences. The combiner
//   runs apply() on a private scratch copy and publishes it into its pool
//   copy before the SC.
// - The checks that the C code does without validation (the "already
//   applied" test, announce entries wider than a word) are validated against
//   SP, so that a torn read never decides anything; every failed validation
//   means SP changed, which is all the two-attempt argument needs.
// - Slots, not threads: the owner hands slot i to one handle at a time
//   (psim_slots.hpp, which groups a worker's slots in its own Toggles words),
//   and every Toggles word sits on its own cache line.
// - The return-value arrays are copied only for the slots handed out so far:
//   in each bank of 64, up to the highest slot ever used there.
// There is no combining bound: a combiner serves every active request, which
// is what makes two attempts enough.
//
// Nothing here waits: Wait is used only for the single post-announce pause of
// PSim-x. apply() allocates nothing.

#include <algorithm>
#include <atomic>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "weft/sync/combining.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/psim_config.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync::detail {

namespace psim {

using Word = std::uint64_t;
using AWord = std::atomic<Word>;

constexpr std::size_t words_for(std::size_t bytes) noexcept { return (bytes + 7) / 8; }
// Words a value of T takes in an announce entry or a response (0 for an empty T).
template <class T>
inline constexpr std::size_t value_words = std::is_empty_v<T> ? 0 : words_for(sizeof(T));

// The seqlock-style fences below order only atomic accesses. ThreadSanitizer
// does not model std::atomic_thread_fence (GCC warns, -Wtsan) and cannot see a
// race between atomics anyway, so a TSan build uses a compiler-only fence
// (which is also what acquire/release fences compile to on x86).
inline void fence(std::memory_order order) noexcept {
#if defined(WEFT_TSAN)
  std::atomic_signal_fence(order);
#else
  std::atomic_thread_fence(order);
#endif
}

// Words [first, end) of `src` into the bytes of `dst` (`total` bytes long).
inline void load_words(void* dst, const AWord* src, std::size_t first, std::size_t end, std::size_t total) noexcept {
  auto* d = static_cast<unsigned char*>(dst);
  for (std::size_t w = first; w < end; ++w) {
    const Word v = src[w].load(std::memory_order_relaxed);
    const std::size_t off = w * 8;
    std::memcpy(d + off, &v, std::min<std::size_t>(8, total - off));
  }
}
inline void store_words(AWord* dst, const void* src, std::size_t first, std::size_t end, std::size_t total) noexcept {
  const auto* s = static_cast<const unsigned char*>(src);
  for (std::size_t w = first; w < end; ++w) {
    Word v = 0;
    const std::size_t off = w * 8;
    std::memcpy(&v, s + off, std::min<std::size_t>(8, total - off));
    dst[w].store(v, std::memory_order_relaxed);
  }
}
template <class T>
void load_value(T& dst, const AWord* src) noexcept {
  if constexpr (value_words<T> > 0) load_words(std::addressof(dst), src, 0, value_words<T>, sizeof(T));
}
template <class T>
void store_value(AWord* dst, const T& src) noexcept {
  if constexpr (value_words<T> > 0) store_words(dst, std::addressof(src), 0, value_words<T>, sizeof(T));
}

template <class S>
concept HasLiveRanges = requires(const S& s) {
  { S::psim_header_bytes } -> std::convertible_to<std::size_t>;
  s.psim_live_ranges([](std::size_t, std::size_t) {});
};

// Word ranges of a state that hold live data: fn(first_word, end_word).
// `s` must be a private copy (its header is read).
template <class S, class Fn>
void for_each_live_word_range(const S& s, Fn&& fn) {
  constexpr std::size_t total = words_for(sizeof(S));
  if constexpr (HasLiveRanges<S>) {
    constexpr std::size_t header = words_for(std::size_t{S::psim_header_bytes});
    static_assert(header <= total);
    fn(std::size_t{0}, header);
    // Collected first: fn may overwrite the header that psim_live_ranges reads.
    constexpr int kMaxRanges = 8;
    std::size_t first[kMaxRanges], end[kMaxRanges];
    int n = 0;
    s.psim_live_ranges([&](std::size_t off, std::size_t len) {
      if (n == kMaxRanges || off >= sizeof(S) || len == 0) return;
      len = std::min(len, sizeof(S) - off);
      first[n] = off / 8;
      end[n] = std::min(total, words_for(off + len));
      ++n;
    });
    for (int i = 0; i < n; ++i) fn(first[i], end[i]);
  } else {
    fn(std::size_t{0}, total);
  }
}

// SP: {pool index (low 20 bits), version (high 44 bits)}.
inline constexpr unsigned kIndexBits = 20;
inline constexpr Word kIndexMask = (Word{1} << kIndexBits) - 1;
constexpr std::size_t sp_index(Word sp) noexcept { return static_cast<std::size_t>(sp & kIndexMask); }
constexpr Word sp_next(Word old, std::size_t index) noexcept {
  return (((old >> kIndexBits) + 1) << kIndexBits) | static_cast<Word>(index);
}

constexpr std::size_t kLineWords = cache_line_size / sizeof(Word);

}  // namespace psim

template <class Sim>
concept PSimSimulation =
    requires(Sim& sim, typename Sim::State& st, const typename Sim::Op& op, std::size_t slot) {
      typename Sim::State;
      typename Sim::Op;
      typename Sim::Result;
      { sim.apply(st, op, slot) } -> std::same_as<typename Sim::Result>;
    } && std::is_trivially_copyable_v<typename Sim::State> && std::copy_constructible<typename Sim::State> &&
    std::is_trivially_copyable_v<typename Sim::Op> && std::is_trivially_copyable_v<typename Sim::Result> &&
    std::default_initializable<typename Sim::Op> && std::default_initializable<typename Sim::Result>;

template <PSimSimulation Sim, WaitPolicy Wait>
class PSimEngine {
 public:
  using State = typename Sim::State;
  using Op = typename Sim::Op;
  using Result = typename Sim::Result;

 private:
  using Word = psim::Word;
  using AWord = psim::AWord;
  static constexpr std::size_t kStateWords = psim::words_for(sizeof(State));
  static constexpr std::size_t kOpWords = psim::value_words<Op>;
  static constexpr std::size_t kRetWords = psim::value_words<Result>;

  // Per-slot data, used only by the handle that holds the slot (and by
  // the stats, which read the counters).
  struct alignas(cache_line_size) Slot {
    std::optional<State> scratch;  // the private copy apply() runs on
    Word* applied = nullptr;       // toggles_words_ words: the applied vector copied at LL
    Word* toggles = nullptr;       // toggles_words_ words: Toggles as read after LL
    unsigned local_index = 0;      // which of the slot's two pool copies to write next
    bool bit = false;              // current value of this slot's toggle bit
    std::atomic<std::uint64_t> rounds{0}, requests{0};  // successful SCs, requests they served
    std::atomic<std::uint64_t> applies{0}, attempts{0}, sc_attempts{0}, own_sc{0}, served_by_other{0},
        after_two{0}, unserved_after_two{0}, max_attempts{0};
  };

 public:
  // n slots; `initial` is the state before any request.
  PSimEngine(Sim& sim, const State& initial, std::size_t n, bool yield_after_announce)
      : sim_(sim),
        n_(n),
        yield_(yield_after_announce),
        toggles_words_((n_ + 63) / 64),
        entry_words_(round_up(kStateWords + toggles_words_ + n_ * kRetWords, psim::kLineWords)) {
    if (n_ == 0 || n_ >= (std::size_t{1} << (psim::kIndexBits - 2)))
      throw std::invalid_argument("weft::sync::PSim: max_handles must be in 1..2^18-1");
    entries_raw_ = std::make_unique<AWord[]>(entry_words_ * (2 * n_ + 1) + psim::kLineWords);
    entries_ = align_words(entries_raw_.get());
    toggles_raw_ = std::make_unique<AWord[]>(toggles_words_ * psim::kLineWords + psim::kLineWords);
    toggles_ = align_words(toggles_raw_.get());
    announce_raw_ = std::make_unique<AWord[]>(n_ * kOpWords + psim::kLineWords);
    announce_ = align_words(announce_raw_.get());
    bank_used_ = std::make_unique<std::atomic<std::size_t>[]>(toggles_words_);
    slots_ = std::make_unique<Slot[]>(n_);
    slot_vectors_ = std::make_unique<Word[]>(2 * n_ * toggles_words_);
    for (std::size_t i = 0; i < n_; ++i) {
      slots_[i].scratch.emplace(initial);
      slots_[i].applied = &slot_vectors_[2 * i * toggles_words_];
      slots_[i].toggles = &slot_vectors_[(2 * i + 1) * toggles_words_];
    }
    // The initial state: pool copy 2n, nothing applied (all toggles 0).
    const std::size_t init = 2 * n_;
    psim::store_words(entry(init), std::addressof(initial), 0, kStateWords, sizeof(State));
    sp_.store(static_cast<Word>(init), std::memory_order_release);
  }
  PSimEngine(const PSimEngine&) = delete;
  PSimEngine& operator=(const PSimEngine&) = delete;

  // Slot `i` is handed to a handle: responses are copied, in its bank of 64,
  // up to the highest slot ever used there.
  void slot_taken(std::size_t i) noexcept {
    std::atomic<std::size_t>& used = bank_used_[i / 64];
    std::size_t cur = used.load(std::memory_order_relaxed);
    while (i % 64 + 1 > cur && !used.compare_exchange_weak(cur, i % 64 + 1, std::memory_order_acq_rel)) {
    }
  }

  Result apply(std::size_t me, const Op& op) {
    Slot& s = slots_[me];
    bump(s.applies);
    // Announce[i] := op. The release fence orders these stores after the
    // reads that showed our previous request served: a combiner that still
    // looks for that request and reads these words sees SP changed when it
    // validates (attempt(), after a wider-than-a-word entry).
    psim::fence(std::memory_order_release);
    psim::store_value(announce(me), op);
    // Toggle bit i with Fetch&Add (+2^i when it is 0, -2^i when it is 1: no
    // carry into other bits). seq_cst: a thread whose LL comes later reads it.
    s.bit = !s.bit;
    const Word mask = Word{1} << (me % 64);
    toggle_word(me / 64).fetch_add(s.bit ? mask : Word{0} - mask, std::memory_order_seq_cst);
    if (yield_) Wait{}.pause();  // PSim-x (§4): let the worker's other ULTs announce

    unsigned attempts = 0;
    for (int j = 0; j < 2; ++j) {  // at most two attempts (§4)
      ++attempts;
      const Word old = sp_.load(std::memory_order_seq_cst);  // LL(SP)
      const AWord* src = entry(psim::sp_index(old));
      // Already served (by another thread, or PSim-x's yield let one do it)?
      if (bit_of(src + kStateWords, me) == s.bit) {
        Result r;
        psim::load_value(r, ret_of(src, me));
        if (unchanged(old)) {
          finish(s, attempts, s.served_by_other);
          return r;
        }
        continue;  // SP moved: this attempt failed
      }
      std::optional<Result> mine = attempt(s, me, op, old, src);
      if (mine) {
        finish(s, attempts, s.own_sc);
        return *mine;
      }
    }
    // Two attempts failed: some SC during the second one served our request.
    const AWord* cur = entry(psim::sp_index(sp_.load(std::memory_order_seq_cst)));
    if (bit_of(cur + kStateWords, me) != s.bit) bump(s.unserved_after_two);
    Result r;
    psim::load_value(r, ret_of(cur, me));
    finish(s, attempts, s.after_two);
    return r;
  }

  // rounds = successful SCs, requests = requests they applied (each request
  // is applied in exactly one installed state): degree = requests per SC.
  CombiningStats stats() const noexcept {
    CombiningStats st;
    for (std::size_t i = 0; i < n_; ++i) {
      st.rounds += slots_[i].rounds.load(std::memory_order_relaxed);
      st.requests += slots_[i].requests.load(std::memory_order_relaxed);
    }
    return st;
  }
  PSimStats psim_stats() const noexcept {
    PSimStats st;
    for (std::size_t i = 0; i < n_; ++i) {
      const Slot& s = slots_[i];
      st.applies += s.applies.load(std::memory_order_relaxed);
      st.attempts += s.attempts.load(std::memory_order_relaxed);
      st.sc_attempts += s.sc_attempts.load(std::memory_order_relaxed);
      st.own_sc += s.own_sc.load(std::memory_order_relaxed);
      st.served_by_other += s.served_by_other.load(std::memory_order_relaxed);
      st.after_two_failures += s.after_two.load(std::memory_order_relaxed);
      st.unserved_after_two += s.unserved_after_two.load(std::memory_order_relaxed);
      st.max_attempts = std::max<std::uint64_t>(st.max_attempts, s.max_attempts.load(std::memory_order_relaxed));
    }
    return st;
  }

  // The installed state into `out`, for a reader that is not a combiner:
  // false (and `out` unspecified) when SP changed while it was read.
  bool read_state(State& out) const noexcept {
    const Word old = sp_.load(std::memory_order_seq_cst);
    psim::load_words(std::addressof(out), entry(psim::sp_index(old)), 0, kStateWords, sizeof(State));
    return unchanged(old);
  }

  std::size_t slots() const noexcept { return n_; }
  bool yields_after_announce() const noexcept { return yield_; }

 private:
  // Lines "copy, serve the active requests, SC" of one attempt. Returns our
  // response after a successful SC, nothing when the attempt failed (SP
  // changed since `old`).
  std::optional<Result> attempt(Slot& s, std::size_t me, const Op& op, Word old, const AWord* src) {
    AWord* dst = entry(2 * me + s.local_index);
    // We overwrite a pool copy that was installed before: a thread still
    // reading it must see SP changed when it validates (seqlock writer side).
    psim::fence(std::memory_order_release);
    State& st = *s.scratch;
    // Copy the state, its applied vector and the responses.
    psim::for_each_live_word_range(st, [&](std::size_t first, std::size_t end) {
      psim::load_words(std::addressof(st), src, first, end, sizeof(State));
    });
    for (std::size_t w = 0; w < toggles_words_; ++w)
      s.applied[w] = src[kStateWords + w].load(std::memory_order_relaxed);
    if constexpr (kRetWords > 0)
      for (std::size_t b = 0; b < toggles_words_; ++b) {
        const std::size_t used = bank_used_[b].load(std::memory_order_acquire);
        AWord* d = ret_of(dst, b * 64);
        const AWord* from = ret_of(src, b * 64);
        for (std::size_t w = 0; w < used * kRetWords; ++w)
          d[w].store(from[w].load(std::memory_order_relaxed), std::memory_order_relaxed);
      }
    for (std::size_t w = 0; w < toggles_words_; ++w) s.toggles[w] = toggle_word(w).load(std::memory_order_seq_cst);
    if (!unchanged(old)) return std::nullopt;  // the copy may be torn

    // Serve every active request (Toggles XOR applied), ours first. In a
    // trace: a "combine" slice per attempt; "served" and "installed" only on
    // the attempts whose SC succeeded (the rounds of stats()).
    trace::Scope round(label("combine"));
    if constexpr (requires { sim_.begin_attempt(st, me); }) sim_.begin_attempt(st, me);
    std::uint64_t served = 1;
    const Result mine = sim_.apply(st, op, me);
    psim::store_value(ret_of(dst, me), mine);
    for (std::size_t w = 0; w < toggles_words_; ++w) {
      Word active = s.toggles[w] ^ s.applied[w];
      if (w == me / 64) active &= ~(Word{1} << (me % 64));
      while (active) {
        const std::size_t j = w * 64 + static_cast<std::size_t>(std::countr_zero(active));
        active &= active - 1;
        Op other;
        psim::load_value(other, announce(j));
        // A wider-than-a-word entry may be torn if j's request was served and
        // j announced its next one meanwhile; then SP changed.
        if constexpr (kOpWords > 1)
          if (!unchanged(old)) return abandon(me);
        psim::store_value(ret_of(dst, j), sim_.apply(st, other, me));
        ++served;
      }
    }
    if constexpr (requires { sim_.end_attempt(st, me); }) sim_.end_attempt(st, me);
    // Publish the copy: state, applied := Toggles as read.
    psim::for_each_live_word_range(st, [&](std::size_t first, std::size_t end) {
      psim::store_words(dst, std::addressof(st), first, end, sizeof(State));
    });
    for (std::size_t w = 0; w < toggles_words_; ++w) dst[kStateWords + w].store(s.toggles[w], std::memory_order_relaxed);
    bump(s.sc_attempts);
    Word expected = old;
    if (!sp_.compare_exchange_strong(expected, psim::sp_next(old, 2 * me + s.local_index), std::memory_order_seq_cst,
                                     std::memory_order_relaxed))  // SC(SP)
      return abandon(me);
    s.local_index ^= 1u;  // the other pool copy next time
    bump(s.rounds);
    s.requests.store(s.requests.load(std::memory_order_relaxed) + served, std::memory_order_relaxed);
    round.arg(label("served"), served);
    round.arg(label("installed"), 1);
    if constexpr (requires { sim_.committed(st, me); }) sim_.committed(st, me);
    return mine;
  }

  std::optional<Result> abandon(std::size_t me) {
    if constexpr (requires { sim_.abandoned(me); }) sim_.abandoned(me);
    return std::nullopt;
  }

  // Seqlock reader side: the relaxed loads before it saw no overwrite iff SP
  // still holds `old`.
  bool unchanged(Word old) const noexcept {
    psim::fence(std::memory_order_acquire);
    return sp_.load(std::memory_order_seq_cst) == old;
  }

  void finish(Slot& s, unsigned attempts, std::atomic<std::uint64_t>& outcome) noexcept {
    bump(outcome);
    s.attempts.store(s.attempts.load(std::memory_order_relaxed) + attempts, std::memory_order_relaxed);
    if (attempts > s.max_attempts.load(std::memory_order_relaxed))
      s.max_attempts.store(attempts, std::memory_order_relaxed);
  }
  static void bump(std::atomic<std::uint64_t>& c) noexcept {
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  AWord* entry(std::size_t i) const noexcept { return entries_ + i * entry_words_; }
  AWord* ret_of(const AWord* e, std::size_t j) const noexcept {
    return const_cast<AWord*>(e) + kStateWords + toggles_words_ + j * kRetWords;
  }
  AWord* announce(std::size_t j) const noexcept { return announce_ + j * kOpWords; }
  AWord& toggle_word(std::size_t w) const noexcept { return toggles_[w * psim::kLineWords]; }
  static bool bit_of(const AWord* vec, std::size_t j) noexcept {
    return (vec[j / 64].load(std::memory_order_relaxed) >> (j % 64)) & 1u;
  }
  static constexpr std::size_t round_up(std::size_t x, std::size_t m) noexcept { return (x + m - 1) / m * m; }
  static AWord* align_words(AWord* p) noexcept {
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (addr + cache_line_size - 1) & ~std::uintptr_t{cache_line_size - 1};
    return p + (aligned - addr) / sizeof(AWord);
  }

  Sim& sim_;
  const std::size_t n_;
  const bool yield_;
  const std::size_t toggles_words_;
  const std::size_t entry_words_;  // one pool copy: state, applied, n responses; whole cache lines
  alignas(cache_line_size) std::atomic<Word> sp_{0};
  std::unique_ptr<AWord[]> entries_raw_, toggles_raw_, announce_raw_;
  std::unique_ptr<std::atomic<std::size_t>[]> bank_used_;  // per bank of 64: 1 + highest slot handed out
  AWord* entries_ = nullptr;   // 2n + 1 pool copies: 2i, 2i+1 belong to slot i; 2n is the initial one
  AWord* toggles_ = nullptr;   // Toggles: word w at toggles_[w * kLineWords], one cache line each
  AWord* announce_ = nullptr;  // Announce
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<Word[]> slot_vectors_;
};

}  // namespace weft::sync::detail
