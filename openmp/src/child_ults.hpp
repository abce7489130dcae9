#pragma once
// The ULTs of a task's children that it spawned itself (internal), so that
// waiting for them can run them: joining a child that no worker has started
// yet runs it at once on the joiner's worker (weft's join; on the joiner's
// stack when there is room). taskwait joins the newest first, which makes a
// recursive task program run depth-first, like weft's own spawn/join,
// instead of starting every waiting sibling on a stack of its own.
//
// Children started by a finishing predecessor (dependences) are not here;
// the parent's Countdown of unfinished children covers every child.

#include <cstddef>
#include <utility>
#include <vector>

#include "weft/runtime/ult.hpp"

namespace weft::omp {

class ChildUlts {
 public:
  std::size_t size() const noexcept { return n_; }

  void add(Ult<void>&& u) {
    if (n_ == kCompactAt) compact();
    if (n_ < kInline) inline_[n_] = std::move(u);
    else more_.push_back(std::move(u));
    ++n_;
  }

  // Joins the handles from index `first` on, newest first, and drops them.
  // (The caller restores its OpenMP context afterwards: a join may run
  // other ULTs.)
  void join_from(std::size_t first) {
    while (n_ > first) {
      --n_;
      if (n_ < kInline) {
        inline_[n_].join();
      } else {
        Ult<void> u = std::move(more_.back());
        more_.pop_back();
        u.join();
      }
    }
  }

 private:
  static constexpr std::size_t kInline = 4, kCompactAt = 256;

  Ult<void>& at(std::size_t i) { return i < kInline ? inline_[i] : more_[i - kInline]; }

  // A task creating many children without waiting: let the finished ones go.
  void compact() {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      Ult<void>& u = at(i);
      if (u.done()) {
        u.detach();
        continue;
      }
      if (kept != i) at(kept) = std::move(u);
      ++kept;
    }
    if (kept < kInline) more_.clear();
    else more_.resize(kept - kInline);
    n_ = kept;
  }

  Ult<void> inline_[kInline];
  std::vector<Ult<void>> more_;
  std::size_t n_ = 0;
};

}  // namespace weft::omp
