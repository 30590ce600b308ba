// string_pool.h — the process-wide pool of interned strings behind Value's string cells: one
// shared, reference-counted copy per distinct string value alive anywhere in the process. Holds
// state (a global pool); thread-safe.
//
// Invariants: at any moment two live PooledStrings never hold equal text, so two string cells
// are equal exactly when they point at the same PooledString (Value's equality fast path); an
// entry is freed (and leaves the pool) when its last reference goes. The pool is never iterated
// and addresses never order anything: every comparison is by the text's bytes, so interning
// changes no observable order (determinism, ARCHITECTURE.md §3). Errors: none (allocation
// failure aborts as everywhere). Why (issue 16, memory): a row's status / priority / owner / fk
// cells repeat a few values across 100k–1M rows; a cell is now 16 bytes and a copy of a row or a
// pk bumps counts instead of allocating.
//
// Counting is plain (non-atomic) arithmetic and the pool takes no lock while the process has one
// thread (glibc's __libc_single_threaded, as libstdc++'s shared_ptr does) — the simulator forks
// and never starts threads — and atomic / locked once a second thread exists.
#pragma once

#include <sys/single_threaded.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rindle::internal {

struct PooledString {
  mutable std::atomic<uint64_t> refs;
  std::string text;
};

// The pooled copy of `s`, with one reference held by the caller.
const PooledString* InternString(std::string_view s);
const PooledString* InternString(std::string&& s);

inline void RefString(const PooledString* p) {
  if (__libc_single_threaded) {
    p->refs.store(p->refs.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  } else {
    p->refs.fetch_add(1, std::memory_order_relaxed);
  }
}

// Drops the last reference: removes the entry from the pool and frees it.
void UnrefStringSlow(const PooledString* p);

inline void UnrefString(const PooledString* p) {
  // Only the 1 → 0 step needs the pool (it runs under the shard's lock, where InternString
  // takes its references), so every other release is one decrement.
  uint64_t r = p->refs.load(std::memory_order_relaxed);
  if (__libc_single_threaded) {
    if (r > 1) {
      p->refs.store(r - 1, std::memory_order_relaxed);
      return;
    }
  } else {
    while (r > 1) {
      if (p->refs.compare_exchange_weak(r, r - 1, std::memory_order_acq_rel)) return;
    }
  }
  UnrefStringSlow(p);
}

// Distinct strings alive in the pool (tests and the bench).
size_t InternedStringCount();

}  // namespace rindle::internal
