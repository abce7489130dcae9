// The Fortran bindings of the OpenMP API: omp_*_ and omp_*_8_, the names
// gfortran's omp_lib module calls, with libgomp's calling convention (GCC
// 12's libgomp/fortran.c): every argument by reference, logicals as int32_t,
// the _8_ variants taking 64-bit integers (clamped to int), character
// arguments as (pointer, hidden length) with the lengths last, blank-padded
// on output. A lock variable (omp_lock_kind 4) is the C lock itself; a
// nestable one (omp_nest_lock_kind 8, smaller than the 16-byte C lock) holds
// a pointer to a C lock that init allocates and destroy frees. Each binding
// calls the C routine of the same name, so Fortran and C programs share one
// behaviour.
#include <omp.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int to_int(std::int64_t v) { return v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : static_cast<int>(v); }

// A Fortran character argument as a C string.
std::string from_fortran(const char* s, std::size_t len) { return std::string(s, len); }

// Copies `s` into a Fortran character buffer of `len`, blank-padded (cut
// when longer); returns the full length, as the C routines do.
std::int32_t to_fortran(const std::string& s, char* buffer, std::size_t len) {
  const std::size_t n = s.size() < len ? s.size() : len;
  if (n > 0) std::memcpy(buffer, s.data(), n);
  if (len > n) std::memset(buffer + n, ' ', len - n);
  return static_cast<std::int32_t>(s.size());
}

omp_nest_lock_t*& nest_lock_of(std::intptr_t* variable) { return *reinterpret_cast<omp_nest_lock_t**>(variable); }

// omp_get_schedule for either kind of chunk. The monotonic modifier is
// masked off, as libgomp does: OpenMP 4.5 Fortran code does not expect it.
template <class Int>
void get_schedule(std::int32_t* kind, Int* chunk) {
  constexpr int kMonotonic = static_cast<int>(0x80000000u);
  omp_sched_t k;
  int c;
  omp_get_schedule(&k, &c);
  *kind = static_cast<int>(k) & ~kMonotonic;
  *chunk = c;
}

// Runs a C routine that fills `count` ints, and widens them into `out`.
template <class Fill>
void widened(int count, std::int64_t* out, const Fill& fill) {
  if (count <= 0) return;
  std::vector<int> c(static_cast<std::size_t>(count));
  fill(c.data());
  for (std::size_t i = 0; i < c.size(); ++i) out[i] = c[i];
}

}  // namespace

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // omp_set_nested, omp_get_nested

