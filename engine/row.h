// row.h — Row: a shared, immutable reference to one row's positional cells (RowValues), held by
// tables, indexes, operators, events and views alike. Value type (a counted reference).
//
// Interface: what the engine used of std::shared_ptr<const RowValues> — `*row`, `row->`,
// `row.get()`, `if (row)`, comparison with another Row (same referent) or nullptr, `reset()`;
// build one with MakeRow. Representation (issue 16, commit path and memory): an intrusive count
// beside the cells' vector, so a Row is one pointer (8 bytes, was 16) and an index entry of
// (order image, Row) is 16 bytes. Counting is plain arithmetic while the process has one thread
// (glibc's __libc_single_threaded, as libstdc++'s shared_ptr does) and atomic once a second
// thread exists — the same rule as string_pool.h.
#pragma once

#include <sys/single_threaded.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "engine/value.h"

namespace rindle {

namespace internal {
struct RowRep {
  mutable std::atomic<uint64_t> refs;
  const RowValues values;
};
}  // namespace internal

class Row {
 public:
  Row() = default;
  Row(std::nullptr_t) {}  // NOLINT: a null Row reads as nullptr, as a shared_ptr did
  Row(const Row& o) : p_(o.p_) {
    if (p_ != nullptr) Ref(p_);
  }
  Row(Row&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  Row& operator=(const Row& o) {
    if (o.p_ != nullptr) Ref(o.p_);  // first: o may be *this
    Release();
    p_ = o.p_;
    return *this;
  }
  Row& operator=(Row&& o) noexcept {
    if (this != &o) {
      Release();
      p_ = o.p_;
      o.p_ = nullptr;
    }
    return *this;
  }
  ~Row() { Release(); }

  const RowValues& operator*() const { return p_->values; }
  const RowValues* operator->() const { return &p_->values; }
  const RowValues* get() const { return p_ == nullptr ? nullptr : &p_->values; }
  explicit operator bool() const { return p_ != nullptr; }
  void reset() {
    Release();
    p_ = nullptr;
  }

  friend bool operator==(const Row& a, const Row& b) { return a.p_ == b.p_; }
  friend bool operator==(const Row& a, std::nullptr_t) { return a.p_ == nullptr; }

  // A new row holding `v`.
  friend Row MakeRow(RowValues v);

 private:
  static void Ref(const internal::RowRep* p) {
    if (__libc_single_threaded) {
      p->refs.store(p->refs.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    } else {
      p->refs.fetch_add(1, std::memory_order_relaxed);
    }
  }
  void Release() {
    if (p_ == nullptr) return;
    if (__libc_single_threaded) {
      const uint64_t r = p_->refs.load(std::memory_order_relaxed);
      if (r > 1) {
        p_->refs.store(r - 1, std::memory_order_relaxed);
        return;
      }
    } else if (p_->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) {
      return;
    }
    delete p_;
  }

  const internal::RowRep* p_ = nullptr;
};

inline Row MakeRow(RowValues v) {
  Row r;
  r.p_ = new internal::RowRep{{1}, std::move(v)};
  return r;
}

}  // namespace rindle
