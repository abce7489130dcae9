#pragma once
// The ULT context switch (internal): Boost.Context's fcontext, with weft's own
// copy of jump_fcontext on x86-64 Linux (context_switch_x86_64.S).
//
// Why a copy: Boost 1.74's jump_fcontext ends with `pop; jmp *reg`, so the
// return-stack buffer entry pushed by the `call` into it is never consumed.
// The resumed ULT's first `ret` then predicts that stale entry, the next one
// the entry below it, and so on: every return on the way back up from a
// switch mispredicts (~20 cycles each; a yield returns through 3-4 frames).
// Ending with `ret` keeps call and return paired, and when two ULTs switch
// from the same call site (a ring of yields, a combiner's waiters) every
// return is predicted. Measured on the 2-core VM (bench/results/ult-2core.md,
// 2026-11-23 evening): yield between 2 ULTs 16-17 -> see there.
// Contexts are still made by Boost's make_fcontext (same frame layout).

#include <boost/context/detail/fcontext.hpp>

namespace weft::detail {

namespace bctx = boost::context::detail;

#if defined(__x86_64__) && defined(__ELF__)
extern "C" bctx::transfer_t weft_jump_fcontext(bctx::fcontext_t to, void* data);
inline bctx::transfer_t jump_context(bctx::fcontext_t to, void* data) { return weft_jump_fcontext(to, data); }
#else
inline bctx::transfer_t jump_context(bctx::fcontext_t to, void* data) { return bctx::jump_fcontext(to, data); }
#endif

}  // namespace weft::detail
