// Device constructs on a host without offload devices (OpenMP 5.2 §13): the
// target constructs' host fallback, the device queries and the device memory
// routines.
//
// No device is available (omp_get_num_devices() is 0; the host is the
// initial device, number 0), so, as with libgomp when no offload plugin is
// installed, every target region runs on the host:
//  * target (GOMP_target_ext): on the encountering thread, as the implicit
//    task of a new initial thread (begin_initial_team: level 0, a team of
//    one, the initial ICVs; thread-limit-var from the construct's
//    thread_limit). Mapped data is the host's own; firstprivate data
//    (GOMP_MAP_FIRSTPRIVATE) is copied first, so the region changes copies,
//    as libgomp's fallback does.
//  * teams inside it (GOMP_teams4, which GCC's code calls once per team):
//    the teams run one after another on that thread, as in libgomp's
//    fallback (host teams outside target regions run at once: teams.cpp).
//  * target data, enter/exit data, update: nothing to move.
//  * depend clauses: the construct first waits for the earlier sibling
//    tasks they name, then runs at once (what nowait allows).
// OMP_TARGET_OFFLOAD=MANDATORY makes every device construct stop the
// program instead, naming it, as OpenMP requires when no device exists.
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "fatal.hpp"
#include "icv.hpp"
#include "team.hpp"

extern "C" void GOMP_taskwait_depend(void** depend);

namespace weft::omp {
namespace {

// gcc/include/gomp-constants.h
inline constexpr unsigned short kMapFirstprivate = 12, kMapAttach = 80;
inline constexpr std::uintptr_t kArgDeviceMask = (1 << 7) - 1, kArgSubsequentParam = 1 << 7,
                                kArgIdMask = ((1 << 8) - 1) << 8, kArgThreadLimit = 2 << 8;
inline constexpr int kArgValueShift = 16;
inline constexpr int kEinval = 22;  // what libgomp returns for a device that is not there

// A device construct may run: it stops the program under
// OMP_TARGET_OFFLOAD=MANDATORY (no device can take it).
void check_offload(const char* entry) {
  if (settings().offload_mandatory)
    fatal(entry, "OMP_TARGET_OFFLOAD is MANDATORY but no offload device is available (only the host)");
}

// The construct's depend clause: wait for the earlier siblings it names.
void wait_for_depend(void** depend) {
  if (depend) GOMP_taskwait_depend(depend);
}

// The THREAD_LIMIT target argument (GCC's `args`), 0 when absent.
int thread_limit_of(void** args) {
  if (!args) return 0;
  while (*args) {
    const auto id = reinterpret_cast<std::uintptr_t>(*args++);
    std::uintptr_t value = 0;
    if (id & kArgSubsequentParam) value = reinterpret_cast<std::uintptr_t>(*args++);
    else value = id >> kArgValueShift;
    if ((id & kArgDeviceMask) != 0 || (id & kArgIdMask) != kArgThreadLimit) continue;
    return static_cast<int>(std::min<std::uintptr_t>(value, INT_MAX));
  }
  return 0;
}

// Copies the firstprivate data into one block that lives as long as the
// region, and points hostaddrs at the copies (libgomp's
// copy_firstprivate_data, attach entries included).
std::unique_ptr<unsigned char[]> copy_firstprivate(std::size_t n, void** hostaddrs, const std::size_t* sizes,
                                                   const unsigned short* kinds) {
  std::size_t bytes = 0, align_max = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if ((kinds[i] & 0xff) != kMapFirstprivate || !hostaddrs[i]) continue;
    const std::size_t align = std::size_t{1} << (kinds[i] >> 8);
    bytes = (bytes + align - 1) & ~(align - 1);
    bytes += sizes[i];
    align_max = std::max(align_max, align);
  }
  if (bytes == 0) return nullptr;
  std::unique_ptr<unsigned char[]> block(new unsigned char[bytes + align_max]);
  const auto start = (reinterpret_cast<std::uintptr_t>(block.get()) + align_max - 1) & ~(align_max - 1);
  auto* base = reinterpret_cast<unsigned char*>(start);
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if ((kinds[i] & 0xff) != kMapFirstprivate || !hostaddrs[i]) continue;
    const std::size_t align = std::size_t{1} << (kinds[i] >> 8);
    at = (at + align - 1) & ~(align - 1);
    std::memcpy(base + at, hostaddrs[i], sizes[i]);
    hostaddrs[i] = base + at;
    at += sizes[i];
    if (i + 1 < n && (kinds[i + 1] & 0xff) == kMapAttach) {
      *(*static_cast<std::uintptr_t**>(hostaddrs[i + 1]) + sizes[i + 1]) = reinterpret_cast<std::uintptr_t>(hostaddrs[i]);
      ++i;
    }
  }
  return block;
}

