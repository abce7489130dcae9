// GOMP_taskloop, GOMP_taskloop_ull: a loop cut into tasks (OpenMP 5.2
// §12.6). The iterations are split as libgomp splits them (so a program
// sees the same chunks): grainsize(g) makes n/g tasks of g or g+1
// iterations (strict: g each, the last one the remainder), num_tasks(t)
// makes min(t, n) tasks of nearly equal sizes (t = 0: one per member), the
// larger ones first. Each task gets its own copy of the data block with its
// bounds in the first two values; the tasks run in a taskgroup unless
// nogroup, which holds the reductions of a reduction clause.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "fatal.hpp"
#include "task_reduction.hpp"
#include "tasks.hpp"
#include "team.hpp"

namespace weft::omp {
namespace {

constexpr unsigned kFinal = 1u << 1, kUp = 1u << 8, kGrainsize = 1u << 9, kIf = 1u << 10, kNogroup = 1u << 11,
                   kReduction = 1u << 12, kStrict = 1u << 14;

// The first `big_count` tasks have `big` iterations, the others `small`.
struct Split {
  std::uint64_t tasks = 0, big = 0, big_count = 0, small = 0;
};

Split even_split(std::uint64_t n, std::uint64_t tasks) {
  return {tasks, n / tasks + 1, n % tasks, n / tasks};
}

Split split(std::uint64_t n, unsigned flags, unsigned long arg, int members) {
  if (flags & kGrainsize) {
    const std::uint64_t g = arg > 0 ? arg : 1;
    const std::uint64_t tasks = n / g;
    if (flags & kStrict) {
      if (tasks == 0) return {1, n, 1, 0};
      return n % g ? Split{tasks + 1, g, tasks, n % g} : Split{tasks, g, tasks, 0};
    }
    if (tasks <= 1) return {1, n, 1, 0};
    if (tasks >= g) return {tasks, g + 1, n - tasks * g, g};
    return even_split(n, tasks);
  }
  std::uint64_t tasks = arg > 0 ? arg : static_cast<std::uint64_t>(members);
  if (tasks >= n) return {n, 1, n, 0};
  return even_split(n, tasks);
}

// The reductions pointer in the data block, after the two bounds.
template <class T>
std::uintptr_t*& reductions_in(void* data) {
  return *reinterpret_cast<std::uintptr_t**>(static_cast<unsigned char*>(data) + 2 * sizeof(T));
}

template <class T>
void taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
              long arg_align, unsigned flags, unsigned long num_tasks, std::uint64_t n, T start, T step) {
  TaskContext& parent = current();
  if (n == 0) {
    if ((flags & (kNogroup | kReduction)) == kReduction) {
      reductions_in<T>(data)[2] = 0;  // tells GCC's code no reductions were registered (libgomp's contract)
    }
    return;
  }
  const Split s = split(n, flags, num_tasks, parent.team->nthreads);
  if (!(flags & kNogroup)) {
    begin_taskgroup(parent);
    if (flags & kReduction) {
      std::uintptr_t* reductions = reductions_in<T>(data);
      register_reductions(reductions, parent.taskgroup->reductions, parent.team->nthreads);
      parent.taskgroup->reductions = reductions;
    }
  }
  const bool final_task = parent.final_task || (flags & kFinal);
  const bool inline_all = runs_undeferred(parent, (flags & kIf) != 0, static_cast<std::int64_t>(s.tasks));
  std::uint64_t first = 0;
  for (std::uint64_t i = 0; i < s.tasks; ++i) {
    const std::uint64_t size = i < s.big_count ? s.big : s.small;
    const auto u_start = static_cast<std::uint64_t>(start), u_step = static_cast<std::uint64_t>(step);
    const T lo = static_cast<T>(u_start + first * u_step);
    const T hi = static_cast<T>(u_start + (first + size) * u_step);
    first += size;
    if (inline_all) {
      std::unique_ptr<unsigned char[]> copy;
      void* arg = data;
      if (cpyfn) {
        const std::size_t align = arg_align > 0 ? static_cast<std::size_t>(arg_align) : 1;
        copy.reset(new unsigned char[static_cast<std::size_t>(arg_size) + align]);
        auto p = reinterpret_cast<std::uintptr_t>(copy.get());
        arg = reinterpret_cast<void*>((p + align - 1) & ~(align - 1));
        cpyfn(arg, data);
      }
      static_cast<T*>(arg)[0] = lo;
      static_cast<T*>(arg)[1] = hi;
      run_task_inline(parent, fn, arg, final_task);
      continue;
    }
    DeferredTask* d = new_deferred_task(parent, fn, data, cpyfn, arg_size, arg_align, final_task, nullptr);
    static_cast<T*>(task_data(d))[0] = lo;
    static_cast<T*>(task_data(d))[1] = hi;
    start_deferred_task(parent, d, {});
  }
  if (!(flags & kNogroup)) end_taskgroup(parent);
}

}  // namespace
}  // namespace weft::omp

using namespace weft::omp;

extern "C" {

void GOMP_taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
                   unsigned flags, unsigned long num_tasks, int /*priority*/, long start, long end, long step) {
  const IterSpace space = long_space(start, end, step);
  taskloop<long>(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, space.count, start, step);
}

void GOMP_taskloop_ull(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
                       unsigned flags, unsigned long num_tasks, int /*priority*/, unsigned long long start,
                       unsigned long long end, unsigned long long step) {
  const IterSpace space = ull_space((flags & kUp) != 0, start, end, step);
  taskloop<unsigned long long>(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks,
                               space.count, start, step);
}

}  // extern "C"
