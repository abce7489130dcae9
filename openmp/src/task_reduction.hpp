#pragma once
// Reductions with the task modifier and task_reduction / in_reduction
// clauses (OpenMP 5.2 §5.5.8-5.5.11; internal).
//
// GCC describes the reduction variables of a construct in an array (the
// format is libgomp's, documented in task_reduction.cpp) and combines the
// private copies itself after the construct; the library allocates one copy
// of every variable per member of the team, zeroed, and maps an original
// variable (or a copy) to the copy of the calling thread
// (GOMP_task_reduction_remap). Threads are the team's members, and a task
// uses the copy of the member whose worker runs it (team.hpp explains why
// two tasks running at once never share a member number).

#include <cstdint>

#include "context.hpp"

namespace weft::omp {

struct WorkShare;

// GOMP_taskgroup_reduction_register for a team of `members`: allocates the
// copies of `data` (and chains the reductions visible before, `outer`).
void register_reductions(std::uintptr_t* data, std::uintptr_t* outer, int members);

// A worksharing construct with task reductions: its implicit taskgroup, and
// the copies (allocated by the first member, shared by the others).
void begin_workshare_reductions(TaskContext& self);
void register_workshare_reductions(TaskContext& self, WorkShare& w, std::uintptr_t* data, bool first);

}  // namespace weft::omp
