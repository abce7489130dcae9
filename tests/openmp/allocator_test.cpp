// Memory allocators (OpenMP 5.2 §6): the predefined ones (alignment,
// calloc, realloc keeping the contents, omp_free without the allocator),
// allocators with traits (alignment; a pool with each fallback: null,
// default memory, another allocator; the pool shared by many threads and
// whole again after they freed; the default allocator; the allocate clause),
// traits that must be refused, and, on weft, pinned memory (locked: VmLck
// grows) and the partitions (usable memory). With argv[1] = "abort", an
// allocator whose pool is spent and whose fallback is abort_fb must stop the
// program.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "check.hpp"

namespace {

bool aligned(const void* p, std::uintptr_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

omp_allocator_handle_t make(std::initializer_list<omp_alloctrait_t> traits,
                            omp_memspace_handle_t space = omp_default_mem_space) {
  return omp_init_allocator(space, static_cast<int>(traits.size()), traits.begin());
}

// The process's locked memory (/proc/self/status VmLck), in KiB.
long locked_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmLck:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

void predefined_allocators() {
  const omp_allocator_handle_t all[] = {omp_default_mem_alloc, omp_large_cap_mem_alloc, omp_const_mem_alloc,
                                        omp_high_bw_mem_alloc, omp_low_lat_mem_alloc,  omp_cgroup_mem_alloc,
                                        omp_pteam_mem_alloc,   omp_thread_mem_alloc};
  for (omp_allocator_handle_t a : all) {
    auto* p = static_cast<unsigned char*>(omp_alloc(1000, a));
    CHECK(p && aligned(p, alignof(std::max_align_t)), "omp_alloc(1000, %d) gave %p", static_cast<int>(a),
          static_cast<void*>(p));
    if (p) std::memset(p, 7, 1000);
    omp_free(p, omp_null_allocator);
  }
  void* big = omp_aligned_alloc(4096, 100, omp_default_mem_alloc);
  CHECK(big && aligned(big, 4096), "omp_aligned_alloc(4096) gave %p", big);
  omp_free(big, omp_default_mem_alloc);
  auto* zeros = static_cast<unsigned char*>(omp_calloc(1000, 8, omp_default_mem_alloc));
  int nonzero = 0;
  for (int i = 0; zeros && i < 8000; ++i) nonzero += zeros[i] != 0;
  CHECK(zeros && nonzero == 0, "omp_calloc: %d of 8000 bytes not zero", nonzero);
  for (int i = 0; zeros && i < 8000; ++i) zeros[i] = static_cast<unsigned char>(i % 251);
  auto* grown = static_cast<unsigned char*>(omp_realloc(zeros, 80000, omp_null_allocator, omp_null_allocator));
  int changed = 0;
  for (int i = 0; grown && i < 8000; ++i) changed += grown[i] != i % 251;
  CHECK(grown && changed == 0, "omp_realloc lost %d of 8000 bytes", changed);
  omp_free(grown, omp_null_allocator);
  CHECK(omp_alloc(0, omp_default_mem_alloc) == nullptr, "omp_alloc(0) is not a null pointer");
}

void alignment_trait() {
  omp_allocator_handle_t a = make({{omp_atk_alignment, 512}});
  CHECK(a != omp_null_allocator, "alignment 512 refused");
  for (int i = 0; i < 100; ++i) {
    void* p = omp_alloc(static_cast<std::size_t>(i * 37 + 1), a);
    CHECK(p && aligned(p, 512), "alignment trait 512: %p", p);
    omp_free(p, a);
  }
  omp_destroy_allocator(a);
}

void pool_with_null_fallback() {
  omp_allocator_handle_t a = make({{omp_atk_pool_size, 1 << 20}, {omp_atk_fallback, omp_atv_null_fb}});
  void* x = omp_alloc(600000, a);
  void* y = omp_alloc(600000, a);
  CHECK(x && !y, "a pool of 1 MiB gave 600000 bytes twice (%p, %p)", x, y);
  omp_free(x, omp_null_allocator);
  y = omp_alloc(600000, a);
  CHECK(y, "the pool did not get 600000 bytes back from omp_free");
  omp_free(y, a);
  omp_destroy_allocator(a);
}

void pool_with_default_fallback() {
  omp_allocator_handle_t a = make({{omp_atk_pool_size, 1 << 20}, {omp_atk_fallback, omp_atv_default_mem_fb}});
  void* x = omp_alloc(600000, a);
  void* y = omp_alloc(600000, a);
  CHECK(x && y, "default_mem_fb: the second block past the pool is %p", y);
  omp_free(x, a);
  omp_free(y, a);
  omp_destroy_allocator(a);
}

void pool_with_allocator_fallback() {
  omp_allocator_handle_t page = make({{omp_atk_alignment, 4096}});
  omp_allocator_handle_t a = make({{omp_atk_pool_size, 1 << 16},
                                   {omp_atk_fallback, omp_atv_allocator_fb},
                                   {omp_atk_fb_data, static_cast<omp_uintptr_t>(page)}});
  CHECK(a != omp_null_allocator, "allocator_fb with fb_data refused");
  void* x = omp_alloc(40000, a);
  void* y = omp_alloc(40000, a);  // past the pool: from `page`
  CHECK(x && y && aligned(y, 4096), "allocator_fb: the block past the pool is %p (not from the fallback)", y);
  omp_free(x, omp_null_allocator);
  omp_free(y, omp_null_allocator);
  omp_destroy_allocator(a);
  omp_destroy_allocator(page);
}

void pool_shared_by_threads() {
  // 32 blocks of 1900 bytes fill 60800 of the 65536 (room for libgomp's
  // per-block overhead, which its pool counts).
  const std::size_t pool = 64 * 1024, block = 1900;
  omp_allocator_handle_t a = make({{omp_atk_pool_size, pool}, {omp_atk_fallback, omp_atv_null_fb}});
  long overdrawn = 0;
#pragma omp parallel num_threads(4) reduction(+ : overdrawn)
  {
    void* mine[8];
    for (int round = 0; round < 2000 / omptest::kScale; ++round) {
      int got = 0;
      for (void*& p : mine) {
        p = omp_alloc(block, a);
        if (p) {
          std::memset(p, round & 0xff, block);
          ++got;
        }
      }
      for (void* p : mine) omp_free(p, omp_null_allocator);
      (void)got;
    }
    // 4 threads x 8 blocks fit: none may fail.
    for (void*& p : mine) {
      p = omp_alloc(block, a);
      if (!p) ++overdrawn;
    }
#pragma omp barrier
    for (void* p : mine) omp_free(p, a);
  }
  CHECK(overdrawn == 0, "the shared pool refused %ld blocks that fit", overdrawn);
  // Every byte came back: one thread gets all 32 blocks again.
  void* again[32];
  int refused = 0;
  for (void*& p : again) refused += (p = omp_alloc(block, a)) == nullptr;
  CHECK(refused == 0, "after every thread freed its blocks the pool refused %d of 32", refused);
  for (void* p : again) omp_free(p, a);
  omp_destroy_allocator(a);
}

void default_allocator_and_allocate_clause() {
  omp_allocator_handle_t a = make({{omp_atk_alignment, 1024}});
  const omp_allocator_handle_t before = omp_get_default_allocator();
  omp_set_default_allocator(a);
  void* p = omp_alloc(10, omp_null_allocator);
  CHECK(p && aligned(p, 1024), "the default allocator (alignment 1024) gave %p", p);
  omp_free(p, omp_null_allocator);
  omp_set_default_allocator(before);
  int misaligned = 0;
  int x = 0;
#pragma omp parallel num_threads(3) private(x) allocate(a : x) reduction(+ : misaligned)
  {
    x = omp_get_thread_num();
    if (!aligned(&x, 1024)) ++misaligned;
  }
  CHECK(misaligned == 0, "allocate(a: x): %d members' copies not aligned to 1024", misaligned);
  omp_destroy_allocator(a);
}

// def-allocator-var belongs to the task: a member that sets it changes no
// other member's (with 4 members on 2 CPUs, weft runs two on one worker
// thread), and a task made afterwards inherits it (on weft: libgomp 12 keeps
// it per thread, so a task another thread runs sees that thread's).
void default_allocator_is_per_task() {
  omp_allocator_handle_t mine = make({{omp_atk_alignment, 2048}});
  const omp_allocator_handle_t outside = omp_get_default_allocator();
  int others_changed = 0, task_inherited = 0;
#pragma omp parallel num_threads(4) reduction(+ : others_changed, task_inherited)
  {
    if (omp_get_thread_num() == 0) omp_set_default_allocator(mine);
#pragma omp barrier
    if (omp_get_thread_num() != 0 && omp_get_default_allocator() != outside) ++others_changed;
    if (omp_get_thread_num() == 0) {
      int inherited = 0;
#pragma omp task shared(inherited)
      inherited = omp_get_default_allocator() == mine;
#pragma omp taskwait
      task_inherited += inherited;
    }
#pragma omp barrier
  }
  CHECK(others_changed == 0, "omp_set_default_allocator in member 0 changed %d other members'", others_changed);
  if (std::strcmp(omptest::runtime_name(), "weft") == 0)
    CHECK(task_inherited == 1, "a task did not inherit its creator's default allocator");
  CHECK(omp_get_default_allocator() == outside, "a member's default allocator leaked out of the region");
  omp_destroy_allocator(mine);
}

// OMP_ALLOCATOR names the initial default allocator.
void allocator_from_environment() {
  const char* v = std::getenv("OMP_ALLOCATOR");
  if (!v) {
    CHECK(omp_get_default_allocator() == omp_default_mem_alloc, "the default allocator is %d",
          static_cast<int>(omp_get_default_allocator()));
    return;
  }
  CHECK(std::strcmp(v, "omp_high_bw_mem_alloc") != 0 || omp_get_default_allocator() == omp_high_bw_mem_alloc,
        "OMP_ALLOCATOR=%s gave the default allocator %d", v, static_cast<int>(omp_get_default_allocator()));
}

void refused_traits() {
  CHECK(make({{omp_atk_alignment, 3}}) == omp_null_allocator, "alignment 3 accepted");
  CHECK(make({{omp_atk_fallback, 12345}}) == omp_null_allocator, "fallback 12345 accepted");
  omp_alloctrait_t unknown{};  // key 99: stored as the integer a C program may pass
  const int key = 99;
  std::memcpy(&unknown.key, &key, sizeof key);
  unknown.value = 1;
  CHECK(omp_init_allocator(omp_default_mem_space, 1, &unknown) == omp_null_allocator, "trait key 99 accepted");
  CHECK(omp_init_allocator(static_cast<omp_memspace_handle_t>(9), 0, nullptr) == omp_null_allocator,
        "memory space 9 accepted");
  omp_allocator_handle_t hinted = make({{omp_atk_sync_hint, omp_atv_private}, {omp_atk_access, omp_atv_thread}});
  CHECK(hinted != omp_null_allocator, "sync_hint private and access thread refused");
  omp_destroy_allocator(hinted);
}

// weft's own: pinned memory is locked; partitions give usable memory.
void pinned_and_partitions() {
  omp_allocator_handle_t pinned = make({{omp_atk_pinned, omp_atv_true}, {omp_atk_fallback, omp_atv_null_fb}});
  CHECK(pinned != omp_null_allocator, "pinned refused");
  const long before = locked_kib();
  void* p = omp_alloc(256 * 1024, pinned);
  const long during = locked_kib();
  // The sanitizers' runtimes make mlock a no-op: VmLck cannot show it there.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  const bool mlock_works = false;
#else
  const bool mlock_works = true;
#endif
  if (p) {
    CHECK(!mlock_works || during - before >= 256, "a pinned block of 256 KiB: VmLck %ld -> %ld KiB", before, during);
    std::memset(p, 1, 256 * 1024);
    omp_free(p, pinned);
    CHECK(locked_kib() <= before, "VmLck %ld KiB after the pinned block was freed (was %ld)", locked_kib(), before);
  } else {
    std::printf("note: no pinned block (RLIMIT_MEMLOCK); the null fallback answered\n");
  }
  omp_destroy_allocator(pinned);
  for (omp_uintptr_t part : {omp_atv_nearest, omp_atv_blocked, omp_atv_interleaved, omp_atv_environment}) {
    omp_allocator_handle_t a = make({{omp_atk_partition, part}, {omp_atk_alignment, 64}});
    CHECK(a != omp_null_allocator, "partition %lu refused", static_cast<unsigned long>(part));
    const std::size_t n = 3 << 20;
    auto* q = static_cast<unsigned char*>(omp_alloc(n, a));
    CHECK(q && aligned(q, 64), "partition %lu: %p", static_cast<unsigned long>(part), static_cast<void*>(q));
    if (q) {
      std::memset(q, 5, n);
      q = static_cast<unsigned char*>(omp_realloc(q, 2 * n, omp_null_allocator, omp_null_allocator));
      CHECK(q && q[n - 1] == 5 && q[0] == 5, "partition %lu: realloc lost the contents",
            static_cast<unsigned long>(part));
      omp_free(q, omp_null_allocator);
    }
    omp_destroy_allocator(a);
  }
}

}  // namespace

int main(int argc, char** argv) {
  omptest::start("allocator_test");
  if (argc > 1 && std::strcmp(argv[1], "abort") == 0) {
    omp_allocator_handle_t a = make({{omp_atk_pool_size, 1000}, {omp_atk_fallback, omp_atv_abort_fb}});
    void* p = omp_alloc(2000, a);
    std::printf("abort_fb returned %p\n", p);
    return 0;
  }
  predefined_allocators();
  alignment_trait();
  pool_with_null_fallback();
  pool_with_default_fallback();
  pool_with_allocator_fallback();
  pool_shared_by_threads();
  default_allocator_and_allocate_clause();
  default_allocator_is_per_task();
  allocator_from_environment();
  refused_traits();
  if (std::strcmp(omptest::runtime_name(), "weft") == 0) pinned_and_partitions();
  return omptest::finish("allocator_test");
}
