#include "stack_allocator.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <utility>

#include "weft/sched/numa_memory.hpp"

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102  // Linux 6.13 (include/uapi/asm-generic/mman-common.h)
#endif

namespace weft::detail {

namespace {

using Clock = std::chrono::steady_clock;

// Stacks per slab: 64, fewer for very large stacks (a slab stays <= 64 MiB of
// address space unless one stack alone is bigger).
std::size_t slots_per_slab(std::size_t slot_bytes) {
  constexpr std::size_t kMaxSlab = 64u << 20;
  return std::clamp<std::size_t>(kMaxSlab / slot_bytes, 1, 64);
}

// How long a batch must sit unused in the depot before its memory is given
// back: at least one full trim period, at most two.
constexpr auto kTrimPeriod = std::chrono::seconds(1);
// Stacks whose memory one trim_idle_depots() call gives back, at most (each
// is an madvise; an idle worker must stay quick to answer new work).
constexpr std::size_t kTrimBudget = 4 * StackCache::kBatch;

// --- guard selection (process-wide) ---
std::atomic<int> forced_guard{-1};
std::atomic<int> markers_supported{-1};  // -1 unknown, 0 no, 1 yes
std::atomic<long> page_guards{0};        // mprotect'ed guard pages in use

long page_guard_budget() {
  static const long budget = [] {
    long max_maps = 65530;
    if (std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
      if (std::fscanf(f, "%ld", &max_maps) != 1) max_maps = 65530;
      std::fclose(f);
    }
    return max_maps / 4;  // each guard page splits a mapping: 2 maps per guarded stack
  }();
  return budget;
}

}  // namespace

std::size_t page_bytes() {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

StackGuard install_guard(char* lo) {
  char* guard = lo - page_bytes();
  const int forced = forced_guard.load(std::memory_order_relaxed);
  if ((forced < 0 || forced == static_cast<int>(StackGuard::marker)) &&
      markers_supported.load(std::memory_order_relaxed) != 0) {
    if (madvise(guard, page_bytes(), MADV_GUARD_INSTALL) == 0) {
      markers_supported.store(1, std::memory_order_relaxed);
      return StackGuard::marker;
    }
    if (errno == EINVAL) markers_supported.store(0, std::memory_order_relaxed);
  }
  if ((forced < 0 || forced == static_cast<int>(StackGuard::page)) &&
      page_guards.fetch_add(1, std::memory_order_relaxed) < page_guard_budget()) {
    if (mprotect(guard, page_bytes(), PROT_NONE) == 0) return StackGuard::page;
  }
  if (forced < 0 || forced == static_cast<int>(StackGuard::page))
    page_guards.fetch_sub(1, std::memory_order_relaxed);
  *reinterpret_cast<std::uint64_t*>(lo) = stack_canary_value(lo);
  return StackGuard::canary;
}

std::uint64_t stack_canary_value(const char* lo) noexcept {
  return 0x77656674'5354414bull ^ reinterpret_cast<std::uintptr_t>(lo);  // "weftSTAK"
}

// The process-wide pool of free stacks of one size on one node: batches that
// workers spilled (or left behind when their runtime stopped), and the slabs
// all stacks of this size come from. Never destroyed: stacks of a runtime
// that is gone are the next runtime's warm stacks.
class StackDepot {
 public:
  StackDepot(std::size_t usable, int os_node) : usable_(usable), os_node_(os_node) {}

  static StackDepot& of(std::size_t usable, int os_node) {
    std::lock_guard lock(registry_mutex());
    auto& slot = registry()[{usable, os_node}];
    if (!slot) slot = new StackDepot(usable, os_node);  // lives as long as the process
    return *slot;
  }

  // Appends one batch to `into`: warm ones first, then trimmed or never
  // used ones, else from a new slab.
  void take(std::vector<StackCache::Entry>& into) {
    std::lock_guard lock(mutex_);  // held while mapping: the others then take from what it maps
    if (warm_.empty() && trimmed_.empty()) map_slabs();
    std::vector<Batch>& from = !warm_.empty() ? warm_ : trimmed_;
    into.insert(into.end(), from.back().stacks.begin(), from.back().stacks.end());
    from.pop_back();
  }

  // The caches that take from this depot (a worker's, on this node).
  void attach() {
    std::lock_guard lock(mutex_);
    ++caches_;
  }
  void detach() {
    std::lock_guard lock(mutex_);
    --caches_;
  }

  void give(std::vector<StackCache::Entry> stacks) {
    std::lock_guard lock(mutex_);
    warm_.push_back({std::move(stacks), epoch_});
    any_warm().store(true, std::memory_order_relaxed);
  }

  // Maps new slabs (under mutex_), one batch of fresh stacks each. The
  // first time, one for every attached cache: a runtime's workers all want
  // their first stacks at once, and one mapping (an mmap and an mbind) for
  // all of them is what their 16 mappings cost one of them, which matters
  // because mappings take turns on the process's mmap lock
  // (bench/results/16core-2026-11-27b.md). Later, one.
  void map_slabs() {
    const std::size_t slot = page_bytes() + usable_;
    const std::size_t n = slots_per_slab(slot);
    const std::size_t slabs = slabs_mapped_ == 0 ? std::max<std::size_t>(caches_, 1) : 1;
    void* base = mmap(nullptr, slabs * n * slot, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    sched::prefer_node(base, slabs * n * slot, os_node_);
    slabs_mapped_ += slabs;
    for (std::size_t k = slabs; k-- > 0;) {
      char* slab = static_cast<char*>(base) + k * n * slot;
      Batch b{{}, epoch_};
      b.stacks.reserve(n);
      // Lowest slot last, so that the LIFO cache hands out stacks in address order.
      for (std::size_t i = n; i-- > 0;)
        b.stacks.push_back({slab + i * slot + page_bytes(), StackCache::kFresh, StackGuard::marker});
      trimmed_.push_back(std::move(b));  // not resident: taken after any warm batch
    }
  }

  // One trim step over every depot; see StackCache::trim_idle_depots.
  // everything: all warm batches, however recent, and no budget.
  static bool trim_all(Clock::time_point now, std::size_t& budget, bool everything,
                       const StackCache::WorkWaiting& work_waiting) {
    std::vector<StackDepot*> depots;
    {
      std::lock_guard lock(registry_mutex());
      for (auto& [key, depot] : registry()) depots.push_back(depot);
    }
    bool more = false;
    for (StackDepot* d : depots) more |= d->trim(now, budget, everything, work_waiting);
    return more;
  }

  static std::atomic<bool>& any_warm() {
    static std::atomic<bool> flag{false};
    return flag;
  }

 private:
  struct Batch {
    std::vector<StackCache::Entry> stacks;
    std::uint64_t epoch;  // depot epoch when it arrived
  };

  // Gives back the memory of warm batches that arrived two epochs ago or
  // earlier (so they sat unused for at least one trim period); an epoch ends
  // at the first call a trim period after it began. Stops before the next
  // madvise once `work_waiting` says so, and puts what it did not trim back
  // (oldest first). True if warm batches remain.
  bool trim(Clock::time_point now, std::size_t& budget, bool everything,
            const StackCache::WorkWaiting& work_waiting) {
    std::vector<Batch> old;
    {
      std::lock_guard lock(mutex_);
      if (now - epoch_start_ >= kTrimPeriod) {
        ++epoch_;
        epoch_start_ = now;
      }
      auto it = warm_.begin();  // oldest first
      while (it != warm_.end() && (everything || (it->epoch + 2 <= epoch_ && budget >= it->stacks.size()))) {
        if (!everything) budget -= it->stacks.size();
        ++it;
      }
      old.assign(std::make_move_iterator(warm_.begin()), std::make_move_iterator(it));
      warm_.erase(warm_.begin(), it);
    }
    std::vector<Batch> done, left;  // trimmed; not trimmed because work arrived
    for (Batch& b : old) {
      if (!left.empty()) {
        left.push_back(std::move(b));
        continue;
      }
      const std::size_t trimmed = trim_batch(b, work_waiting);
      if (trimmed < b.stacks.size()) {  // stopped inside b: split it
        left.push_back({{b.stacks.begin() + static_cast<long>(trimmed), b.stacks.end()}, b.epoch});
        b.stacks.resize(trimmed);
      }
      if (!b.stacks.empty()) done.push_back(std::move(b));
    }
    std::lock_guard lock(mutex_);
    for (Batch& b : done) trimmed_.push_back(std::move(b));
    warm_.insert(warm_.begin(), std::make_move_iterator(left.begin()), std::make_move_iterator(left.end()));
    return !warm_.empty();
  }

  // Gives back the memory of b's stacks in order until `work_waiting` says
  // so; returns how many it went through (all of them unless stopped).
  std::size_t trim_batch(Batch& b, const StackCache::WorkWaiting& work_waiting) {
    for (std::size_t k = 0; k < b.stacks.size(); ++k) {
      StackCache::Entry& e = b.stacks[k];
      if (e.state == StackCache::kFresh) continue;  // never touched
      if (work_waiting && work_waiting()) return k;
      madvise(e.lo, usable_, MADV_DONTNEED);
      e.state = e.guard == StackGuard::canary ? StackCache::kTrimmed : StackCache::kReady;
    }
    return b.stacks.size();
  }

  static std::mutex& registry_mutex() {
    static auto* m = new std::mutex;
    return *m;
  }
  static std::map<std::pair<std::size_t, int>, StackDepot*>& registry() {
    static auto* r = new std::map<std::pair<std::size_t, int>, StackDepot*>;
    return *r;
  }

  const std::size_t usable_;
  const int os_node_;
  std::mutex mutex_;
  std::vector<Batch> warm_;     // memory likely resident; newest last
  std::vector<Batch> trimmed_;  // memory given back
  std::uint64_t epoch_ = 0;
  Clock::time_point epoch_start_ = Clock::now();
  std::size_t caches_ = 0;        // attached caches
  std::size_t slabs_mapped_ = 0;
};

StackCache::StackCache(std::size_t usable_bytes, std::size_t keep, int os_node)
    : usable_((usable_bytes + page_bytes() - 1) / page_bytes() * page_bytes()),
      keep_(keep),
      os_node_(os_node),
      depot_(&StackDepot::of(usable_, os_node)) {
  free_.reserve(keep_ + kBatch + 1);
  depot_->attach();
}

StackCache::~StackCache() {
  depot_->detach();
  for (std::size_t i = 0; i < free_.size(); i += kBatch) {
    const std::size_t end = std::min(free_.size(), i + kBatch);
    depot_->give({free_.begin() + static_cast<long>(i), free_.begin() + static_cast<long>(end)});
  }
}

Stack StackCache::prepare(Entry e) {
  if (e.state == kFresh) return {e.lo, install_guard(e.lo)};
  // Trimmed canary stack: its canary page was given back with the rest.
  *reinterpret_cast<std::uint64_t*>(e.lo) = stack_canary_value(e.lo);
  return {e.lo, e.guard};
}

Stack StackCache::acquire_slow() {
  depot_->take(free_);
  return acquire();
}

void StackCache::spill() {
  // The oldest (coldest) batch goes; the warmest stay here.
  depot_->give({free_.begin(), free_.begin() + kBatch});
  free_.erase(free_.begin(), free_.begin() + kBatch);
}

bool StackCache::trim_idle_depots(const WorkWaiting& work_waiting) {
  if (!StackDepot::any_warm().load(std::memory_order_relaxed)) return false;
  std::size_t budget = kTrimBudget;
  const bool more = StackDepot::trim_all(Clock::now(), budget, false, work_waiting);
  if (!more) StackDepot::any_warm().store(false, std::memory_order_relaxed);
  return more;
}

void StackCache::trim_all_depots(const WorkWaiting& work_waiting) {
  std::size_t unlimited = 0;
  StackDepot::trim_all(Clock::now(), unlimited, true, work_waiting);
}

void StackCache::force_guard_for_testing(int guard) { forced_guard.store(guard, std::memory_order_relaxed); }

}  // namespace weft::detail
