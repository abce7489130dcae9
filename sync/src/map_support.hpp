#pragma once
// What the word maps' sources share (clht.cpp, clht_lf.cpp, optik_maps.cpp):
// the key mixer, the reserved-key check, table sizing and the wait for a
// resize's table switch. Private to sync/src.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "weft/sync/wait.hpp"

namespace weft::sync::detail {

// The murmur3 finalizer: keys 1, 2, 3 ... spread over the buckets.
inline std::uint64_t mix_key(std::uint64_t k) noexcept {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

// CLHT reserves key 0 for its empty slots.
inline void check_clht_key(std::uint64_t k, const char* who) {
  if (k == 0) throw std::invalid_argument(std::string(who) + ": key 0 is reserved (CLHT's empty slot)");
}

// The power-of-two bucket count that holds `capacity` keys at `slots` per bucket.
inline std::size_t buckets_for(std::size_t capacity, std::size_t slots) {
  const std::size_t want = (capacity + slots - 1) / slots;
  std::size_t n = 1;
  while (n < want) n <<= 1;
  return n;
}

// Waits until `table` no longer points at `t` (a resize is switching
// tables). Spins without yielding: callers hold an epoch guard.
template <class Table>
void wait_for_switch(const std::atomic<Table*>& table, const Table* t) noexcept {
  SpinWait w;
  while (table.load(std::memory_order_acquire) == t) w.pause();
}

}  // namespace weft::sync::detail