// Runs a target region's code on the host, as a new initial thread.
void run_on_host(void (*fn)(void*), void** hostaddrs, int thread_limit) {
  TaskContext& enc = current();
  Icv icv = settings().initial;
  if (thread_limit > 0) icv.thread_limit = thread_limit;
  Team* t = begin_initial_team(enc, icv, 0, 1);
  fn(hostaddrs);
  end_region(*t);
}

// omp_target_memcpy_rect's copy of one dimension and those below it.
void copy_rect(char* dst, const char* src, std::size_t element, int dims, const std::size_t* volume,
               const std::size_t* dst_offsets, const std::size_t* src_offsets, const std::size_t* dst_dims,
               const std::size_t* src_dims) {
  std::size_t dst_stride = element, src_stride = element;
  for (int d = 1; d < dims; ++d) {
    dst_stride *= dst_dims[d];
    src_stride *= src_dims[d];
  }
  dst += dst_offsets[0] * dst_stride;
  src += src_offsets[0] * src_stride;
  if (dims == 1) {
    std::memmove(dst, src, volume[0] * element);
    return;
  }
  for (std::size_t i = 0; i < volume[0]; ++i)
    copy_rect(dst + i * dst_stride, src + i * src_stride, element, dims - 1, volume + 1, dst_offsets + 1,
              src_offsets + 1, dst_dims + 1, src_dims + 1);
}

}  // namespace
}  // namespace weft::omp

using namespace weft::omp;

