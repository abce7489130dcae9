#pragma once
// The options and counters of the PSim family (psim.hpp, psim_queue.hpp,
// psim_stack.hpp).

#include <cstddef>
#include <cstdint>

namespace weft::sync {

struct PSimConfig {
  // n: the most handles alive at once; handle() throws std::length_error
  // beyond it. 0 = the class's default_max_handles (128). Memory of one PSim
  // instance is about (2n + 1) x (state + n x Result).
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

}  // namespace weft::sync
