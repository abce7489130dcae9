#pragma once
// The waiting loop of the locks whose waiters share one word (TAS, TTAS,
// the reader-writer lock): retry an acquire, `pause_spins` cpu_relax()
// apart, for a spin budget, then park in the lock's ParkingLot until a
// release; repeat. A ULT yields once before it spins (the holder may be a
// ULT of its own worker) and retries between up to ult_yields yields before
// it parks (WaitBudget). The releaser's side of the handshake: make
// blocked() false with a seq_cst store or RMW, then wake if
// lot.has_parked() (detail/parking_lot.hpp).

#include <cstdint>

#include "weft/runtime/this_ult.hpp"
#include "weft/sync/cpu.hpp"
#include "weft/sync/detail/parking_lot.hpp"
#include "weft/sync/locks/wait_budget.hpp"

namespace weft::sync::detail {

template <class TryAcquire, class Blocked>
void spin_then_park_acquire(ParkingLot& lot, std::uint32_t budget, std::uint32_t pause_spins,
                            TryAcquire&& try_acquire, Blocked&& blocked) {
  if (pause_spins == 0) pause_spins = 1;
  for (;;) {
    if (weft::this_ult::worker_index() >= 0) {
      weft::this_ult::yield();
      if (try_acquire()) return;
    }
    for (std::uint32_t spent = 0; spent < budget; spent += pause_spins) {
      for (std::uint32_t i = 0; i < pause_spins; ++i) cpu_relax();
      if (try_acquire()) return;
    }
    if (weft::this_ult::worker_index() >= 0) {
      for (std::uint32_t i = wait_budget().ult_yields; i > 0; --i) {
        weft::this_ult::yield();
        if (try_acquire()) return;
      }
    }
    lot.park_while(blocked);
    if (try_acquire()) return;
  }
}

}  // namespace weft::sync::detail
