#include "engine/string_pool.h"

#include <array>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "base/check.h"

namespace rindle::internal {
namespace {

// Heterogeneous lookup by text: the set holds pointers, probes are string_views.
struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return absl::Hash<std::string_view>()(s); }
  size_t operator()(const PooledString* p) const { return (*this)(std::string_view(p->text)); }
};
struct TextEq {
  using is_transparent = void;
  static std::string_view View(std::string_view s) { return s; }
  static std::string_view View(const PooledString* p) { return p->text; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return View(a) == View(b);
  }
};

// Fixed-size slots for PooledStrings, reused through a free list: 40 bytes an entry where
// malloc's chunk is 48 (the pool holds one entry per distinct string: ~1M at 100k issues).
// Blocks are never returned; a freed slot serves the next new string.
class Slab {
 public:
  void* Allocate() {
    if (free_ == nullptr) Grow();
    Slot* s = free_;
    free_ = s->next;
    return s;
  }
  void Free(void* p) {
    Slot* s = static_cast<Slot*>(p);
    s->next = free_;
    free_ = s;
  }

 private:
  union Slot {
    Slot* next;
    alignas(PooledString) unsigned char bytes[sizeof(PooledString)];
  };
  static constexpr size_t kBlockSlots = 1024;
  void Grow() {
    blocks_.push_back(std::make_unique<Slot[]>(kBlockSlots));
    Slot* block = blocks_.back().get();
    for (size_t i = kBlockSlots; i-- > 0;) Free(&block[i]);
  }
  std::vector<std::unique_ptr<Slot[]>> blocks_;
  Slot* free_ = nullptr;
};

// Sharded by hash so threads (when there are any) rarely meet on one lock.
constexpr size_t kShards = 16;
struct Shard {
  std::mutex mu;
  absl::flat_hash_set<PooledString*, TextHash, TextEq> set;
  Slab slab;
};

std::array<Shard, kShards>& Shards() {
  // Never destroyed: Values in other static objects may be released after main returns.
  static auto* shards = new std::array<Shard, kShards>();
  return *shards;
}

Shard& ShardOf(size_t hash) { return Shards()[(hash >> 7) % kShards]; }

// A scoped lock that is a no-op while the process has a single thread.
class MaybeLock {
 public:
  explicit MaybeLock(std::mutex& mu) : mu_(__libc_single_threaded ? nullptr : &mu) {
    if (mu_ != nullptr) mu_->lock();
  }
  ~MaybeLock() {
    if (mu_ != nullptr) mu_->unlock();
  }
  MaybeLock(const MaybeLock&) = delete;
  MaybeLock& operator=(const MaybeLock&) = delete;

 private:
  std::mutex* mu_;
};

template <typename S>
const PooledString* Intern(S&& s) {
  const std::string_view view(s);
  const size_t hash = TextHash()(view);
  Shard& shard = ShardOf(hash);
  MaybeLock lock(shard.mu);
  auto it = shard.set.find(view, hash);
  if (it != shard.set.end()) {
    (*it)->refs.fetch_add(1, std::memory_order_relaxed);
    return *it;
  }
  auto* p = new (shard.slab.Allocate()) PooledString{{1}, std::string(std::forward<S>(s))};
  shard.set.insert(p);
  return p;
}

}  // namespace

const PooledString* InternString(std::string_view s) { return Intern(s); }
const PooledString* InternString(std::string&& s) { return Intern(std::move(s)); }

void UnrefStringSlow(const PooledString* p) {
  Shard& shard = ShardOf(TextHash()(p));
  MaybeLock lock(shard.mu);
  if (p->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  const size_t n = shard.set.erase(p->text);
  RINDLE_CHECK_EQ(n, size_t{1});
  p->~PooledString();
  shard.slab.Free(const_cast<PooledString*>(p));
}

size_t InternedStringCount() {
  size_t n = 0;
  for (Shard& shard : Shards()) {
    MaybeLock lock(shard.mu);
    n += shard.set.size();
  }
  return n;
}

}  // namespace rindle::internal
