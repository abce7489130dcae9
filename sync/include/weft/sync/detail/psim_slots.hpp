#pragma once
// The n handle slots of a PSim instance (or of the two instances of a
// PSimQueue): the handle that holds slot i owns Announce[i], bit i of
// Toggles and the pool copies 2i and 2i+1 (psim_engine.hpp). Slots come in
// banks of 64, one Toggles word each, and the engine keeps every word on its
// own cache line; a handle made on worker w gets a slot in one of w's banks
// when one is free (bank b with b mod workers == w mod workers, then any),
// so the Fetch&Add by which a request is announced touches a line that only
// w's ULTs write, and the Announce entries of one worker share lines only
// with each other. Plain threads (no worker) take the lowest free slot.
// take()/give_back() lock a mutex: they run when handles are made and
// destroyed, never during an operation.

#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/sync/detail/handle_base.hpp"
#include "weft/sync/wait.hpp"

namespace weft::sync::detail {

class PSimSlots {
 public:
  static constexpr std::size_t kBank = 64;  // slots per Toggles word

  explicit PSimSlots(std::size_t n) : used_(n, false) {}
  PSimSlots(const PSimSlots&) = delete;
  PSimSlots& operator=(const PSimSlots&) = delete;

  // A free slot for a handle made by the caller; `who` names the object in
  // the std::length_error thrown when all n are taken.
  std::size_t take(const char* who) {
    const std::size_t n = used_.size();
    const std::size_t banks = (n + kBank - 1) / kBank;
    const int w = current_worker_index();
    std::lock_guard lk(m_);
    if (w >= 0) {
      const int count = current_worker_count();
      const auto stride = static_cast<std::size_t>(count > w ? count : w + 1);
      for (std::size_t b = static_cast<std::size_t>(w) % banks; b < banks; b += stride)
        if (std::size_t i; take_in_bank(b, i)) return i;
    }
    for (std::size_t b = 0; b < banks; ++b)
      if (std::size_t i; take_in_bank(b, i)) return i;
    throw std::length_error(std::string(who) + ": more than " + std::to_string(n) +
                            " live handles (PSimConfig::max_handles = " + std::to_string(n) + ")");
  }

  void give_back(std::size_t i) noexcept {
    std::lock_guard lk(m_);
    used_[i] = false;
  }

  std::size_t size() const noexcept { return used_.size(); }

 private:
  bool take_in_bank(std::size_t b, std::size_t& out) {
    const std::size_t end = (b + 1) * kBank < used_.size() ? (b + 1) * kBank : used_.size();
    for (std::size_t i = b * kBank; i < end; ++i)
      if (!used_[i]) {
        used_[i] = true;
        out = i;
        return true;
      }
    return false;
  }

  std::mutex m_;
  std::vector<bool> used_;
};

// The Handle of PSim and PSimQueue: one slot of its owner, given back (Owner::
// release_handle) when the handle dies.
template <class Owner>
class SlotHandle : public HandleBase<SlotHandle<Owner>, Owner> {
 public:
  SlotHandle() = default;
  SlotHandle(SlotHandle&&) noexcept = default;
  SlotHandle& operator=(SlotHandle&&) noexcept = default;
  ~SlotHandle() { this->release(); }
  // The slot (0..n-1) this handle holds.
  std::size_t slot() const noexcept { return slot_; }

 private:
  friend Owner;
  SlotHandle(Owner* owner, std::size_t slot) : HandleBase<SlotHandle, Owner>(owner), slot_(slot) {}
  std::size_t slot_ = 0;
};

}  // namespace weft::sync::detail
