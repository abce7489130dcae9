#pragma once
// PSim (Fatourou & Kallimanis, "A highly-efficient wait-free universal
// construction", SPAA 2011) and PSim-x, its ULT variant (Fatourou &
// Kallimanis, "Lock Oscillation", OPODIS 2017, §4 "Description of PSim and
// PSim-x" and §5, Table 4).
//
// A wait-free combining construction. The shared object is a pointer SP to
// one of a pool of copies of the simulated state; each copy also holds the
// "applied" toggle vector (which request of each thread it includes) and a
// return value for each of the n threads. To apply a request, thread i
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
// Differences from the authors' C code, for the C++ memory model and for a
// handle-based interface:
// - A state copy may be overwritten by its owner while a slow thread still
//   copies it; the reader then fails its validation (SP changed) and retries,
//   as in the C code. To make that race well defined, every pool copy, the
//   announce array and the toggles are arrays of std::atomic<uint64_t> words
//   accessed with relaxed loads/stores and seqlock-style fences; the
//   simulated state therefore has to be trivially copyable (PSimState below).
//   A thread runs the sequential code on a private scratch copy and publishes
//   it into its pool copy before the SC.
// - A state may say which of its bytes are live (psim_header_bytes +
//   psim_live_ranges(): InlineQueue, InlineStack), and only those are copied:
//   PSim's cost is a copy of the state per attempt, and a bounded container is
//   mostly empty space.
// - The checks that the C code does without validation (the "already
//   applied" test, announce entries wider than a word) are validated against
//   SP, so that a torn read never decides anything; every failed validation
//   means SP changed, which is all the two-attempt argument needs.
// - n is the number of live handles, not of threads: handle() takes a free
//   slot i (Announce[i], Toggles bit i, pool copies 2i and 2i+1), ~Handle gives
//   it back. n = PSimConfig::max_handles is fixed at construction.
// - The return-value arrays are copied only up to the highest slot ever used.
// Neither PSim nor PSim-x has a combining bound: a combiner serves every
// active request, which is what makes two attempts enough
// (CombiningConfig::max_combine is ignored).
//
// Nothing here waits: Wait is used only for the single post-announce pause of
// PSim-x (YieldWait: weft's fair ULT yield). apply() allocates nothing.
//
//   weft::sync::PSim<FetchMultiply<std::uint64_t>> x;              // PSim-x
//   weft::sync::PSim<FetchMultiply<std::uint64_t>> p(FetchMultiply<std::uint64_t>{},
//       weft::sync::PSimConfig{.max_handles = 64, .yield_after_announce = false});   // plain PSim

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "weft/sync/combining.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/handle_base.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

// A sequential object PSim can simulate: its state is copied (by words, while
// another thread may overwrite the source, see above), so it, its operations
// and its results must be trivially copyable, and apply() must touch nothing
// but the object itself. A type whose apply() writes memory outside the
// object (the ends of CombiningQueue, which write a shared ring) says so with
// `static constexpr bool external_state = true` and is rejected: PSim runs
// apply() speculatively, on private copies, in several threads at once.
// Optionally the state declares which bytes are live:
//   static constexpr std::size_t psim_header_bytes;   // always copied
//   template <class F> void psim_live_ranges(F&& range) const;
//     // calls range(byte_offset, byte_length) for the other live bytes; reads
//     // only the header, and must stay in bounds whatever the header holds
//     // (a copy that is being overwritten may be torn; it is discarded later).
template <class S>
concept PSimState = SequentialObject<S> && std::copy_constructible<S> && std::is_trivially_copyable_v<S> &&
                    std::is_trivially_copyable_v<typename S::Op> &&
                    std::is_trivially_copyable_v<typename S::Result> && !requires {
                      requires S::external_state;
                    };

struct PSimConfig {
  // n: the most handles alive at once; handle() throws std::length_error
  // beyond it. 0 = PSim's default_max_handles (128). Memory is about
  // (2n + 1) x (state + n x Result).
  std::size_t max_handles = 0;
  // PSim-x: one Wait{}.pause() after announcing. false: plain PSim.
  bool yield_after_announce = true;
};

// PSim's own counters (beyond CombiningStats), summed over all slots.
struct PSimStats {
  std::uint64_t applies = 0;             // apply() calls
  std::uint64_t attempts = 0;            // LL ... SC rounds started, over all applies
  std::uint64_t sc_attempts = 0;         // SCs (CAS on SP) tried
  std::uint64_t own_sc = 0;              // applies that returned after their own successful SC
  std::uint64_t served_by_other = 0;     // applies that found their request served by someone else
  std::uint64_t after_two_failures = 0;  // applies that returned after two failed attempts
  std::uint64_t unserved_after_two = 0;  // of those, not served in the state read: must stay 0
  std::uint64_t max_attempts = 0;        // most attempts of one apply: at most 2 (wait-freedom)
};

