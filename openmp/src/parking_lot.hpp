#pragma once
// ParkingLot: futex-like waiting on any address, for ULTs and plain threads
// (internal). The OpenMP ABI gives the library words it does not own
// (omp_lock_t is 4 bytes, a named critical section one pointer), so waiters
// cannot live in the object they wait on: they queue in one of a fixed set
// of buckets chosen by the address, as in WebKit's ParkingLot.
//
//   waiter:   park_while(key, still_waiting)   // still_waiting() re-checked under the bucket lock
//   notifier: <change the state>; unpark_all(key) or unpark_one(key)
//
// A notifier that changes the state before calling unpark_* cannot be
// missed: the waiter checks the state after registering (both under the
// bucket's lock), and the notifier's fast path (no waiter in the bucket: one
// load) is ordered against that registration by a seq_cst fence on each side.
// Wake-ups may be spurious (another key in the same bucket, a stale key):
// waiters loop on their own condition.
//
// A parked waiter sleeps on a weft::Latch on its own stack: a ULT parks (its
// worker runs other ULTs), a plain thread blocks on a futex. Nothing touches
// the key's memory, so a notifier may wake waiters of an object that its
// owner frees as soon as it sees the state change.

#include <cstdint>

namespace weft::omp {

// Parks the caller on `key` while still_waiting(arg) holds (checked under the
// bucket's lock before parking). Returns after a wake-up, which may be
// spurious, or at once when still_waiting was false.
void park_while(const void* key, bool (*still_waiting)(const void*), const void* arg);

template <class Pred>
void park_while(const void* key, const Pred& still_waiting) {
  park_while(key, [](const void* p) { return (*static_cast<const Pred*>(p))(); }, &still_waiting);
}

// Wakes every waiter parked on `key` / the one parked first. Cheap when the
// key's bucket has no waiter.
void unpark_all(const void* key);
void unpark_one(const void* key);

}  // namespace weft::omp
