#pragma once
// The sync layer of weft: combining objects (Osci, PSim-x and the algorithms
// they are measured against), the queues and stacks built from them and the
// waiting policies. Include this, or <weft/weft.hpp> for every layer. See
// docs/sync-combining.md.

#include "weft/sync/bounded_queue.hpp"
#include "weft/sync/bounded_stack.hpp"
#include "weft/sync/ccsynch.hpp"
#include "weft/sync/clh_lock.hpp"
#include "weft/sync/combining.hpp"
#include "weft/sync/combining_queue.hpp"
#include "weft/sync/combining_stack.hpp"
#include "weft/sync/dsmsynch.hpp"
#include "weft/sync/fetch_multiply.hpp"
#include "weft/sync/flat_combining.hpp"
#include "weft/sync/hsynch.hpp"
#include "weft/sync/lock_free_object.hpp"
#include "weft/sync/mutex_object.hpp"
#include "weft/sync/osci.hpp"
#include "weft/sync/oyama.hpp"
#include "weft/sync/psim.hpp"
#include "weft/sync/psim_queue.hpp"
#include "weft/sync/psim_stack.hpp"
#include "weft/sync/wait.hpp"