namespace detail::psim {

using Word = std::uint64_t;
using AWord = std::atomic<Word>;

constexpr std::size_t words_for(std::size_t bytes) noexcept { return (bytes + 7) / 8; }

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
  load_words(std::addressof(dst), src, 0, words_for(sizeof(T)), sizeof(T));
}
template <class T>
void store_value(AWord* dst, const T& src) noexcept {
  store_words(dst, std::addressof(src), 0, words_for(sizeof(T)), sizeof(T));
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

}  // namespace detail::psim

template <PSimState Seq, WaitPolicy Wait = YieldWait>
class PSim {
 public:
  using Sequential = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;
  static constexpr std::size_t default_max_handles = 128;

 private:
  using Word = detail::psim::Word;
  using AWord = detail::psim::AWord;
  static constexpr std::size_t kStateWords = detail::psim::words_for(sizeof(Seq));
  static constexpr std::size_t kOpWords = detail::psim::words_for(sizeof(Op));
  static constexpr std::size_t kRetWords = detail::psim::words_for(sizeof(Result));

  // Per-slot data, used only by the handle that holds the slot (and by
  // stats(), which reads the counters).
  struct alignas(cache_line_size) Slot {
    std::optional<Seq> scratch;  // the private copy the sequential code runs on
    Word* applied = nullptr;     // toggles_words_ words: the applied vector copied at LL
    Word* toggles = nullptr;     // toggles_words_ words: Toggles as read after LL
    unsigned local_index = 0;    // which of the slot's two pool copies to write next
    bool bit = false;            // current value of this slot's toggle bit
    bool in_use = false;         // guarded by PSim::m_
    std::atomic<std::uint64_t> rounds{0}, requests{0};  // successful SCs, requests they served
    std::atomic<std::uint64_t> applies{0}, attempts{0}, sc_attempts{0}, own_sc{0}, served_by_other{0},
        after_two{0}, unserved_after_two{0}, max_attempts{0};
  };

 public:
  // Per-caller state: a slot index (Announce entry, Toggles bit, two pool
  // copies). Given back when the handle dies.
  class Handle : public detail::HandleBase<Handle, PSim> {
   public:
    Handle() = default;
    Handle(Handle&&) noexcept = default;
    Handle& operator=(Handle&&) noexcept = default;
    ~Handle() { this->release(); }
    // The slot (0..n-1) this handle holds.
    std::size_t slot() const noexcept { return slot_; }

   private:
    friend class PSim;
    Handle(PSim* obj, std::size_t slot) : detail::HandleBase<Handle, PSim>(obj), slot_(slot) {}
    std::size_t slot_ = 0;
  };

  PSim() : PSim(Seq{}) {}
  explicit PSim(Seq seq, PSimConfig cfg = {})
      : initial_(seq),
        n_(cfg.max_handles ? cfg.max_handles : default_max_handles),
        yield_(cfg.yield_after_announce),
        toggles_words_((n_ + 63) / 64),
        entry_words_(round_up(kStateWords + toggles_words_ + n_ * kRetWords, 8)) {
    if (n_ >= (std::size_t{1} << (detail::psim::kIndexBits - 2)))
      throw std::invalid_argument("weft::sync::PSim: max_handles too large");
    entries_raw_ = std::make_unique<AWord[]>(entry_words_ * (2 * n_ + 1) + 8);
    entries_ = align_words(entries_raw_.get());
    toggles_raw_ = std::make_unique<AWord[]>(round_up(toggles_words_, 8) + 8);
    toggles_ = align_words(toggles_raw_.get());
    announce_raw_ = std::make_unique<AWord[]>(n_ * kOpWords + 8);
    announce_ = align_words(announce_raw_.get());
    slots_ = std::make_unique<Slot[]>(n_);
    slot_vectors_ = std::make_unique<Word[]>(2 * n_ * toggles_words_);
    for (std::size_t i = 0; i < n_; ++i) {
      slots_[i].scratch.emplace(seq);
      slots_[i].applied = &slot_vectors_[2 * i * toggles_words_];
      slots_[i].toggles = &slot_vectors_[(2 * i + 1) * toggles_words_];
    }
    // The initial state: pool copy 2n, nothing applied (all toggles 0).
    const std::size_t init = 2 * n_;
    detail::psim::store_words(entry(init), std::addressof(seq), 0, kStateWords, sizeof(Seq));
    sp_.store(static_cast<Word>(init), std::memory_order_release);
  }
  explicit PSim(Seq seq, CombiningConfig) : PSim(std::move(seq), PSimConfig{}) {}
  PSim(const PSim&) = delete;
  PSim& operator=(const PSim&) = delete;

