// Memory allocators (OpenMP 5.2 §6): the predefined ones, and those
// omp_init_allocator makes from a memory space and traits; omp_alloc and its
// relatives, omp_free, omp_realloc, and GOMP_alloc/GOMP_free (the allocate
// clause and directive).
//
// Every block these return has a header just in front of it: the allocator
// that made it, the size asked for, and where the underlying memory begins
// (and how long it is, for memory mapped on its own), so omp_free and
// omp_realloc need not be told the allocator (OpenMP lets a program pass
// omp_null_allocator there), and a pool gets its bytes back. libgomp does
// the same: memory from omp_alloc is not for free().
//
// The traits (§6.2), with what each does here:
//  * alignment: every block aligned to it (a power of two);
//  * pool_size: at most this many bytes (as asked for) out at once; past it,
//    and when memory runs out, the fallback decides:
//  * fallback: default_mem_fb (the block comes from omp_default_mem_alloc,
//    the default), null_fb (a null pointer), abort_fb (the program stops,
//    naming the allocator), allocator_fb (fb_data's allocator tries);
//  * pinned: the block is locked in memory (mlock); if the kernel refuses
//    (RLIMIT_MEMLOCK), the allocation has failed and the fallback decides;
//  * partition: where the pages live, over the memory nodes the thread may
//    use (weft::sched's NUMA functions): environment (the process's policy,
//    from the heap), nearest (the node of the CPU the caller runs on),
//    interleaved (page by page over the nodes), blocked (one contiguous part
//    per node). A partitioned or pinned block is a mapping of its own;
//  * sync_hint, access: accepted; every thread may use every block, and the
//    allocator is thread-safe whatever the hint.
// A trait or memory space this does not know, or a value not allowed for
// its trait, makes omp_init_allocator return omp_null_allocator (§6.6), as
// libgomp does. The memory spaces are the host's memory, but for
// omp_high_bw_mem_space: the host has none (as libgomp without memkind, the
// space gives omp_null_allocator; the predefined omp_high_bw_mem_alloc
// allocates ordinary memory).
#include <omp.h>
#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "context.hpp"
#include "fatal.hpp"
#include "weft/sched/numa_memory.hpp"

