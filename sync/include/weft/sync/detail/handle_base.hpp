#pragma once
// What every per-caller Handle of weft/sync shares (combining.hpp: a Handle
// is move-only, belongs to one object and must not outlive it): the pointer
// to its object, which a move takes along (the source becomes empty), the
// live-handle count of the object's combining bound, and giving the handle
// back to its object exactly once, when it is destroyed or assigned over.
//
// Derived is the algorithm's Handle; it keeps the algorithm's own per-caller
// fields (nodes, a slot, a toggle) and declares
//   Handle(Handle&&) noexcept = default;
//   Handle& operator=(Handle&&) noexcept = default;
//   ~Handle() { this->release(); }
// (release() runs from Derived's destructor, while those fields are alive;
// the defaulted assignment releases the old handle before copying them).
// Giving back calls Owner::release_handle(Derived&), which takes back what
// the fields hold; Owner befriends HandleBase<Derived, Owner> when that
// member is private.

#include <utility>

#include "weft/sync/combining.hpp"

namespace weft::sync::detail {

template <class Derived, class Owner>
class HandleBase {
 public:
  HandleBase(const HandleBase&) = delete;
  HandleBase& operator=(const HandleBase&) = delete;

 protected:
  HandleBase() = default;
  // A handle of `owner`; with a `bound`, it counts as a live handle there
  // until it is given back.
  explicit HandleBase(Owner* owner, CombineBound* bound = nullptr) noexcept : owner_(owner), bound_(bound) {
    if (bound_) bound_->handle_created();
  }
  HandleBase(HandleBase&& o) noexcept : owner_(std::exchange(o.owner_, nullptr)), bound_(o.bound_) {}
  HandleBase& operator=(HandleBase&& o) noexcept {
    if (this != &o) {
      release();
      owner_ = std::exchange(o.owner_, nullptr);
      bound_ = o.bound_;
    }
    return *this;
  }
  ~HandleBase() = default;

  // Gives the handle back to its object; nothing for an empty handle.
  void release() noexcept {
    if (owner_) {
      owner_->release_handle(static_cast<Derived&>(*this));
      if (bound_) bound_->handle_destroyed();
      owner_ = nullptr;
    }
  }

 private:
  Owner* owner_ = nullptr;
  CombineBound* bound_ = nullptr;
};

}  // namespace weft::sync::detail
