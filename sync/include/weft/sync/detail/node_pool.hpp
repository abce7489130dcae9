#pragma once
// Recycled nodes of one type, so that a hand-off or a map update allocates
// nothing once the pool is warm: each thread keeps a free list (a worker
// thread's is shared by its ULTs, which never switch inside allocate() or
// recycle()), and lists that grow past kMaxLocal spill half into a shared
// depot that empty lists refill from. Node must derive from Retired (its
// retired_next is the free-list link) and be default-constructible; users
// re-initialise every field they read after allocate().
//
// Under AddressSanitizer the pool is bypassed (new/delete per node), so that
// a use after reclamation is reported instead of hidden by reuse.

#include <cstddef>
#include <mutex>

#include "weft/sync/detail/epoch.hpp"

namespace weft::sync::detail {

template <class Node>
class NodePool {
 public:
  static Node* allocate() {
#if defined(__SANITIZE_ADDRESS__)
    return new Node;
#else
    Cache* c = local();
    if (c && !c->head) refill(*c);
    if (c && c->head) {
      Retired* r = c->head;
      c->head = r->retired_next;
      --c->count;
      return static_cast<Node*>(r);
    }
    return new Node;
#endif
  }

  static void recycle(Node* n) noexcept {
#if defined(__SANITIZE_ADDRESS__)
    delete n;
#else
    Cache* c = local();
    if (!c) {  // the thread is exiting
      Depot& d = depot();
      std::lock_guard lk(d.mutex);
      n->retired_next = d.head;
      d.head = n;
      ++d.count;
      return;
    }
    n->retired_next = c->head;
    c->head = n;
    if (++c->count > kMaxLocal) spill(*c, kMaxLocal / 2);
#endif
  }

  // The reclaim function for retire(): the node goes back to the pool.
  static void reclaim(Retired* r) noexcept { recycle(static_cast<Node*>(r)); }

 private:
  static constexpr std::size_t kMaxLocal = 256;
  static constexpr std::size_t kBatch = 32;

  struct Cache {
    Retired* head = nullptr;
    std::size_t count = 0;
  };
  struct Owner {
    Cache cache;
    ~Owner() {
      spill(cache, cache.count);
      t_cache = nullptr;
      t_finished = true;
    }
  };
  struct Depot {
    std::mutex mutex;
    Retired* head = nullptr;
    std::size_t count = 0;
  };

  // The thread's cache, through an initial-exec TLS word (no
  // __tls_get_addr or initialisation check per node under -fPIC); null once
  // the thread's destructors ran.
  __attribute__((tls_model("initial-exec"))) static inline thread_local Cache* t_cache = nullptr;
  __attribute__((tls_model("initial-exec"))) static inline thread_local bool t_finished = false;
  static Cache* local() {
    Cache* c = t_cache;
    return c ? c : make_local();
  }
  static Cache* make_local() {
    if (t_finished) return nullptr;
    thread_local Owner owner;
    t_cache = &owner.cache;
    return t_cache;
  }
  // Never destroyed (threads may exit during static destruction); the nodes
  // it holds stay reachable.
  static Depot& depot() {
    static Depot* d = new Depot;
    return *d;
  }
  static void refill(Cache& c) {
    Depot& d = depot();
    std::lock_guard lk(d.mutex);
    for (std::size_t i = 0; i < kBatch && d.head; ++i) {
      Retired* r = d.head;
      d.head = r->retired_next;
      --d.count;
      r->retired_next = c.head;
      c.head = r;
      ++c.count;
    }
  }
  static void spill(Cache& c, std::size_t n) noexcept {
    if (n == 0) return;
    Retired* first = c.head;
    Retired* last = first;
    for (std::size_t i = 1; i < n; ++i) last = last->retired_next;
    c.head = last->retired_next;
    c.count -= n;
    Depot& d = depot();
    std::lock_guard lk(d.mutex);
    last->retired_next = d.head;
    d.head = first;
    d.count += n;
  }
};

}  // namespace weft::sync::detail
