#pragma once
// TasLock: test-and-set, the "global spinning" lock of SSYNC's study (thesis
// Table 2.1, ch. 4): every attempt is an atomic exchange on the lock word,
// one educated backoff quantum apart (thesis §7.5, §7.7.1). Unfair. A waiter
// spins for its budget (WaitBudget) and then parks (ULT) or sleeps (thread)
// until a release. Lockable: std::lock_guard, std::unique_lock,
// std::scoped_lock and std::condition_variable_any work with it.

#include "weft/sync/detail/test_and_set_lock.hpp"

namespace weft::sync {

using TasLock = detail::TestAndSetLock<false>;

}  // namespace weft::sync