extern "C" {

void GOMP_target_ext(int, void (*fn)(void*), std::size_t mapnum, void** hostaddrs, std::size_t* sizes,
                     unsigned short* kinds, unsigned /*flags*/, void** depend, void** args) {
  check_offload("GOMP_target_ext");
  wait_for_depend(depend);
  const auto copies = copy_firstprivate(mapnum, hostaddrs, sizes, kinds);
  run_on_host(fn, hostaddrs, thread_limit_of(args));
}

// GCC before 6.
void GOMP_target(int, void (*fn)(void*), const void*, std::size_t, void** hostaddrs, std::size_t*, unsigned char*) {
  check_offload("GOMP_target");
  run_on_host(fn, hostaddrs, 0);
}

void GOMP_target_data_ext(int, std::size_t, void**, std::size_t*, unsigned short*) {
  check_offload("GOMP_target_data_ext");
}
void GOMP_target_data(int, const void*, std::size_t, void**, std::size_t*, unsigned char*) {
  check_offload("GOMP_target_data");
}
void GOMP_target_end_data() {}
void GOMP_target_update_ext(int, std::size_t, void**, std::size_t*, unsigned short*, unsigned, void** depend) {
  check_offload("GOMP_target_update_ext");
  wait_for_depend(depend);
}
void GOMP_target_update(int, const void*, std::size_t, void**, std::size_t*, unsigned char*) {
  check_offload("GOMP_target_update");
}
void GOMP_target_enter_exit_data(int, std::size_t, void**, std::size_t*, unsigned short*, unsigned, void** depend) {
  check_offload("GOMP_target_enter_exit_data");
  wait_for_depend(depend);
}

// `teams` in a target region: the first call starts team 0, each later one
// the next team, until num_teams_low teams ran (libgomp's fallback).
bool GOMP_teams4(unsigned num_teams_low, unsigned /*num_teams_high*/, unsigned thread_limit, bool first) {
  TaskContext& c = current();
  Team& t = *c.team;
  if (first) {
    if (thread_limit) c.icv.thread_limit = static_cast<int>(std::min<unsigned>(thread_limit, INT_MAX));
    t.num_teams = num_teams_low ? static_cast<int>(std::min<unsigned>(num_teams_low, INT_MAX)) : 1;
    t.team_num = 0;
    return true;
  }
  if (t.team_num + 1 >= t.num_teams) return false;
  ++t.team_num;
  return true;
}

// GCC before 9: one team, with the thread limit.
void GOMP_teams(unsigned /*num_teams*/, unsigned thread_limit) {
  if (thread_limit) current().icv.thread_limit = static_cast<int>(std::min<unsigned>(thread_limit, INT_MAX));
}

void omp_set_default_device(int device) noexcept { current().icv.default_device = device; }
int omp_get_default_device() noexcept { return current().icv.default_device; }
int omp_get_num_devices() noexcept { return 0; }
int omp_get_device_num() noexcept { return 0; }
int omp_get_initial_device() noexcept { return 0; }
int omp_is_initial_device() noexcept { return 1; }
int omp_pause_resource(omp_pause_resource_t, int device) noexcept { return device == 0 ? 0 : -1; }
int omp_pause_resource_all(omp_pause_resource_t) noexcept { return 0; }

// Device memory routines: the initial device (0) is the only device.
void* omp_target_alloc(std::size_t size, int device) noexcept { return device == 0 ? std::malloc(size) : nullptr; }
void omp_target_free(void* p, int device) noexcept {
  if (device == 0) std::free(p);
}
int omp_target_is_present(const void*, int device) noexcept { return device == 0 ? 1 : 0; }
int omp_target_memcpy(void* dst, const void* src, std::size_t length, std::size_t dst_offset, std::size_t src_offset,
                      int dst_device, int src_device) noexcept {
  if (dst_device != 0 || src_device != 0) return kEinval;
  std::memmove(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset, length);
  return 0;
}
// OpenMP 5.2 §18.8.6; called with both pointers null, it returns the most
// dimensions it copies (any number).
int omp_target_memcpy_rect(void* dst, const void* src, std::size_t element_size, int num_dims,
                           const std::size_t* volume, const std::size_t* dst_offsets, const std::size_t* src_offsets,
                           const std::size_t* dst_dimensions, const std::size_t* src_dimensions, int dst_device,
                           int src_device) noexcept {
  if (!dst && !src) return INT_MAX;
  if (!dst || !src || dst_device != 0 || src_device != 0 || num_dims < 1 || element_size == 0) return kEinval;
  copy_rect(static_cast<char*>(dst), static_cast<const char*>(src), element_size, num_dims, volume, dst_offsets,
            src_offsets, dst_dimensions, src_dimensions);
  return 0;
}
// An offload image's registration, which a binary built with offloading
// calls from its constructors: nothing to register without devices.
void GOMP_offload_register(const void*, int, const void*) {}
void GOMP_offload_unregister(const void*, int, const void*) {}
void GOMP_offload_register_ver(unsigned, const void*, int, const void*) {}
void GOMP_offload_unregister_ver(unsigned, const void*, int, const void*) {}

// Associating host memory with device memory needs a device (libgomp
// returns EINVAL for the host too).
int omp_target_associate_ptr(const void*, const void*, std::size_t, std::size_t, int) noexcept { return kEinval; }
int omp_target_disassociate_ptr(const void*, int) noexcept { return kEinval; }

}  // extern "C"