extern "C" {

// ------------------------------------------------------------------ locks
void omp_init_lock_(omp_lock_t* lock) { omp_init_lock(lock); }
void omp_destroy_lock_(omp_lock_t* lock) { omp_destroy_lock(lock); }
void omp_set_lock_(omp_lock_t* lock) { omp_set_lock(lock); }
void omp_unset_lock_(omp_lock_t* lock) { omp_unset_lock(lock); }
std::int32_t omp_test_lock_(omp_lock_t* lock) { return omp_test_lock(lock); }

void omp_init_nest_lock_(std::intptr_t* lock) {
  nest_lock_of(lock) = static_cast<omp_nest_lock_t*>(std::malloc(sizeof(omp_nest_lock_t)));
  omp_init_nest_lock(nest_lock_of(lock));
}
void omp_destroy_nest_lock_(std::intptr_t* lock) {
  omp_destroy_nest_lock(nest_lock_of(lock));
  std::free(nest_lock_of(lock));
  nest_lock_of(lock) = nullptr;
}
void omp_set_nest_lock_(std::intptr_t* lock) { omp_set_nest_lock(nest_lock_of(lock)); }
void omp_unset_nest_lock_(std::intptr_t* lock) { omp_unset_nest_lock(nest_lock_of(lock)); }
std::int32_t omp_test_nest_lock_(std::intptr_t* lock) { return omp_test_nest_lock(nest_lock_of(lock)); }

// ------------------------------------------------------- threads and teams
void omp_set_num_threads_(const std::int32_t* n) { omp_set_num_threads(*n); }
void omp_set_num_threads_8_(const std::int64_t* n) { omp_set_num_threads(to_int(*n)); }
std::int32_t omp_get_num_threads_() { return omp_get_num_threads(); }
std::int32_t omp_get_max_threads_() { return omp_get_max_threads(); }
std::int32_t omp_get_thread_num_() { return omp_get_thread_num(); }
std::int32_t omp_get_num_procs_() { return omp_get_num_procs(); }
std::int32_t omp_in_parallel_() { return omp_in_parallel(); }
void omp_set_dynamic_(const std::int32_t* on) { omp_set_dynamic(*on); }
void omp_set_dynamic_8_(const std::int64_t* on) { omp_set_dynamic(*on != 0); }
std::int32_t omp_get_dynamic_() { return omp_get_dynamic(); }
void omp_set_nested_(const std::int32_t* on) { omp_set_nested(*on); }
void omp_set_nested_8_(const std::int64_t* on) { omp_set_nested(*on != 0); }
std::int32_t omp_get_nested_() { return omp_get_nested(); }
std::int32_t omp_get_cancellation_() { return omp_get_cancellation(); }
void omp_set_schedule_(const std::int32_t* kind, const std::int32_t* chunk) {
  omp_set_schedule(static_cast<omp_sched_t>(*kind), *chunk);
}
void omp_set_schedule_8_(const std::int32_t* kind, const std::int64_t* chunk) {
  omp_set_schedule(static_cast<omp_sched_t>(*kind), to_int(*chunk));
}
void omp_get_schedule_(std::int32_t* kind, std::int32_t* chunk) { get_schedule(kind, chunk); }
void omp_get_schedule_8_(std::int32_t* kind, std::int64_t* chunk) { get_schedule(kind, chunk); }
std::int32_t omp_get_thread_limit_() { return omp_get_thread_limit(); }
void omp_set_max_active_levels_(const std::int32_t* n) { omp_set_max_active_levels(*n); }
void omp_set_max_active_levels_8_(const std::int64_t* n) { omp_set_max_active_levels(to_int(*n)); }
std::int32_t omp_get_max_active_levels_() { return omp_get_max_active_levels(); }
std::int32_t omp_get_supported_active_levels_() { return omp_get_supported_active_levels(); }
std::int32_t omp_get_level_() { return omp_get_level(); }
std::int32_t omp_get_ancestor_thread_num_(const std::int32_t* level) { return omp_get_ancestor_thread_num(*level); }
std::int32_t omp_get_ancestor_thread_num_8_(const std::int64_t* level) {
  return omp_get_ancestor_thread_num(to_int(*level));
}
std::int32_t omp_get_team_size_(const std::int32_t* level) { return omp_get_team_size(*level); }
std::int32_t omp_get_team_size_8_(const std::int64_t* level) { return omp_get_team_size(to_int(*level)); }
std::int32_t omp_get_active_level_() { return omp_get_active_level(); }
std::int32_t omp_in_final_() { return omp_in_final(); }
std::int32_t omp_get_max_task_priority_() { return omp_get_max_task_priority(); }
void omp_fulfill_event_(std::intptr_t event) { omp_fulfill_event(static_cast<omp_event_handle_t>(event)); }
void omp_set_num_teams_(const std::int32_t* n) { omp_set_num_teams(*n); }
void omp_set_num_teams_8_(const std::int64_t* n) { omp_set_num_teams(to_int(*n)); }
std::int32_t omp_get_max_teams_() { return omp_get_max_teams(); }
void omp_set_teams_thread_limit_(const std::int32_t* n) { omp_set_teams_thread_limit(*n); }
void omp_set_teams_thread_limit_8_(const std::int64_t* n) { omp_set_teams_thread_limit(to_int(*n)); }
std::int32_t omp_get_teams_thread_limit_() { return omp_get_teams_thread_limit(); }
std::int32_t omp_get_num_teams_() { return omp_get_num_teams(); }
std::int32_t omp_get_team_num_() { return omp_get_team_num(); }

// ---------------------------------------------------------------- timing
double omp_get_wtime_() { return omp_get_wtime(); }
double omp_get_wtick_() { return omp_get_wtick(); }

// ---------------------------------------------------------------- places
std::int32_t omp_get_proc_bind_() { return omp_get_proc_bind(); }
std::int32_t omp_get_num_places_() { return omp_get_num_places(); }
std::int32_t omp_get_place_num_procs_(const std::int32_t* place) { return omp_get_place_num_procs(*place); }
std::int32_t omp_get_place_num_procs_8_(const std::int64_t* place) { return omp_get_place_num_procs(to_int(*place)); }
void omp_get_place_proc_ids_(const std::int32_t* place, std::int32_t* ids) { omp_get_place_proc_ids(*place, ids); }
void omp_get_place_proc_ids_8_(const std::int64_t* place, std::int64_t* ids) {
  const int p = to_int(*place);
  widened(omp_get_place_num_procs(p), ids, [p](int* c) { omp_get_place_proc_ids(p, c); });
}
std::int32_t omp_get_place_num_() { return omp_get_place_num(); }
std::int32_t omp_get_partition_num_places_() { return omp_get_partition_num_places(); }
void omp_get_partition_place_nums_(std::int32_t* nums) { omp_get_partition_place_nums(nums); }
void omp_get_partition_place_nums_8_(std::int64_t* nums) {
  widened(omp_get_partition_num_places(), nums, [](int* c) { omp_get_partition_place_nums(c); });
}
void omp_set_affinity_format_(const char* format, std::size_t len) {
  omp_set_affinity_format(from_fortran(format, len).c_str());
}
std::int32_t omp_get_affinity_format_(char* buffer, std::size_t len) {
  const std::size_t n = omp_get_affinity_format(nullptr, 0);
  std::string s(n, '\0');
  omp_get_affinity_format(s.data(), n + 1);
  return to_fortran(s, buffer, len);
}
void omp_display_affinity_(const char* format, std::size_t len) {
  omp_display_affinity(len > 0 ? from_fortran(format, len).c_str() : nullptr);
}
std::int32_t omp_capture_affinity_(char* buffer, const char* format, std::size_t buffer_len, std::size_t format_len) {
  const std::string f = from_fortran(format, format_len);
  const char* fmt = format_len > 0 ? f.c_str() : nullptr;
  const std::size_t n = omp_capture_affinity(nullptr, 0, fmt);
  std::string s(n, '\0');
  omp_capture_affinity(s.data(), n + 1, fmt);
  return to_fortran(s, buffer, buffer_len);
}
void omp_display_env_(const std::int32_t* verbose) { omp_display_env(*verbose); }
void omp_display_env_8_(const std::int64_t* verbose) { omp_display_env(*verbose != 0); }

// --------------------------------------------------------------- devices
void omp_set_default_device_(const std::int32_t* device) { omp_set_default_device(*device); }
void omp_set_default_device_8_(const std::int64_t* device) { omp_set_default_device(to_int(*device)); }
std::int32_t omp_get_default_device_() { return omp_get_default_device(); }
std::int32_t omp_get_num_devices_() { return omp_get_num_devices(); }
std::int32_t omp_get_device_num_() { return omp_get_device_num(); }
std::int32_t omp_is_initial_device_() { return omp_is_initial_device(); }
std::int32_t omp_get_initial_device_() { return omp_get_initial_device(); }
std::int32_t omp_pause_resource_(const std::int32_t* kind, const std::int32_t* device) {
  return omp_pause_resource(static_cast<omp_pause_resource_t>(*kind), *device);
}
std::int32_t omp_pause_resource_all_(const std::int32_t* kind) {
  return omp_pause_resource_all(static_cast<omp_pause_resource_t>(*kind));
}

// ------------------------------------------------------------ allocators
// The traits array has C's layout (gfortran lays type(omp_alloctrait) out so).
std::intptr_t omp_init_allocator_(const std::intptr_t* memspace, const std::int32_t* ntraits,
                                  const omp_alloctrait_t* traits) {
  return static_cast<std::intptr_t>(
      omp_init_allocator(static_cast<omp_memspace_handle_t>(*memspace), *ntraits, traits));
}
std::intptr_t omp_init_allocator_8_(const std::intptr_t* memspace, const std::int64_t* ntraits,
                                    const omp_alloctrait_t* traits) {
  return static_cast<std::intptr_t>(
      omp_init_allocator(static_cast<omp_memspace_handle_t>(*memspace), to_int(*ntraits), traits));
}
void omp_destroy_allocator_(const std::intptr_t* allocator) {
  omp_destroy_allocator(static_cast<omp_allocator_handle_t>(*allocator));
}
void omp_set_default_allocator_(const std::intptr_t* allocator) {
  omp_set_default_allocator(static_cast<omp_allocator_handle_t>(*allocator));
}
std::intptr_t omp_get_default_allocator_() { return static_cast<std::intptr_t>(omp_get_default_allocator()); }

}  // extern "C"

#pragma GCC diagnostic pop
