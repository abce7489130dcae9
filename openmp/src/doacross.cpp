// GOMP_doacross_* (ordered depend(source/sink)); see doacross.hpp.
#include "doacross.hpp"

#include <cstdarg>
#include <type_traits>

#include "fatal.hpp"
#include "team.hpp"
#include "wait.hpp"

namespace weft::omp {
namespace {

// 1 + the lexicographic position of v[1..] among the inner iterations.
std::uint64_t inner_position(const Doacross& d, const std::uint64_t* v) {
  std::uint64_t flat = 0;
  for (std::size_t k = 1; k < d.counts.size(); ++k) flat = flat * d.counts[k] + v[k];
  return flat + 1;
}

Doacross& current_doacross(const char* entry) {
  TaskContext& self = implicit_task(entry);
  WorkShare* w = self.member->ws;
  if (!w || !w->doacross) fatal(entry, "called outside a loop with an ordered(n) clause");
  return *w->doacross;
}

// The iteration vector a wait receives as variadic arguments: on the stack
// for the usual few dimensions, on the heap beyond (ordered(n) has no limit
// on n).
class IterationVector {
 public:
  explicit IterationVector(std::size_t dims) : heap_(dims > kOnStack ? new std::uint64_t[dims] : nullptr) {}
  std::uint64_t* data() noexcept { return heap_ ? heap_.get() : stack_; }

 private:
  static constexpr std::size_t kOnStack = 8;
  std::uint64_t stack_[kOnStack];
  std::unique_ptr<std::uint64_t[]> heap_;
};

template <class T>
void wait_from_args(const char* entry, T first, va_list args) {
  Doacross& d = current_doacross(entry);
  IterationVector vector(d.counts.size());
  std::uint64_t* v = vector.data();
  v[0] = static_cast<std::uint64_t>(first);
  for (std::size_t k = 1; k < d.counts.size(); ++k) v[k] = static_cast<std::uint64_t>(va_arg(args, T));
  doacross_wait(d, v);
}

}  // namespace

Doacross* make_doacross(unsigned dims, const std::uint64_t* counts) {
  auto* d = new Doacross;
  d->counts.assign(counts, counts + dims);
  d->done = std::make_unique<std::atomic<std::uint64_t>[]>(counts[0]);
  for (std::uint64_t i = 0; i < counts[0]; ++i) d->done[i].store(0, std::memory_order_relaxed);
  return d;
}

void delete_doacross(Doacross* d) { delete d; }

void doacross_post(Doacross& d, const std::uint64_t* v) {
  if (v[0] >= d.counts[0]) return;
  d.done[v[0]].store(inner_position(d, v), std::memory_order_release);
  unpark_all(&d.done[v[0]]);
}

void doacross_wait(Doacross& d, const std::uint64_t* v) {
  // Unsigned compare: a sink before iteration 0 (negative) is out of range too.
  for (std::size_t k = 0; k < d.counts.size(); ++k)
    if (v[k] >= d.counts[k]) return;
  const std::uint64_t needed = inner_position(d, v);
  std::atomic<std::uint64_t>& word = d.done[v[0]];
  wait_until(&word, [&word, needed] { return word.load(std::memory_order_acquire) >= needed; });
}

}  // namespace weft::omp

using namespace weft::omp;

extern "C" {

// The iteration is read in place, as the ull entry point's is: a long may be
// read as its unsigned twin, which std::uint64_t is here, and the value is
// the one a conversion would give.
static_assert(std::is_same_v<std::uint64_t, unsigned long>, "GOMP_doacross_post reads its longs as std::uint64_t");
void GOMP_doacross_post(long* counts) {
  doacross_post(current_doacross("GOMP_doacross_post"), reinterpret_cast<const std::uint64_t*>(counts));
}

void GOMP_doacross_ull_post(unsigned long long* counts) {
  Doacross& d = current_doacross("GOMP_doacross_ull_post");
  doacross_post(d, reinterpret_cast<const std::uint64_t*>(counts));
}

void GOMP_doacross_wait(long first, ...) {
  va_list args;
  va_start(args, first);
  wait_from_args<long>("GOMP_doacross_wait", first, args);
  va_end(args);
}

void GOMP_doacross_ull_wait(unsigned long long first, ...) {
  va_list args;
  va_start(args, first);
  wait_from_args<unsigned long long>("GOMP_doacross_ull_wait", first, args);
  va_end(args);
}

}  // extern "C"
