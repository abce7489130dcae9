#pragma once
// Turns a ULT stack overflow into a report that says which ULT overflowed,
// its stack size and how to raise it, instead of a bare SIGSEGV.

#include <cstddef>

namespace weft::detail {

// Installs the process-wide SIGSEGV/SIGBUS handler (counted; the previous
// handler is restored when the last runtime goes away).
void retain_overflow_handler();
void release_overflow_handler();

// Per worker thread: the alternate signal stack the handler runs on, kept
// for the life of the thread.
void install_overflow_altstack(void* memory, std::size_t bytes);

}  // namespace weft::detail
