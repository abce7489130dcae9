#pragma once
// DelegationQueue: the queue of queue delegation locking (QD paper §4.2,
// Fig. 6, after Morrison & Afek's tantrum queue): a fixed buffer of
// `Entries` slots of `EntrySize` bytes plus one atomic function pointer per
// slot, and a counter; the queue is closed whenever counter >= Entries.
//
//   open()     closed -> empty (counter = 0); by the lock holder
//   enqueue(f) copies the closure f into the buffer (no allocation): reserve
//              req = ceil((header + sizeof f) / EntrySize) slots with one
//              fetch-and-add, write the header and the closure with plain
//              stores, then publish the slot's function pointer last (release).
//              False (CLOSED) if the queue is closed or f does not fit in
//              what is left; an entry that straddles the end closes the queue
//              with a no-op filler (Fig. 6 lines 15-19).
//   flush()    by the holder: runs every published entry in FIFO order until
//              a scan finds nothing new, then closes the queue with an
//              exchange that also catches racing fetch-and-adds (Fig. 6
//              lines 28-40); or stops at a full buffer. Clears the function
//              pointers it ran. Returns how many closures it ran.
//
// The paper's pseudo-code re-declares `f` inside its wait loop (so the loop
// never re-reads the slot) and indexes the parameter array by slot instead
// of slot x ENTRY_SIZE (digest §2.2); this follows the prose instead.
//
// A closure must not throw (a throw out of a delegated operation calls
// std::terminate) and must fit the buffer (checked at compile time).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "weft/sync/cpu.hpp"

namespace weft::sync::detail {

template <std::size_t Entries, std::size_t EntrySize>
class DelegationQueue {
  static_assert(Entries >= 2, "DelegationQueue: at least 2 entries");
  static_assert(EntrySize >= 16 && EntrySize % 16 == 0, "DelegationQueue: EntrySize must be a multiple of 16");

 public:
  using Thunk = void (*)(void* closure) noexcept;

  // Bytes before the closure in its first slot (the slot count `req`).
  static constexpr std::size_t kHeader = 16;

  template <class F>
  static constexpr std::size_t slots_for() {
    return (kHeader + sizeof(F) + EntrySize - 1) / EntrySize;
  }
  template <class F>
  static constexpr bool fits() {
    return alignof(F) <= 16 && slots_for<F>() <= Entries;
  }

  DelegationQueue() = default;
  DelegationQueue(const DelegationQueue&) = delete;
  DelegationQueue& operator=(const DelegationQueue&) = delete;

  void open() noexcept { counter_.store(0, std::memory_order_release); }
  bool is_closed() const noexcept { return counter_.load(std::memory_order_relaxed) >= std::int64_t(Entries); }

  template <class F>
  bool enqueue(F&& f) noexcept(std::is_nothrow_constructible_v<std::decay_t<F>, F&&>) {
    using Fn = std::decay_t<F>;
    static_assert(fits<Fn>(), "weft::sync: the delegated closure does not fit the QD lock's buffer "
                              "(capture less by value, or raise Entries / EntrySize)");
    constexpr auto req = static_cast<std::int64_t>(slots_for<Fn>());
    constexpr auto entries = static_cast<std::int64_t>(Entries);
    if (counter_.load(std::memory_order_relaxed) > entries - req) return false;  // no RMW on a closed queue
    const std::int64_t index = counter_.fetch_add(req, std::memory_order_acq_rel);
    if (index <= entries - req) {
      std::byte* at = bytes(index);
      const auto n = static_cast<std::uint32_t>(req);
      std::memcpy(at, &n, sizeof n);
      ::new (static_cast<void*>(at + kHeader)) Fn(std::forward<F>(f));
      entries_[index].store(&run_and_destroy<Fn>, std::memory_order_release);
      return true;
    }
    if (index < entries) {  // straddles the end: a filler up to the end closes the queue
      const auto n = static_cast<std::uint32_t>(entries - index);
      std::memcpy(bytes(index), &n, sizeof n);
      entries_[index].store(&no_op, std::memory_order_release);
    }
    return false;
  }

  std::size_t flush() noexcept {
    constexpr auto entries = static_cast<std::int64_t>(Entries);
    std::int64_t done = 0;
    std::size_t ran = 0;
    bool open = true;
    while (open) {
      std::int64_t todo = counter_.load(std::memory_order_acquire);
      if (todo == done) {  // nothing new since the last scan: close
        todo = counter_.exchange(entries, std::memory_order_acq_rel);
        open = false;
      }
      if (todo >= entries) {
        todo = entries;
        open = false;
      }
      std::int64_t index = done;
      while (index < todo) {
        Thunk t;
        // Published a few instructions after its fetch-and-add.
        while ((t = entries_[index].load(std::memory_order_acquire)) == nullptr) cpu_relax();
        std::uint32_t n;
        std::memcpy(&n, bytes(index), sizeof n);
        if (t != &no_op) {
          t(bytes(index) + kHeader);
          ++ran;
        }
        index += n;
      }
      done = todo;
    }
    for (std::int64_t i = 0; i < done; ++i) entries_[i].store(nullptr, std::memory_order_relaxed);
    return ran;
  }

 private:
  template <class Fn>
  static void run_and_destroy(void* p) noexcept {
    Fn* f = std::launder(static_cast<Fn*>(p));
    (*f)();
    f->~Fn();
  }
  static void no_op(void*) noexcept {}

  std::byte* bytes(std::int64_t slot) noexcept { return buffer_ + static_cast<std::size_t>(slot) * EntrySize; }

  alignas(cache_line_size) std::atomic<std::int64_t> counter_{std::int64_t(Entries)};  // starts closed
  alignas(cache_line_size) std::atomic<Thunk> entries_[Entries] = {};
  alignas(cache_line_size) std::byte buffer_[Entries * EntrySize];
};

}  // namespace weft::sync::detail
