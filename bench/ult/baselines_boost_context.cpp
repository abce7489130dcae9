// Raw Boost.Context switch cost: the floor under any ULT runtime built on it
// (weft's runtime switches with Boost.Context too). A ring of N contexts,
// each switching to the next; N == 2 is the classic ping-pong.
//  * boost_fcontext_switch: boost::context::detail::jump_fcontext, the
//    assembly primitive (no bookkeeping at all);
//  * weft_fcontext_switch: the same ring on weft's copy of it, which returns
//    with `ret` (runtime/src/context_switch.hpp says why): the floor under
//    weft's own yield on x86-64;
//  * boost_context_fiber_switch: boost::context::fiber::resume, the public
//    call/cc-style API on top of it.
#include <boost/context/detail/fcontext.hpp>
#include <boost/context/fiber.hpp>
#include <boost/context/fixedsize_stack.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "baselines.hpp"

namespace weft::bench::ult {
namespace {

namespace ctx = boost::context;
namespace cd = boost::context::detail;
using JumpFn = cd::transfer_t (*)(cd::fcontext_t, void*);

// State shared by the contexts of one fcontext ring.
struct FRing {
  std::vector<cd::fcontext_t> handle;  // handle[i]: resumes context i
  cd::fcontext_t main = nullptr;       // resumes the measuring thread
  int n = 0;
  long iterations = 0;
  long switches = 0;
};
struct FArg {
  FRing* ring;
  int index;
};

// Context i: on entry, remember who started it; then `iterations` times jump
// to i+1 and, when resumed (always by i-1), store i-1's new handle. Context 0
// was started by the measuring thread and returns to it at the end; the
// others stay suspended and their stacks are simply freed (nothing on them
// needs destroying).
template <JumpFn Jump>
void fring_entry(cd::transfer_t t) {
  auto* a = static_cast<FArg*>(t.data);
  FRing& r = *a->ring;
  const int i = a->index, n = r.n;
  const int prev = (i + n - 1) % n, next = (i + 1) % n;
  if (i == 0)
    r.main = t.fctx;
  else
    r.handle[prev] = t.fctx;
  FArg* next_arg = a + (next - i);  // args live in one array
  for (long k = 0; k < r.iterations; ++k) {
    ++r.switches;  // before the jump: contexts 1..n-1 never return from their last one
    cd::transfer_t back = Jump(r.handle[next], next_arg);
    r.handle[prev] = back.fctx;
  }
  Jump(r.main, nullptr);  // only context 0 gets here
  __builtin_unreachable();
}

template <JumpFn Jump>
Measurement fcontext_ring(int fibers, long iterations) {
  if (fibers < 2) throw std::invalid_argument("fcontext ring needs >= 2 contexts");
  ctx::fixedsize_stack salloc(64 * 1024);
  FRing ring;
  ring.n = fibers;
  ring.iterations = iterations;
  ring.handle.resize(fibers);
  std::vector<ctx::stack_context> stacks;
  std::vector<FArg> args;
  for (int i = 0; i < fibers; ++i) {
    stacks.push_back(salloc.allocate());
    ring.handle[i] = cd::make_fcontext(stacks.back().sp, stacks.back().size, fring_entry<Jump>);
    args.push_back({&ring, i});
  }
  const double t0 = now_ns();
  Jump(ring.handle[0], &args[0]);
  const double t1 = now_ns();
  for (auto& s : stacks) salloc.deallocate(s);
  const long expected = static_cast<long>(fibers) * iterations;
  benchmark::DoNotOptimize(ring.switches);
  if (ring.switches != expected)
    throw std::runtime_error("fcontext ring: " + std::to_string(ring.switches) +
                             " switches, expected " + std::to_string(expected));
  return {t1 - t0, static_cast<double>(expected)};
}

}  // namespace

Measurement boost_fcontext_switch(int fibers, long iterations) {
  return fcontext_ring<cd::jump_fcontext>(fibers, iterations);
}

#if WEFT_BENCH_HAS_WEFT_SWITCH
Measurement weft_fcontext_switch(int fibers, long iterations) {
  return fcontext_ring<weft_jump_fcontext>(fibers, iterations);
}
#endif

Measurement boost_context_fiber_switch(int fibers, long iterations) {
  if (fibers < 2) throw std::invalid_argument("fiber ring needs >= 2 fibers");
  ctx::fixedsize_stack salloc(64 * 1024);
  std::vector<ctx::fiber> handle(fibers);  // handle[i]: resumes fiber i
  ctx::fiber main;
  long switches = 0;
  const int n = fibers;
  for (int i = 0; i < n; ++i) {
    handle[i] = ctx::fiber(std::allocator_arg, salloc, [&, i](ctx::fiber&& caller) {
      const int prev = (i + n - 1) % n, next = (i + 1) % n;
      if (i == 0)
        main = std::move(caller);
      else
        handle[prev] = std::move(caller);
      for (long k = 0; k < iterations; ++k) {
        ++switches;  // before: fibers 1..n-1 never return from their last switch
        handle[prev] = std::move(handle[next]).resume();
      }
      return std::move(main);  // only fiber 0 gets here
    });
  }
  const double t0 = now_ns();
  ctx::fiber done = std::move(handle[0]).resume();
  const double t1 = now_ns();
  // handle[1..n-1] are suspended mid-loop; destroying them unwinds them.
  handle.clear();
  const long expected = static_cast<long>(fibers) * iterations;
  benchmark::DoNotOptimize(switches);
  if (switches != expected)
    throw std::runtime_error("context::fiber ring: " + std::to_string(switches) +
                             " switches, expected " + std::to_string(expected));
  return {t1 - t0, static_cast<double>(expected)};
}

}  // namespace weft::bench::ult
