#include "stack_overflow.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "worker.hpp"

namespace weft::detail {

namespace {

std::mutex handler_mutex;
int handler_users = 0;
struct sigaction previous_segv, previous_bus;

// Async-signal-safe output helpers.
void put(const char* s) {
  ssize_t r = write(STDERR_FILENO, s, std::strlen(s));
  (void)r;
}
void put_number(std::uint64_t v) {
  char buf[24];
  int i = 23;
  buf[i] = '\0';
  do {
    buf[--i] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v && i > 0);
  put(buf + i);
}

void on_fault(int sig, siginfo_t* info, void* uctx) {
  Worker* w = tls_worker;
  Task* t = w ? w->current() : nullptr;
  if (t && t->stack_lo) {
    auto* addr = static_cast<char*>(info->si_addr);
    char* guard_lo = t->stack_lo - sysconf(_SC_PAGESIZE);
    // Within the guard page, or a large frame that jumped a little past it.
    if (addr < t->stack_lo && addr >= guard_lo - 64 * 1024) {
      // The same words as Worker::report_stack_overflow, async-signal-safe.
      put("weft: stack overflow in ULT #");
      put_number(t->id);
      put(" on worker ");
      put_number(static_cast<std::uint64_t>(w->index()));
      put(": it ran into the guard page below its stack (its stack: ");
      put_number(w->stack_bytes());
      put(" bytes, twice Config::stack_size).\n"
          "weft: raise the ULT stack size with Config::stack_size or the environment variable "
          "WEFT_STACK_SIZE (e.g. WEFT_STACK_SIZE=1M).\n");
      signal(SIGABRT, SIG_DFL);
      abort();
    }
  }
  // Not a ULT stack overflow: hand the fault to whoever handled it before us.
  const struct sigaction& prev = sig == SIGSEGV ? previous_segv : previous_bus;
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) {
      prev.sa_sigaction(sig, info, uctx);
      return;
    }
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
    return;
  }
  signal(sig, SIG_DFL);  // re-executing the faulting access now crashes as usual
}

}  // namespace

void retain_overflow_handler() {
  std::lock_guard lock(handler_mutex);
  if (handler_users++ > 0) return;
  struct sigaction sa {};
  sa.sa_sigaction = &on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &previous_segv);
  sigaction(SIGBUS, &sa, &previous_bus);
}

void release_overflow_handler() {
  std::lock_guard lock(handler_mutex);
  if (--handler_users > 0) return;
  sigaction(SIGSEGV, &previous_segv, nullptr);
  sigaction(SIGBUS, &previous_bus, nullptr);
}

void install_overflow_altstack(void* memory, std::size_t bytes) {
  stack_t ss{};
  ss.ss_sp = memory;
  ss.ss_size = bytes;
  sigaltstack(&ss, nullptr);
}

}  // namespace weft::detail
