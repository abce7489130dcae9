// Task reductions; see task_reduction.hpp.
//
// The array GCC passes (libgomp's layout, one per construct, chained):
//   data[0] number of variables       data[4] next array of the chain (0: last)
//   data[1] bytes of one thread's      data[5] the library's lookup (here: a
//           copies (all variables)             Lookup, set on the first array)
//   data[2] alignment, then the base   data[6] end of the copies
//           of the copies
//   data[3] allocator (-1: malloc)
//   then per variable: [0] its address, [1] offset in a thread's copies,
//   [2] (the library's) the array it belongs to. Entries are sorted by
//   offset. Thread t's copy of variable v is at data[2] + t*data[1] + v[1].
#include "task_reduction.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fatal.hpp"
#include "tasks.hpp"
#include "team.hpp"
#include "workshare.hpp"

namespace weft::omp {
namespace {

// Original address -> entry, over this chain and the ones visible before.
struct Lookup {
  std::vector<std::pair<std::uintptr_t, std::uintptr_t*>> by_address;  // sorted
  std::uintptr_t* find(std::uintptr_t address) const {
    auto it = std::lower_bound(by_address.begin(), by_address.end(), std::make_pair(address, static_cast<std::uintptr_t*>(nullptr)));
    return it != by_address.end() && it->first == address ? it->second : nullptr;
  }
};

std::uintptr_t* next_of(std::uintptr_t* d) { return reinterpret_cast<std::uintptr_t*>(d[4]); }
Lookup* lookup_of(std::uintptr_t* d) { return reinterpret_cast<Lookup*>(d[5]); }

// Builds the lookup of chain `data` (whose last array now links to `outer`).
void build_lookup(std::uintptr_t* data, std::uintptr_t* outer) {
  auto* l = new Lookup;
  if (outer && lookup_of(outer)) l->by_address = lookup_of(outer)->by_address;
  for (std::uintptr_t* d = data; d != outer; d = next_of(d))
    for (std::uintptr_t j = 0; j < d[0]; ++j) {
      std::uintptr_t* entry = d + 7 + 3 * j;
      entry[2] = reinterpret_cast<std::uintptr_t>(d);
      l->by_address.emplace_back(entry[0], entry);
    }
  std::sort(l->by_address.begin(), l->by_address.end());
  data[5] = reinterpret_cast<std::uintptr_t>(l);
}

// Links the chain's end to `outer`; `shared` (a worksharing construct's
// first member's chain) gives the copies instead of allocating them.
void set_up_chain(std::uintptr_t* data, std::uintptr_t* outer, int members, std::uintptr_t* shared) {
  for (std::uintptr_t* d = data;; d = next_of(d)) {
    if (shared) {
      d[2] = shared[2];
      d[6] = shared[6];
      shared = next_of(shared);
    } else {
      const std::size_t bytes = d[1] * static_cast<std::size_t>(members);
      const std::size_t align = std::max<std::size_t>(d[2], alignof(void*));
      void* copies = std::aligned_alloc(align, std::max<std::size_t>((bytes + align - 1) / align * align, align));
      if (!copies) fatal("GOMP_taskgroup_reduction_register", "out of memory for the reductions' private copies");
      std::memset(copies, 0, bytes);
      d[2] = reinterpret_cast<std::uintptr_t>(copies);
      d[6] = d[2] + bytes;
    }
    d[5] = 0;
    if (d[4] == 0) {
      d[4] = reinterpret_cast<std::uintptr_t>(outer);
      break;
    }
  }
  build_lookup(data, outer);
}

}  // namespace

void register_reductions(std::uintptr_t* data, std::uintptr_t* outer, int members) {
  set_up_chain(data, outer, members, nullptr);
}

void begin_workshare_reductions(TaskContext& self) { begin_taskgroup(self, true); }

void register_workshare_reductions(TaskContext& self, WorkShare& w, std::uintptr_t* data, bool first) {
  std::uintptr_t* outer = self.taskgroup->prev ? self.taskgroup->prev->reductions : self.reductions;
  set_up_chain(data, outer, self.team->nthreads, first ? nullptr : w.task_reductions);
  if (first) w.task_reductions = data;
  self.taskgroup->reductions = data;
}

}  // namespace weft::omp

using namespace weft::omp;

extern "C" {

void GOMP_taskgroup_reduction_register(std::uintptr_t* data) {
  TaskContext& c = current();
  if (!c.taskgroup) fatal("GOMP_taskgroup_reduction_register", "no taskgroup was begun by this task");
  register_reductions(data, c.taskgroup->reductions, c.team->nthreads);
  c.taskgroup->reductions = data;
}

void GOMP_taskgroup_reduction_unregister(std::uintptr_t* data) {
  delete lookup_of(data);
  std::uintptr_t* d = data;
  do {
    std::free(reinterpret_cast<void*>(d[2]));
    d = next_of(d);
  } while (d && !d[5]);
}

// ptrs[0..cnt): original variables (or earlier remapped copies) -> the
// calling thread's copies; ptrs[cnt + i] for i < cntorig: the originals.
void GOMP_task_reduction_remap(std::size_t cnt, std::size_t cntorig, void** ptrs) {
  TaskContext& c = current();
  std::uintptr_t* data = visible_reductions(c);
  if (!data) fatal("GOMP_task_reduction_remap", "an in_reduction clause with no enclosing task reduction");
  const auto id = static_cast<std::uintptr_t>(thread_num_of(c));
  const Lookup* lookup = lookup_of(data);
  for (std::size_t i = 0; i < cnt; ++i) {
    const auto p = reinterpret_cast<std::uintptr_t>(ptrs[i]);
    if (std::uintptr_t* entry = lookup ? lookup->find(p) : nullptr) {
      const std::uintptr_t* d = reinterpret_cast<std::uintptr_t*>(entry[2]);
      ptrs[i] = reinterpret_cast<void*>(d[2] + id * d[1] + entry[1]);
      if (i < cntorig) ptrs[cnt + i] = reinterpret_cast<void*>(entry[0]);
      continue;
    }
    // Already a copy (of some thread): the same variable's copy of this one.
    std::uintptr_t* d = data;
    while (d && !(p >= d[2] && p < d[6])) d = next_of(d);
    if (!d) fatal("GOMP_task_reduction_remap", "no task reduction covers the variable at this address");
    const std::uintptr_t offset = (p - d[2]) % d[1];
    ptrs[i] = reinterpret_cast<void*>(d[2] + id * d[1] + offset);
    if (i < cntorig) {
      const std::uintptr_t* end = d + 7 + 3 * d[0];
      const std::uintptr_t* e = d + 7;
      while (e < end && e[1] != offset) e += 3;
      if (e == end) fatal("GOMP_task_reduction_remap", "no task reduction variable at this offset");
      ptrs[cnt + i] = reinterpret_cast<void*>(e[0]);
    }
  }
}

void GOMP_workshare_task_reduction_unregister(bool cancelled) {
  TaskContext& self = implicit_task("GOMP_workshare_task_reduction_unregister");
  std::uintptr_t* data = self.taskgroup ? self.taskgroup->reductions : nullptr;
  end_taskgroup(self);
  if (data) {
    if (self.thread_num == 0) {
      GOMP_taskgroup_reduction_unregister(data);
    } else {
      delete lookup_of(data);
      data[5] = 0;
    }
  }
  if (!cancelled) team_barrier(self);
}

}  // extern "C"