namespace weft::omp {
namespace {

enum class Fallback { default_mem, null, abort, allocator };
enum class Partition { environment, nearest, blocked, interleaved };

// An allocator made by omp_init_allocator; its handle is its address.
struct Allocator {
  std::size_t alignment = 1;
  std::size_t pool_size = 0;  // 0: no pool
  std::atomic<std::size_t> pool_used{0};
  Fallback fallback = Fallback::default_mem;
  omp_allocator_handle_t fallback_allocator = omp_null_allocator;
  bool pinned = false;
  Partition partition = Partition::environment;
};

// In front of every block.
struct alignas(alignof(std::max_align_t)) Header {
  void* base;               // where the memory begins (heap or mapping)
  std::size_t mapped;       // the mapping's length; 0: from the heap
  std::size_t size;         // as asked for (a pool counts it)
  Allocator* owner;         // null for the predefined allocators
};

bool predefined(omp_allocator_handle_t a) {
  return static_cast<std::uintptr_t>(a) <= static_cast<std::uintptr_t>(omp_thread_mem_alloc);
}

Allocator* custom(omp_allocator_handle_t a) {
  return predefined(a) ? nullptr : reinterpret_cast<Allocator*>(static_cast<std::uintptr_t>(a));
}

Header* header_of(void* p) { return static_cast<Header*>(p) - 1; }

// Bytes of the underlying memory for `size` bytes aligned to `alignment`.
bool total_bytes(std::size_t size, std::size_t alignment, std::size_t& total) {
  const std::size_t extra = sizeof(Header) + alignment;
  if (size > SIZE_MAX - extra) return false;
  total = size + extra;
  return true;
}

// The block itself: memory, header, alignment. Null when there is none.
// `a` is the allocator made by omp_init_allocator, or null (a predefined one).
void* obtain(std::size_t size, std::size_t alignment, Allocator* a) {
  std::size_t total = 0;
  if (!total_bytes(size, alignment, total)) return nullptr;
  const bool own_mapping = a && (a->pinned || a->partition != Partition::environment);
  void* base = nullptr;
  std::size_t mapped = 0;
  if (own_mapping) {
    try {
      base = sched::allocate_node_memory(total, -1);
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
    mapped = total;
    switch (a->partition) {
      case Partition::nearest: sched::prefer_node(base, total, sched::os_node_of_cpu(sched_getcpu())); break;
      case Partition::interleaved: sched::interleave_over_nodes(base, total); break;
      case Partition::blocked: sched::block_over_nodes(base, total); break;
      case Partition::environment: break;
    }
    if (a->pinned && mlock(base, total) != 0) {
      sched::free_node_memory(base, total);
      return nullptr;
    }
  } else {
    base = std::malloc(total);
    if (!base) return nullptr;
  }
  const auto first = reinterpret_cast<std::uintptr_t>(base) + sizeof(Header);
  auto* p = reinterpret_cast<void*>((first + alignment - 1) & ~(alignment - 1));
  *header_of(p) = Header{base, mapped, size, a};
  return p;
}

// Gives `size` bytes back to a's pool (if it has one).
void return_to_pool(Allocator& a, std::size_t size) {
  if (a.pool_size) a.pool_used.fetch_sub(size, std::memory_order_relaxed);
}

void release(void* p) {
  const Header h = *header_of(p);
  if (h.owner) return_to_pool(*h.owner, h.size);
  if (h.mapped == 0) return std::free(h.base);
  if (h.owner->pinned) munlock(h.base, h.mapped);  // a mapping of its own: a custom allocator's
  sched::free_node_memory(h.base, h.mapped);
}

// Takes `size` bytes from a's pool; false when it would overflow.
bool take_from_pool(Allocator& a, std::size_t size) {
  if (!a.pool_size) return true;
  std::size_t used = a.pool_used.load(std::memory_order_relaxed);
  do {
    if (size > a.pool_size - std::min(used, a.pool_size)) return false;
  } while (!a.pool_used.compare_exchange_weak(used, used + size, std::memory_order_relaxed));
  return true;
}

void* allocate(const char* entry, std::size_t alignment, std::size_t size, omp_allocator_handle_t handle) {
  if (handle == omp_null_allocator) handle = static_cast<omp_allocator_handle_t>(current().icv.default_allocator);
  if (alignment == 0) alignment = 1;
  if (alignment & (alignment - 1)) fatal(entry, "alignment " + std::to_string(alignment) + " is not a power of two");
  if (size == 0) return nullptr;
  // A fallback chain longer than this loops (allocator_fb pointing back).
  for (int hops = 0; hops < 64; ++hops) {
    Allocator* a = custom(handle);
    const std::size_t align = std::max({alignment, a ? a->alignment : 1, alignof(std::max_align_t)});
    if (!a) return obtain(size, align, nullptr);
    if (take_from_pool(*a, size)) {
      if (void* p = obtain(size, align, a)) return p;
      return_to_pool(*a, size);
    }
    switch (a->fallback) {
      case Fallback::null: return nullptr;
      case Fallback::abort:
        fatal(entry, "cannot allocate " + std::to_string(size) + " bytes from an allocator whose fallback is abort_fb" +
                         (a->pool_size ? " (pool of " + std::to_string(a->pool_size) + " bytes)" : std::string()));
      case Fallback::default_mem: handle = omp_default_mem_alloc; break;
      case Fallback::allocator: handle = a->fallback_allocator; break;
    }
  }
  fatal(entry, "the allocators' fallbacks form a loop");
}

void* allocate_zeroed(const char* entry, std::size_t alignment, std::size_t n, std::size_t size,
                      omp_allocator_handle_t a) {
  if (size && n > SIZE_MAX / size) return nullptr;
  void* p = allocate(entry, alignment, n * size, a);
  if (p) std::memset(p, 0, n * size);
  return p;
}

// Whether a trait's value is one of `allowed`.
bool one_of(omp_uintptr_t v, std::initializer_list<omp_alloctrait_value_t> allowed) {
  return std::find(allowed.begin(), allowed.end(), static_cast<omp_alloctrait_value_t>(v)) != allowed.end();
}

}  // namespace
}  // namespace weft::omp

using namespace weft::omp;

extern "C" {

omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t space, int ntraits,
                                          const omp_alloctrait_t traits[]) noexcept {
  // No high-bandwidth memory on this host (libgomp without memkind says so too).
  if (static_cast<std::uintptr_t>(space) > static_cast<std::uintptr_t>(omp_low_lat_mem_space) ||
      space == omp_high_bw_mem_space || ntraits < 0 || (ntraits > 0 && !traits))
    return omp_null_allocator;
  Allocator a;
  bool has_fb_data = false;
  for (int i = 0; i < ntraits; ++i) {
    const omp_uintptr_t v = traits[i].value;
    const bool by_default = v == static_cast<omp_uintptr_t>(omp_atv_default);
    // The key as the integer the program stored: a key that is none of the
    // enumerators is not a value of omp_alloctrait_key_t to C++.
    int key = 0;
    static_assert(sizeof key == sizeof traits[i].key);
    std::memcpy(&key, &traits[i].key, sizeof key);
    switch (key) {
      case omp_atk_sync_hint:
        if (!by_default && !one_of(v, {omp_atv_contended, omp_atv_uncontended, omp_atv_serialized, omp_atv_private}))
          return omp_null_allocator;
        break;
      case omp_atk_alignment:
        if (by_default) a.alignment = 1;
        else if (v == 0 || (v & (v - 1))) return omp_null_allocator;
        else a.alignment = v;
        break;
      case omp_atk_access:
        if (!by_default && !one_of(v, {omp_atv_all, omp_atv_cgroup, omp_atv_pteam, omp_atv_thread}))
          return omp_null_allocator;
        break;
      case omp_atk_pool_size:
        if (by_default) a.pool_size = 0;
        else if (v == 0) return omp_null_allocator;
        else a.pool_size = v;
        break;
      case omp_atk_fallback:
        if (by_default || v == omp_atv_default_mem_fb) a.fallback = Fallback::default_mem;
        else if (v == omp_atv_null_fb) a.fallback = Fallback::null;
        else if (v == omp_atv_abort_fb) a.fallback = Fallback::abort;
        else if (v == omp_atv_allocator_fb) a.fallback = Fallback::allocator;
        else return omp_null_allocator;
        break;
      case omp_atk_fb_data:
        a.fallback_allocator = static_cast<omp_allocator_handle_t>(v);
        has_fb_data = true;
        break;
      case omp_atk_pinned:
        if (by_default || v == omp_atv_false) a.pinned = false;
        else if (v == omp_atv_true) a.pinned = true;
        else return omp_null_allocator;
        break;
      case omp_atk_partition:
        if (by_default || v == omp_atv_environment) a.partition = Partition::environment;
        else if (v == omp_atv_nearest) a.partition = Partition::nearest;
        else if (v == omp_atv_blocked) a.partition = Partition::blocked;
        else if (v == omp_atv_interleaved) a.partition = Partition::interleaved;
        else return omp_null_allocator;
        break;
      default: return omp_null_allocator;
    }
  }
  if (a.fallback == Fallback::allocator && (!has_fb_data || a.fallback_allocator == omp_null_allocator))
    return omp_null_allocator;
  auto* made = new (std::nothrow) Allocator;
  if (!made) return omp_null_allocator;
  made->alignment = a.alignment;
  made->pool_size = a.pool_size;
  made->fallback = a.fallback;
  made->fallback_allocator = a.fallback_allocator;
  made->pinned = a.pinned;
  made->partition = a.partition;
  return static_cast<omp_allocator_handle_t>(reinterpret_cast<std::uintptr_t>(made));
}

void omp_destroy_allocator(omp_allocator_handle_t a) noexcept { delete custom(a); }

// def-allocator-var is an ICV of the task's data environment (OpenMP 5.2 §2.1).
void omp_set_default_allocator(omp_allocator_handle_t a) noexcept {
  if (a == omp_null_allocator) fatal("omp_set_default_allocator", "omp_null_allocator is not an allocator");
  current().icv.default_allocator = static_cast<std::uintptr_t>(a);
}
omp_allocator_handle_t omp_get_default_allocator() noexcept {
  return static_cast<omp_allocator_handle_t>(current().icv.default_allocator);
}

void* omp_alloc(std::size_t size, omp_allocator_handle_t a) noexcept { return allocate("omp_alloc", 1, size, a); }
void* omp_aligned_alloc(std::size_t alignment, std::size_t size, omp_allocator_handle_t a) noexcept {
  return allocate("omp_aligned_alloc", alignment, size, a);
}
void* omp_calloc(std::size_t n, std::size_t size, omp_allocator_handle_t a) noexcept {
  return allocate_zeroed("omp_calloc", 1, n, size, a);
}
void* omp_aligned_calloc(std::size_t alignment, std::size_t n, std::size_t size, omp_allocator_handle_t a) noexcept {
  return allocate_zeroed("omp_aligned_calloc", alignment, n, size, a);
}
// OpenMP 5.2 §6.9: the new block comes from `a` (the block's own allocator
// when a is omp_null_allocator), the old one goes back to its allocator.
void* omp_realloc(void* p, std::size_t size, omp_allocator_handle_t a, omp_allocator_handle_t) noexcept {
  if (!p) return allocate("omp_realloc", 1, size, a);
  if (size == 0) {
    release(p);
    return nullptr;
  }
  const Header& old = *header_of(p);
  if (a == omp_null_allocator && old.owner)
    a = static_cast<omp_allocator_handle_t>(reinterpret_cast<std::uintptr_t>(old.owner));
  void* fresh = allocate("omp_realloc", 1, size, a);
  if (!fresh) return nullptr;  // the old block stays
  std::memcpy(fresh, p, std::min(size, old.size));
  release(p);
  return fresh;
}
void omp_free(void* p, omp_allocator_handle_t) noexcept {
  if (p) release(p);
}

void* GOMP_alloc(std::size_t alignment, std::size_t size, std::uintptr_t allocator) {
  return allocate("GOMP_alloc", alignment, size, static_cast<omp_allocator_handle_t>(allocator));
}
void GOMP_free(void* p, std::uintptr_t) {
  if (p) release(p);
}

}  // extern "C"
