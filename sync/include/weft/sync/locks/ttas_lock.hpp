#pragma once
// TtasLock: test-and-test-and-set, the "local spinning" lock of SSYNC's
// study (thesis Table 2.1): waiters read the lock word in their cache and
// try the atomic exchange only when it reads free, one educated backoff
// quantum apart (thesis §7.5, §7.7.1). Unfair. A waiter spins for its budget
// (WaitBudget), then parks (ULT) or sleeps (thread) until a release.
// Lockable.
//
// Also the mutex inside QdLock (queue delegation locking: "TATAS works very
// well" there, QD paper §4.1), hence is_locked(), try_lock_or_wait() and
// wait_until_unlocked().

#include "weft/sync/detail/test_and_set_lock.hpp"

namespace weft::sync {

using TtasLock = detail::TestAndSetLock<true>;

}  // namespace weft::sync
