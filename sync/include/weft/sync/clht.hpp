#pragma once
// CLHT, the cache-line hash table (David, Guerraoui & Trigonakis, ASPLOS'15;
// Trigonakis' thesis §6.2), lock-based variant with resizing (CLHT-LB):
// every bucket is one 64-byte cache line [lock | 3 keys | 3 values | next],
// so an operation touches about one line. Following the ASCY guidelines
// (§6.2): get() never waits, retries only if a slot changes under it, and
// never stores (an atomic snapshot: read the value, check the key, re-read
// the value); an update first searches without the lock and returns at once
// (no store) when it cannot succeed, then locks its bucket, re-checks and
// writes in place (a value before its key). A full bucket chains an overflow
// bucket; when the overflow buckets exceed a quarter of the table the table
// is doubled: the resizer locks each bucket in turn, copies it into the new
// table and leaves it locked as "migrated"; an update that meets a migrated
// bucket waits for the new table and retries there, while get() keeps
// reading the frozen old table until the switch (the old table's contents
// are exactly the map's at that moment). The old table is reclaimed through
// epochs (detail/epoch.hpp; the thesis uses ssmem).
//
// ClhtLf is the lock-free variant (CLHT-LF, thesis §6.2): no locks; a
// bucket's concurrency word is a snapshot_t, a 32-bit version plus one state
// byte per slot (invalid, being inserted, valid), changed only by CAS of the
// whole word. An insert reserves a free slot (invalid -> inserting), writes
// key and value, then publishes it (inserting -> valid, version + 1) unless
// a concurrent insert of the same key was published first (then it frees
// its slot and fails): no duplicates without locks. A remove CASes its
// slot's state to invalid. A bucket has no overflow chain: a full bucket
// doubles the table. Resizing freezes each bucket's word (a flag bit; CASes
// on it fail) and copies the valid pairs; updates that meet a frozen bucket
// wait for the new table, so updates are lock-free except during a resize
// (gets never wait).
//
// Keys and values are words, as in the thesis: key 0 and value 0 are
// reserved (std::invalid_argument). put() inserts only if absent. For other
// word-sized types see weft/sync/clht_map.hpp.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "weft/sync/cpu.hpp"

namespace weft::sync {

namespace detail {
struct ClhtTable;
struct ClhtLfTable;
}

class ClhtLb {
 public:
  using Key = std::uint64_t;
  using Value = std::uint64_t;

  // Initial capacity in keys (3 per bucket), rounded up to a power of two buckets.
  explicit ClhtLb(std::size_t capacity = 1024);
  ~ClhtLb();
  ClhtLb(const ClhtLb&) = delete;
  ClhtLb& operator=(const ClhtLb&) = delete;

  std::optional<Value> get(Key k) const;
  // Inserts (k, v) if k is absent; false (and nothing stored) if present.
  bool put(Key k, Value v);
  // Removes k; its value, or nullopt if absent.
  std::optional<Value> remove(Key k);
  // Calls f(k, v) for the keys of the current table (weakly consistent: a key
  // present throughout is seen once; concurrent updates may or may not be).
  void for_each(const std::function<void(Key, Value)>& f) const;
  std::size_t size() const;
  std::size_t bucket_count() const;
  // How many times the table has been doubled.
  std::size_t resizes() const noexcept { return resizes_.load(std::memory_order_relaxed); }

 private:
  void resize(detail::ClhtTable* full);

  std::atomic<detail::ClhtTable*> table_;
  std::atomic<bool> resizing_{false};
  std::atomic<std::size_t> resizes_{0};
};

class ClhtLf {
 public:
  using Key = std::uint64_t;
  using Value = std::uint64_t;

  explicit ClhtLf(std::size_t capacity = 1024);
  ~ClhtLf();
  ClhtLf(const ClhtLf&) = delete;
  ClhtLf& operator=(const ClhtLf&) = delete;

  std::optional<Value> get(Key k) const;
  bool put(Key k, Value v);
  std::optional<Value> remove(Key k);
  void for_each(const std::function<void(Key, Value)>& f) const;
  std::size_t size() const;
  std::size_t bucket_count() const;
  std::size_t resizes() const noexcept { return resizes_.load(std::memory_order_relaxed); }

 private:
  void resize(detail::ClhtLfTable* full);

  std::atomic<detail::ClhtLfTable*> table_;
  std::atomic<bool> resizing_{false};
  std::atomic<std::size_t> resizes_{0};
};

}  // namespace weft::sync