  // Takes a free slot; throws std::length_error when all n are in use.
  Handle handle() {
    std::lock_guard lk(m_);
    for (std::size_t i = 0; i < n_; ++i) {
      if (!slots_[i].in_use) {
        slots_[i].in_use = true;
        if (i + 1 > hwm_.load(std::memory_order_relaxed)) hwm_.store(i + 1, std::memory_order_release);
        return Handle(this, i);
      }
    }
    throw std::length_error("weft::sync::PSim: more than " + std::to_string(n_) +
                            " live handles (PSimConfig::max_handles = " + std::to_string(n_) + ")");
  }

  Result apply(Handle& h, const Op& op) {
    const std::size_t me = h.slot_;
    Slot& s = slots_[me];
    bump(s.applies);
    // Announce[i] := op. The release fence orders these stores after the
    // reads that showed our previous request served: a combiner that still
    // looks for that request and reads these words sees SP changed when it
    // validates (attempt(), after a wider-than-a-word entry).
    detail::psim::fence(std::memory_order_release);
    detail::psim::store_value(announce(me), op);
    // Toggle bit i with Fetch&Add (+2^i when it is 0, -2^i when it is 1: no
    // carry into other bits). seq_cst: a thread whose LL comes later reads it.
    s.bit = !s.bit;
    const Word mask = Word{1} << (me % 64);
    toggles_[me / 64].fetch_add(s.bit ? mask : Word{0} - mask, std::memory_order_seq_cst);
    if (yield_) Wait{}.pause();  // PSim-x (§4): let the worker's other ULTs announce

    unsigned attempts = 0;
    for (int j = 0; j < 2; ++j) {  // at most two attempts (§4)
      ++attempts;
      const Word old = sp_.load(std::memory_order_seq_cst);  // LL(SP)
      const AWord* src = entry(detail::psim::sp_index(old));
      // Already served (by another thread, or PSim-x's yield let one do it)?
      if (bit_of(src + kStateWords, me) == s.bit) {
        Result r;
        detail::psim::load_value(r, ret_of(src, me));
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
    const AWord* cur = entry(detail::psim::sp_index(sp_.load(std::memory_order_seq_cst)));
    if (bit_of(cur + kStateWords, me) != s.bit) bump(s.unserved_after_two);
    Result r;
    detail::psim::load_value(r, ret_of(cur, me));
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

  // A copy of the current simulated state (the state lives in pool copies
  // that are swapped, not in one object: writes to the copy do nothing).
  // Only while no operation is in progress.
  Seq unsafe_object() const {
    Seq out = initial_;
    const AWord* cur = entry(detail::psim::sp_index(sp_.load(std::memory_order_acquire)));
    detail::psim::load_words(std::addressof(out), cur, 0, kStateWords, sizeof(Seq));
    return out;
  }
  std::size_t max_handles() const noexcept { return n_; }
  bool yields_after_announce() const noexcept { return yield_; }

 private:
  // Lines "copy, serve the active requests, SC" of one attempt. Returns our
  // response after a successful SC, nothing when the attempt failed (SP
  // changed since `old`).
  std::optional<Result> attempt(Slot& s, std::size_t me, const Op& op, Word old, const AWord* src) {
    AWord* dst = entry(2 * me + s.local_index);
    // We overwrite a pool copy that was installed before: a thread still
    // reading it must see SP changed when it validates (seqlock writer side).
    detail::psim::fence(std::memory_order_release);
    const std::size_t used = hwm_.load(std::memory_order_acquire);
    Seq& st = *s.scratch;
    // Copy the state, its applied vector and the responses.
    detail::psim::for_each_live_word_range(st, [&](std::size_t first, std::size_t end) {
      detail::psim::load_words(std::addressof(st), src, first, end, sizeof(Seq));
    });
    for (std::size_t w = 0; w < toggles_words_; ++w)
      s.applied[w] = src[kStateWords + w].load(std::memory_order_relaxed);
    for (std::size_t j = 0; j < used; ++j)
      for (std::size_t w = 0; w < kRetWords; ++w)
        ret_of(dst, j)[w].store(ret_of(src, j)[w].load(std::memory_order_relaxed), std::memory_order_relaxed);
    for (std::size_t w = 0; w < toggles_words_; ++w)
      s.toggles[w] = toggles_[w].load(std::memory_order_seq_cst);
    if (!unchanged(old)) return std::nullopt;  // the copy may be torn

    // Serve every active request (Toggles XOR applied), ours first.
    std::uint64_t served = 1;
    const Result mine = st.apply(op);
    detail::psim::store_value(ret_of(dst, me), mine);
    for (std::size_t w = 0; w < toggles_words_; ++w) {
      Word active = s.toggles[w] ^ s.applied[w];
      if (w == me / 64) active &= ~(Word{1} << (me % 64));
      while (active) {
        const std::size_t j = w * 64 + static_cast<std::size_t>(std::countr_zero(active));
        active &= active - 1;
        Op other;
        detail::psim::load_value(other, announce(j));
        // A wider-than-a-word entry may be torn if j's request was served and
        // j announced its next one meanwhile; then SP changed.
        if constexpr (kOpWords > 1)
          if (!unchanged(old)) return std::nullopt;
        detail::psim::store_value(ret_of(dst, j), st.apply(other));
        ++served;
      }
    }
    // Publish the copy: state, applied := Toggles as read.
    detail::psim::for_each_live_word_range(st, [&](std::size_t first, std::size_t end) {
      detail::psim::store_words(dst, std::addressof(st), first, end, sizeof(Seq));
    });
    for (std::size_t w = 0; w < toggles_words_; ++w) dst[kStateWords + w].store(s.toggles[w], std::memory_order_relaxed);
    bump(s.sc_attempts);
    Word expected = old;
    if (!sp_.compare_exchange_strong(expected, detail::psim::sp_next(old, 2 * me + s.local_index),
                                     std::memory_order_seq_cst, std::memory_order_relaxed))  // SC(SP)
      return std::nullopt;
    s.local_index ^= 1u;  // the other pool copy next time
    bump(s.rounds);
    s.requests.store(s.requests.load(std::memory_order_relaxed) + served, std::memory_order_relaxed);
    return mine;
  }

  // Seqlock reader side: the relaxed loads before it saw no overwrite iff SP
  // still holds `old`.
  bool unchanged(Word old) const noexcept {
    detail::psim::fence(std::memory_order_acquire);
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

  friend class detail::HandleBase<Handle, PSim>;
  void release_handle(Handle& h) noexcept {
    std::lock_guard lk(m_);
    slots_[h.slot_].in_use = false;
  }

  AWord* entry(std::size_t i) const noexcept { return entries_ + i * entry_words_; }
  AWord* ret_of(const AWord* e, std::size_t j) const noexcept {
    return const_cast<AWord*>(e) + kStateWords + toggles_words_ + j * kRetWords;
  }
  AWord* announce(std::size_t j) const noexcept { return announce_ + j * kOpWords; }
  static bool bit_of(const AWord* vec, std::size_t j) noexcept {
    return (vec[j / 64].load(std::memory_order_relaxed) >> (j % 64)) & 1u;
  }
  static constexpr std::size_t round_up(std::size_t x, std::size_t m) noexcept { return (x + m - 1) / m * m; }
  static AWord* align_words(AWord* p) noexcept {
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (addr + cache_line_size - 1) & ~std::uintptr_t{cache_line_size - 1};
    return p + (aligned - addr) / sizeof(AWord);
  }

  const Seq initial_;  // a Seq object to copy states into (unsafe_object)
  const std::size_t n_;
  const bool yield_;
  const std::size_t toggles_words_;
  const std::size_t entry_words_;  // one pool copy: state, applied, n responses; whole cache lines
  alignas(cache_line_size) std::atomic<Word> sp_{0};
  alignas(cache_line_size) std::atomic<std::size_t> hwm_{0};  // 1 + highest slot ever handed out
  std::unique_ptr<AWord[]> entries_raw_, toggles_raw_, announce_raw_;
  AWord* entries_ = nullptr;   // 2n + 1 pool copies: 2i, 2i+1 belong to slot i; 2n is the initial one
  AWord* toggles_ = nullptr;   // Toggles
  AWord* announce_ = nullptr;  // Announce
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<Word[]> slot_vectors_;
  std::mutex m_;  // handle()/~Handle only
};

// PSim-x with weft's fair yield as a one-parameter template, for code that
// takes a `template <class> class Combiner` (its sequential objects must be
// PSimStates: not CombiningQueue's ends, see psim_queue.hpp). Plain PSim:
// construct with PSimConfig{.yield_after_announce = false}.
template <class S>
using PSimX = PSim<S, YieldWait>;

}  // namespace weft::sync
