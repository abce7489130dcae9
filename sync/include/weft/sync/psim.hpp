#pragma once
// PSim (Fatourou & Kallimanis, "A highly-efficient wait-free universal
// construction", SPAA 2011) and PSim-x, its ULT variant (Fatourou &
// Kallimanis, "Lock Oscillation", OPODIS 2017, §4 "Description of PSim and
// PSim-x" and §5, Table 4), over a sequential object.
//
// A wait-free combining construction: the holder of a handle announces its
// request, flips its toggle bit with a Fetch&Add, (PSim-x) yields once, and
// then at most twice copies the current state, serves every announced
// request on the copy and tries to install it with one SC; after two failed
// attempts its request is served. The algorithm, its wait-freedom argument
// and how it is mapped onto the C++ memory model are in
// detail/psim_engine.hpp; this class runs it on a sequential object `Seq`
// (the simulated state is a copy of Seq).
//
// n is the number of live handles, not of threads: handle() takes a free
// slot i (Announce[i], Toggles bit i, pool copies 2i and 2i+1), ~Handle gives
// it back. n = PSimConfig::max_handles is fixed at construction. A handle
// made on a weft worker gets a slot among that worker's (psim_slots.hpp).
// Neither PSim nor PSim-x has a combining bound (CombiningConfig::max_combine
// is ignored). Nothing waits: Wait is used only for the single post-announce
// pause of PSim-x (YieldWait: weft's fair ULT yield). apply() allocates
// nothing.
//
//   weft::sync::PSim<FetchMultiply<std::uint64_t>> x;              // PSim-x
//   weft::sync::PSim<FetchMultiply<std::uint64_t>> p(FetchMultiply<std::uint64_t>{},
//       weft::sync::PSimConfig{.max_handles = 64, .yield_after_announce = false});   // plain PSim

#include <cstddef>
#include <type_traits>
#include <utility>

#include "weft/sync/combining.hpp"
#include "weft/sync/detail/psim_engine.hpp"
#include "weft/sync/detail/psim_slots.hpp"
#include "weft/sync/psim_config.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync {

// A sequential object PSim can simulate: its state is copied (by words, while
// another thread may overwrite the source), so it, its operations and its
// results must be trivially copyable, and apply() must touch nothing but the
// object itself. A type whose apply() writes memory outside the object (the
// ends of CombiningQueue, which write a shared ring) says so with
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

namespace detail {

// What PSim simulates: the sequential object itself.
template <class Seq>
struct SequentialSim {
  using State = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;
  Result apply(Seq& state, const Op& op, std::size_t /*combiner slot*/) { return state.apply(op); }
};

}  // namespace detail

template <PSimState Seq, WaitPolicy Wait = YieldWait>
class PSim {
 public:
  using Sequential = Seq;
  using Op = typename Seq::Op;
  using Result = typename Seq::Result;
  static constexpr std::size_t default_max_handles = 128;

  // Per-caller state: a slot index (Announce entry, Toggles bit, two pool
  // copies), slot(). Given back when the handle dies.
  using Handle = detail::SlotHandle<PSim>;

  PSim() : PSim(Seq{}) {}
  explicit PSim(Seq seq, PSimConfig cfg = {})
      : initial_(seq),
        slots_(cfg.max_handles ? cfg.max_handles : default_max_handles),
        engine_(sim_, seq, slots_.size(), cfg.yield_after_announce) {}
  explicit PSim(Seq seq, CombiningConfig) : PSim(std::move(seq), PSimConfig{}) {}
  PSim(const PSim&) = delete;
  PSim& operator=(const PSim&) = delete;

  // Takes a free slot; throws std::length_error when all n are in use.
  Handle handle() {
    const std::size_t i = slots_.take("weft::sync::PSim");
    engine_.slot_taken(i);
    return Handle(this, i);
  }

  Result apply(Handle& h, const Op& op) { return engine_.apply(h.slot(), op); }

  // rounds = successful SCs, requests = requests they applied: degree =
  // requests per SC.
  CombiningStats stats() const noexcept { return engine_.stats(); }
  PSimStats psim_stats() const noexcept { return engine_.psim_stats(); }

  // A copy of the current simulated state (the state lives in pool copies
  // that are swapped, not in one object: writes to the copy do nothing).
  // Only while no operation is in progress.
  Seq unsafe_object() const {
    Seq out = initial_;
    engine_.read_state(out);
    return out;
  }
  std::size_t max_handles() const noexcept { return slots_.size(); }
  bool yields_after_announce() const noexcept { return engine_.yields_after_announce(); }

 private:
  friend class detail::HandleBase<Handle, PSim>;
  void release_handle(Handle& h) noexcept { slots_.give_back(h.slot()); }

  const Seq initial_;  // a Seq object to copy states into (unsafe_object)
  detail::SequentialSim<Seq> sim_;
  detail::PSimSlots slots_;
  detail::PSimEngine<detail::SequentialSim<Seq>, Wait> engine_;
};

// PSim-x with weft's fair yield as a one-parameter template, for code that
// takes a `template <class> class Combiner` (its sequential objects must be
// PSimStates: not CombiningQueue's ends). Plain PSim: construct with
// PSimConfig{.yield_after_announce = false}.
template <class S>
using PSimX = PSim<S, YieldWait>;

}  // namespace weft::sync
