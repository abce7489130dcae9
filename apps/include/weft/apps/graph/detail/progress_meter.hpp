#pragma once
// Reports a step's progress through a ProgressFn (internal): workers add the
// units they finished; whoever moves the total past the next percent calls
// the function, never two at once. Free when the function is empty.

#include <atomic>
#include <cstdint>
#include <string_view>

#include "weft/apps/graph/progress.hpp"

namespace weft::graph::detail {

class ProgressMeter {
 public:
  ProgressMeter(const ProgressFn& fn, std::string_view step, std::uint64_t total_units)
      : fn_(fn ? &fn : nullptr), step_(step), total_(total_units == 0 ? 1 : total_units) {
    if (fn_) (*fn_)(step_, 0.0);
  }
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  bool active() const noexcept { return fn_ != nullptr; }

  void advance(std::uint64_t units = 1) {
    if (!fn_) return;
    const std::uint64_t done = done_.fetch_add(units, std::memory_order_relaxed) + units;
    const int percent = static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total_));
    int shown = shown_.load(std::memory_order_relaxed);
    if (percent <= shown || percent >= 100) return;
    if (busy_.test_and_set(std::memory_order_acquire)) return;
    if (shown_.compare_exchange_strong(shown, percent, std::memory_order_relaxed))
      (*fn_)(step_, static_cast<double>(percent) / 100.0);
    busy_.clear(std::memory_order_release);
  }
  // Reports 100 % (call once, from one thread, when the step is done).
  void finish() {
    if (fn_) (*fn_)(step_, 1.0);
  }

 private:
  const ProgressFn* fn_;
  std::string_view step_;
  std::uint64_t total_;
  std::atomic<std::uint64_t> done_{0};
  std::atomic<int> shown_{0};
  std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
};

}  // namespace weft::graph::detail
