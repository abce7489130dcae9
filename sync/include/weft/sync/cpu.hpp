#pragma once
// Processor-level helpers the sync layer uses by their short names: the
// spin-loop hint, the write prefetch and the cache-line size, defined once in
// the lowest layer (weft/sched/cpu.hpp).

#include "weft/sched/cpu.hpp"

namespace weft::sync {

using sched::cache_line_size;
using sched::cpu_relax;
using sched::prefetch_for_write;

}  // namespace weft::sync
