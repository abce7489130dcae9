#pragma once
// Concurrent maps built with the OPTIK pattern (Trigonakis' thesis §6.4,
// weft/sync/optik.hpp), keys and values of word size as in the thesis:
//
//  * OptikList: the sorted linked list of Figure 6.8, one OPTIK lock per
//    node and "hand-over-hand version tracking": a search is plain sequential
//    code; insert validates-and-locks only the predecessor (trylock_version
//    with the version seen while traversing); remove locks the predecessor,
//    then the victim (on failure it *reverts* the predecessor, so no false
//    conflict), unlinks, and never unlocks the victim (its odd version stops
//    any update through it; no "deleted" flag needed).
//  * OptikHashMap: a hash table whose buckets are such sorted lists with one
//    OPTIK lock per bucket (the thesis' optik-gl hash table, §6.5): searches
//    take no lock; an update traverses its bucket, returns without a store
//    if it cannot succeed, else locks the bucket validating the version it
//    read first (restarting on a concurrent change).
//
// Keys are 1 .. 2^64-2 (0 and 2^64-1 are the list's sentinels; other keys
// throw std::invalid_argument). insert() does not overwrite: it returns false
// when the key is present (as in the thesis). Removed nodes are reclaimed
// through epochs (detail/epoch.hpp: the thesis uses ssmem, §6.3.3).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "weft/sync/optik.hpp"

namespace weft::sync {

namespace detail {
struct OptikListNode;
struct OptikBucket;
}  // namespace detail

class OptikList {
 public:
  using Key = std::uint64_t;
  using Value = std::uint64_t;

  OptikList();
  ~OptikList();
  OptikList(const OptikList&) = delete;
  OptikList& operator=(const OptikList&) = delete;

  std::optional<Value> get(Key k) const;
  // Inserts (k, v) if k is absent; false if it is present.
  bool insert(Key k, Value v);
  // Removes k; its value, or nullopt if absent.
  std::optional<Value> remove(Key k);
  // Calls f(k, v) for every key in ascending order (weakly consistent: a
  // key present throughout is seen once; concurrent updates may or may not
  // be seen).
  void for_each(const std::function<void(Key, Value)>& f) const;
  std::size_t size() const;

 private:
  detail::OptikListNode* head_;
};

class OptikHashMap {
 public:
  using Key = std::uint64_t;
  using Value = std::uint64_t;

  // `buckets` is rounded up to a power of two (>= 1).
  explicit OptikHashMap(std::size_t buckets = 1024);
  ~OptikHashMap();
  OptikHashMap(const OptikHashMap&) = delete;
  OptikHashMap& operator=(const OptikHashMap&) = delete;

  std::optional<Value> get(Key k) const;
  bool insert(Key k, Value v);
  std::optional<Value> remove(Key k);
  void for_each(const std::function<void(Key, Value)>& f) const;
  std::size_t size() const;
  std::size_t bucket_count() const noexcept { return mask_ + 1; }

 private:
  detail::OptikBucket& bucket(Key k) const noexcept;
  std::unique_ptr<detail::OptikBucket[]> buckets_;
  std::size_t mask_;
};

}  // namespace weft::sync
