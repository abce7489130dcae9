#pragma once
// The sync layer of weft: combining objects (Osci, PSim-x and the algorithms
// they are measured against), the queues and stacks built from them and the
// waiting policies. Include this, or <weft/weft.hpp> for every layer. See
// docs/sync-combining.md.
// The lock family, MUTEXEE and queue delegation locks: docs/sync-locks.md.
// Channels (synchronous dual queue/stack, buffered), select, OPTIK and CLHT
// maps: docs/sync-channels.md.

#include "weft/sync/bounded_queue.hpp"
#include "weft/sync/bounded_stack.hpp"
#include "weft/sync/ccsynch.hpp"
#include "weft/sync/channel.hpp"
#include "weft/sync/clh_lock.hpp"
#include "weft/sync/clht.hpp"
#include "weft/sync/clht_map.hpp"
#include "weft/sync/combining.hpp"
#include "weft/sync/combining_queue.hpp"
#include "weft/sync/combining_stack.hpp"
#include "weft/sync/dsmsynch.hpp"
#include "weft/sync/fetch_multiply.hpp"
#include "weft/sync/flat_combining.hpp"
#include "weft/sync/hsynch.hpp"
#include "weft/sync/lock_free_object.hpp"
#include "weft/sync/locks/array_lock.hpp"
#include "weft/sync/locks/clh_mutex.hpp"
#include "weft/sync/locks/cohort_lock.hpp"
#include "weft/sync/locks/mcs_lock.hpp"
#include "weft/sync/locks/mrqd_lock.hpp"
#include "weft/sync/locks/mutexee_lock.hpp"
#include "weft/sync/locks/qd_lock.hpp"
#include "weft/sync/locks/rw_lock.hpp"
#include "weft/sync/locks/tas_lock.hpp"
#include "weft/sync/locks/ticket_lock.hpp"
#include "weft/sync/locks/ttas_lock.hpp"
#include "weft/sync/locks/wait_budget.hpp"
#include "weft/sync/mutex_object.hpp"
#include "weft/sync/optik.hpp"
#include "weft/sync/optik_list.hpp"
#include "weft/sync/osci.hpp"
#include "weft/sync/oyama.hpp"
#include "weft/sync/psim.hpp"
#include "weft/sync/psim_queue.hpp"
#include "weft/sync/psim_stack.hpp"
#include "weft/sync/select.hpp"
#include "weft/sync/synchronous_queue.hpp"
#include "weft/sync/wait.hpp"
